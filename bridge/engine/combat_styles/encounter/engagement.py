"""Who may attack whom this round after a manoeuvre: foes an outmanoeuvring combatant blocked,
and fliers who lost this round's aerial pass.

Both blocks last for the remainder of the Combat Round they were won in: each records its
round, and a block from an earlier round no longer counts (outside the turn phase, where no
rounds are counted, a block lasts until the next manoeuvre replaces it).
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.contract import JSON, EngineError

OUTMANEUVERED = "outmaneuvered"
ALOFT = "aloft"


def current_round(state: EncounterState) -> int | None:
    """The round a block won now belongs to (None outside the turn phase)."""
    return state.round if tracks_turns(state) else None


def live(state: EncounterState, condition: JSON | None) -> bool:
    """Whether a round-long block is still in force."""
    return condition is not None and condition.get("round") == current_round(state)


def check_attack(state: EncounterState, attacker_id: str, defender_id: str) -> None:
    """Refuse an attack a manoeuvre of this round forbids (EngineError naming it)."""
    att = combatant(state, attacker_id)
    conditions = att.conditions
    if not conditions:
        return
    blocked: Any = conditions.get(OUTMANEUVERED)
    if live(state, blocked) and defender_id in blocked["by"]:
        dfd = combatant(state, defender_id)
        raise EngineError(
            f"{att.name} was outmanoeuvred by {dfd.name} and cannot attack him this round"
        )
    aloft: Any = conditions.get(ALOFT)
    if (
        live(state, aloft)
        and defender_id in aloft["opponents"]
        and defender_id not in aloft["may_attack"]
    ):
        dfd = combatant(state, defender_id)
        raise EngineError(
            f"{att.name} did not win this round's aerial pass against {dfd.name} "
            "and cannot attack him"
        )
