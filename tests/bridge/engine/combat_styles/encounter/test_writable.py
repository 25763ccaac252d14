"""Copy-on-write of encounter states: ``writable(state)`` copies no record; ``combatant()``
copies one the first time it is reached in a writable state, so the state the server keeps is
never changed; the marker of what was given never leaves the engine, nor does a typed record."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    GIVEN,
    combatant,
    recopied,
    records_of,
    released,
    taken_in,
    writable,
)
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def _encounter(table: Table) -> EncounterState:
    """The duel's state as the engine works on it (its records typed)."""
    duel(table, fighter("a"), fighter("b"))
    state = taken_in(table.state)
    assert state is not None
    return state


def test_a_record_is_copied_the_first_time_it_is_reached_and_only_then(table: Table) -> None:
    given = _encounter(table)
    state = writable(given)
    assert records_of(state)["a"] is records_of(given)["a"]  # nothing copied up front
    a = combatant(state, "a")
    assert a is not records_of(given)["a"]
    assert a.to_json() == records_of(given)["a"].to_json()
    assert combatant(state, "a") is a  # the same copy every time after
    a.conditions["prone"] = {"turns": None}
    a.hit_points["chest"] -= 3
    assert "prone" not in records_of(given)["a"].conditions
    assert records_of(given)["a"].hit_points["chest"] == a.hit_points["chest"] + 3
    assert records_of(state)["b"] is records_of(given)["b"]  # b never reached
    # Made writable again (a later step of the same request): its copies stay its own.
    again = writable(state)
    assert combatant(again, "a") is a
    assert again.given is records_of(given)


def test_outside_a_writable_state_a_record_is_read_as_it_is(table: Table) -> None:
    given = _encounter(table)
    assert combatant(given, "a") is records_of(given)["a"]
    assert not given.has(GIVEN)


def test_a_recopied_record_is_detached_from_a_reference_held_before(table: Table) -> None:
    state = writable(_encounter(table))
    held = combatant(state, "a")
    fresh = recopied(state, "a")
    assert fresh is not held and fresh.to_json() == held.to_json()
    assert combatant(state, "a") is fresh


def test_no_state_the_engine_returns_carries_the_marker(table: Table) -> None:
    _encounter(table)
    table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [30, 90, 3, 2])
    assert table.state is not None
    assert GIVEN not in table.state
    assert all(isinstance(r, dict) for r in table.state["combatants"].values())
    taken = taken_in(table.state)
    assert taken is not None
    state = writable(taken)
    released(state.data)
    assert GIVEN not in state.data
    released(None)
