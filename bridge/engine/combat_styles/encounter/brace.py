"""Brace (text "Brace"): "For the purposes of resisting Knockback or Leaping Attacks the
character's SIZ is treated as 50% bigger. Against the Bash special effect SIZ is doubled. The
benefits of bracing are lost once the character moves away from the place they planted
themselves."

The action (``combat.brace.action``) leaves the condition ``braced`` on the fighter; it lasts
until he takes one of ``combat.brace.lost_on_actions`` or one of the ``lost_when`` events moves
him (evading, being knocked back, charging, leaping, outmanoeuvring, withdrawing). The
per-exchange ``situation.defender_braced`` flag braces the defender for that exchange alone.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import ceil_div
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.contract import JSON

BRACED = "braced"


def take(rules: RulesView, c: CombatantRecord) -> JSON:
    """``c`` (writable) braces: what his SIZ now counts as against knockback and leaps, and
    against Bash."""
    add_condition(c, BRACED)
    siz = int(c.characteristics["siz"])
    knock, bash = rules.knockback.brace_multiplier, rules.brace_vs_bash
    return {
        "siz": siz,
        "against_knockback": ceil_div(siz * knock.numerator, knock.denominator),
        "against_bash": ceil_div(siz * bash.numerator, bash.denominator),
    }


def is_braced(c: CombatantRecord, flagged: bool = False) -> bool:
    """Whether ``c`` is braced: by the Brace action, or by the exchange's ``defender_braced``
    flag (``flagged``: the flag is set and ``c`` is that exchange's defender)."""
    return flagged or BRACED in c.conditions


def lose(rules: RulesView, c: CombatantRecord, event: str, notes: list[str] | None = None) -> None:
    """``event`` (a ``combat.brace.lost_when`` name or a ``lost_on_actions`` id) happens to
    ``c`` (writable): a brace it moves him from is lost, and ``notes`` say so."""
    conditions = c.conditions
    if BRACED not in conditions:
        return  # the usual case: nobody braced
    data = rules.model.combat.brace
    if event in data.lost_when or event in data.lost_on_actions:
        del conditions[BRACED]
        if notes is not None:
            notes.append(f"{c.name} is no longer braced ({event.replace('_', ' ')})")
