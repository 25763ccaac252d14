"""The rule-data model of the hmk ruleset ("Hurting, Maiming, and Killing")."""

from arbiter.compiler.model.hmk.ruleset import HmkRules

RULESET_MODEL = HmkRules

__all__ = ["RULESET_MODEL", "HmkRules"]
