"""Every combat-styles request type and the pydantic model of its body.

Kept apart from :mod:`arbiter.bridge.engine.combat_styles.engine` (the dispatcher), so that module
imports no pydantic and is compiled with the engine.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from arbiter.bridge.engine.combat_styles.bodies.move_requests import (
    AerialBody,
    LeapingAttackBody,
    MountBody,
    MountedWithdrawBody,
    OutmaneuverBody,
    SweepAttackBody,
)
from arbiter.bridge.engine.combat_styles.bodies.requests import (
    ActBody,
    CheckBody,
    ChooseEffectsBody,
    CombatantBody,
    EmptyBody,
    ExchangeBody,
    InitiativeBody,
    OddsBody,
    OpposedBody,
    SpiritCombatBody,
    StartEncounterBody,
)

REQUESTS: Mapping[str, type[BaseModel]] = {
    "check": CheckBody,
    "opposed": OpposedBody,
    "exchange": ExchangeBody,
    "choose_effects": ChooseEffectsBody,
    "odds": OddsBody,
    "spirit_combat": SpiritCombatBody,
    "start_encounter": StartEncounterBody,
    "initiative": InitiativeBody,
    "act": ActBody,
    "spend_ap": ActBody,
    "delay": CombatantBody,
    "interrupt": CombatantBody,
    "next_turn": EmptyBody,
    "next_cycle": EmptyBody,
    "next_round": EmptyBody,
    "state": EmptyBody,
    "leaping_attack": LeapingAttackBody,
    "outmaneuver": OutmaneuverBody,
    "sweep_attack": SweepAttackBody,
    "aerial_pass": AerialBody,
    "mount": MountBody,
    "mounted_withdraw": MountedWithdrawBody,
}
