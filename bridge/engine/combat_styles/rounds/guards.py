"""Passive blocking (the Ward Location action): a weapon or shield held over chosen locations."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import ActBody
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import JSON, EngineError


def ward(rules: RulesView, c: CombatantRecord, body: ActBody) -> JSON:
    """Ward Location / passive blocking: a weapon covers one location, a shield its
    passive-block count (more when crouching), until it attacks or actively parries."""
    if body.weapon is None or not body.locations:
        raise EngineError("Ward Location needs the weapon and the locations it covers")
    if body.weapon not in c.weapons:
        raise EngineError(f"{c.name} does not carry {body.weapon!r}")
    arm = rules.arm(body.weapon)
    for loc in body.locations:
        rules.location(loc)
    if arm.kind == "shield":
        limit = arm.passive_block * (rules.crouch_multiplier if body.crouching else 1)
    else:
        limit = rules.ward_weapon_locations
    if len(set(body.locations)) > limit:
        raise EngineError(f"{arm.name} can ward at most {limit} location(s)")
    c.conditions["warding"] = {
        "turns": None,
        "weapon": arm.id,
        "locations": {loc: arm.id for loc in body.locations},
    }
    return {"weapon": arm.id, "locations": sorted(set(body.locations))}
