"""Copy-on-write of encounter states: ``writable(state)`` copies no record; ``combatant()``
copies one the first time it is reached in a writable state, into its own view, so the state
the server keeps is never changed; the marker of a writable state never leaves the engine, nor
does a typed record."""

from __future__ import annotations

import json

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
    stored = table.state
    assert stored is not None
    kept = json.dumps(stored)
    a_stored, b_stored = stored["combatants"]["a"], stored["combatants"]["b"]
    state = writable(given)
    assert state is given  # the request's own state: made writable in place
    a = records_of(state)["a"]
    assert a.data is a_stored  # nothing copied up front
    assert combatant(state, "a") is a and a.data is not a_stored  # copied into its view
    assert a.to_json() == a_stored
    copy = a.data
    assert combatant(state, "a") is a and a.data is copy  # the same copy every time after
    a.conditions["prone"] = {"turns": None}
    a.hit_points["chest"] -= 3
    assert "prone" not in a_stored["conditions"]
    assert a_stored["hit_points"]["chest"] == a.hit_points["chest"] + 3
    assert records_of(state)["b"].data is b_stored  # b never reached
    # Made writable again (a later step of the same request): a copy sharing its records.
    again = writable(state)
    assert again is not state and combatant(again, "a") is a and a.data is copy
    again.acted.append("a")
    assert state.acted == [] and stored["acted"] == []
    assert json.dumps(stored) == kept  # the stored state never changed


def test_the_round_bookkeeping_a_request_writes_is_its_own_copy(table: Table) -> None:
    given = _encounter(table)
    stored = table.state
    assert stored is not None
    state = writable(given)
    state.acted.append("a")
    state.pending["x"] = {}
    assert stored["acted"] == [] and "x" not in stored["pending"]


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
