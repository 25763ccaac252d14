"""Who rides whom: the ``mounted`` condition of a rider (``mount``: the mount's id) and the
``ridden`` condition of his mount (``by``: the rider), and the cap ``combat.mounted.skill_cap``
puts on a rider's combat skills."""

from __future__ import annotations

from bridge.engine.combat_styles.combatants import combatant
from bridge.engine.combat_styles.view import RulesView
from bridge.engine.contract import JSON, EngineError

MOUNTED = "mounted"
RIDDEN = "ridden"


def mount_of(state: JSON, c: JSON) -> JSON | None:
    """The record of the mount ``c`` rides (None when he is not mounted)."""
    mounted = c["conditions"].get(MOUNTED) if c["conditions"] else None
    return combatant(state, mounted["mount"]) if mounted else None


def rider_cap(rules: RulesView, c: JSON, skill: int) -> int:
    """A rider's combat skill, capped by his ``skill_cap`` skill unless his style lifts it."""
    if not c["conditions"] or MOUNTED not in c["conditions"]:
        return skill
    rule = rules.model.combat.mounted
    if rule.skill_cap_lifted_by is not None and rule.skill_cap_lifted_by in c["traits"]:
        return skill
    if rule.skill_cap not in c["skills"]:
        raise EngineError(
            f"the mounted skill cap names {rule.skill_cap!r}, a skill combatants lack"
        )
    return min(skill, c["skills"][rule.skill_cap])
