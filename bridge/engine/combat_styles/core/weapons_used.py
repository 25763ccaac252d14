"""The weapons of an exchange: which arm a fighter strikes or parries with (and whether he can),
and what the reach the pair fights at does to it (outreached, inside its own reach)."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.hands import holds, require_held
from arbiter.bridge.engine.combat_styles.core.view import Arm, RulesView
from arbiter.bridge.engine.contract import EngineError


def usable_arm(rules: RulesView, c: CombatantRecord, arm_id: str | None, purpose: str) -> Arm:
    """The weapon ``c`` strikes or parries with; EngineError if he lacks it or cannot use it."""
    weapons = c.weapons
    if arm_id is None:
        arm_id = rules.unarmed_id
        for w in weapons:
            if w != arm_id and _can_use(rules, c, w):
                arm_id = w
                break
    state = weapons.get(arm_id)
    if state is None:
        raise EngineError(f"{c.name} does not carry {arm_id!r}")
    if state["broken"]:
        raise EngineError(f"{c.name}'s {rules.arm(arm_id).name} is broken")
    conditions = c.conditions
    for cond in _WEAPON_CONDITIONS if conditions else ():
        if arm_id in conditions.get(cond, {}).get("weapons", []):
            raise EngineError(
                f"{c.name} cannot {purpose} with {arm_id!r}: it is {cond.replace('_in', '')}"
            )
    require_held(rules, c, arm_id, purpose)
    return rules.arm(arm_id)


_WEAPON_CONDITIONS = ("disarmed", "taken", "pinned", "impaled_in", "malfunction")
"""Conditions that keep the weapons they list out of use."""


def _can_use(rules: RulesView, c: CombatantRecord, arm_id: str) -> bool:
    if c.weapons[arm_id]["broken"] or not holds(rules, c, arm_id):
        return False
    conditions = c.conditions
    return not conditions or not any(
        arm_id in conditions.get(cond, {}).get("weapons", []) for cond in _WEAPON_CONDITIONS
    )


def outreached(rules: RulesView, arm: Arm, engaged: str | None) -> bool:
    """Fighting at a reach longer than one's own weapon: only the opposing weapon can be hit."""
    if engaged is None or arm.reach is None or arm.is_ranged:
        return False
    if engaged not in rules.reaches:
        raise EngineError(f"unknown reach {engaged!r} (known: {', '.join(rules.reaches)})")
    return rules.reach_index[arm.reach] < rules.reach_index[engaged]


def inside_reach(rules: RulesView, arm: Arm, engaged: str | None) -> int:
    """Reach steps by which a wielded melee weapon is fighting inside its own reach (natural
    weapons are exempt)."""
    if engaged is None or arm.reach is None or arm.kind != "melee":
        return 0
    if engaged not in rules.reaches:
        raise EngineError(f"unknown reach {engaged!r} (known: {', '.join(rules.reaches)})")
    return max(0, rules.reach_index[arm.reach] - rules.reach_index[engaged])
