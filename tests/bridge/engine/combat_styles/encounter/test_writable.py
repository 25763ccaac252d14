"""Copy-on-write of encounter states: ``writable(state)`` copies no record; ``combatant()``
copies one the first time it is reached in a writable state, so the state the server keeps is
never changed; the marker of what was given never leaves the engine, nor does a typed record."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    GIVEN,
    combatant,
    recopied,
    released,
    taken_in,
    writable,
)
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def _encounter(table: Table) -> dict[str, Any]:
    """The duel's state as the engine works on it (its records typed)."""
    duel(table, fighter("a"), fighter("b"))
    state = taken_in(table.state)
    assert state is not None
    return state


def test_a_record_is_copied_the_first_time_it_is_reached_and_only_then(table: Table) -> None:
    given = _encounter(table)
    state = writable(given)
    assert state["combatants"]["a"] is given["combatants"]["a"]  # nothing copied up front
    a = combatant(state, "a")
    assert a is not given["combatants"]["a"]
    assert a.to_json() == given["combatants"]["a"].to_json()
    assert combatant(state, "a") is a  # the same copy every time after
    a.conditions["prone"] = {"turns": None}
    a.hit_points["chest"] -= 3
    assert "prone" not in given["combatants"]["a"].conditions
    assert given["combatants"]["a"].hit_points["chest"] == a.hit_points["chest"] + 3
    assert state["combatants"]["b"] is given["combatants"]["b"]  # b never reached
    # Made writable again (a later step of the same request): its copies stay its own.
    again = writable(state)
    assert combatant(again, "a") is a
    assert again[GIVEN] is given["combatants"]


def test_outside_a_writable_state_a_record_is_read_as_it_is(table: Table) -> None:
    given = _encounter(table)
    assert combatant(given, "a") is given["combatants"]["a"]
    assert GIVEN not in given


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
    state = writable(taken_in(table.state) or {})
    released(state)
    assert GIVEN not in state
    released(None)
