"""Who rides whom: the ``mounted`` condition of a rider (``mount``: the mount's id) and the
``ridden`` condition of his mount (``by``: the rider), and the cap ``combat.mounted.skill_cap``
puts on a rider's combat skills."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.traits import lifts_cap
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant
from arbiter.bridge.engine.contract import EngineError

MOUNTED = "mounted"
RIDDEN = "ridden"


def is_mounted(c: CombatantRecord) -> bool:
    """Whether ``c`` sits on a mount (the ``mounted`` condition)."""
    return bool(c.conditions) and MOUNTED in c.conditions


def mount_of(state: EncounterState, c: CombatantRecord) -> CombatantRecord | None:
    """The record of the mount ``c`` rides (None when he is not mounted)."""
    mounted = c.conditions.get(MOUNTED) if c.conditions else None
    return combatant(state, mounted["mount"]) if mounted else None


def rider_cap(rules: RulesView, c: CombatantRecord, skill: int) -> int:
    """A rider's combat skill, capped by the ``skill_cap`` skill (Ride) unless one of his
    style traits lifts a ``skill_caps`` entry capped by that skill (Mounted Combat lifts
    ``mounted``)."""
    if not c.conditions or MOUNTED not in c.conditions:
        return skill
    rule = rules.model.combat.mounted
    if c.traits and any(
        lifts_cap(rules, c, cap.id)
        for cap in rules.model.skill_caps
        if cap.capped_by == rule.skill_cap
    ):
        return skill
    if rule.skill_cap not in c.skills:
        raise EngineError(
            f"the mounted skill cap names {rule.skill_cap!r}, a skill combatants lack"
        )
    return min(skill, c.skills[rule.skill_cap])
