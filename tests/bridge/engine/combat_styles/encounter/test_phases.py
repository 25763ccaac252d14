"""The encounter's phases: one table of legal moves (``encounter/phases.py``), and every move
it does not list refused with its reason, before anything changes or any die is rolled."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.encounter.phases import (
    FREE,
    PHASES,
    REFUSALS,
    SETUP,
    TRANSITIONS,
    TURNS,
    require,
    tracks_turns,
)
from arbiter.bridge.engine.combat_styles.rounds.turns import spend_proactive, spend_reaction
from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def test_the_table_names_a_refusal_for_every_event_and_only_known_phases() -> None:
    assert set(TRANSITIONS) == set(REFUSALS)
    for event, moves in TRANSITIONS.items():
        assert set(moves) <= set(PHASES) and set(moves.values()) <= set(PHASES), event
        if set(moves) != set(PHASES):
            assert REFUSALS[event], event


def test_nothing_leads_out_of_free_and_only_initiative_or_a_round_leaves_setup() -> None:
    for event, moves in TRANSITIONS.items():
        assert moves.get(FREE, FREE) == FREE, event
        if moves.get(SETUP, SETUP) != SETUP:
            assert event in ("initiative", "new_round")


@pytest.mark.parametrize(
    ("phase", "event", "message"),
    [
        (TURNS, "initiative", "initiative is rolled once, at the start of the encounter"),
        (FREE, "initiative", "initiative is rolled once, at the start of the encounter"),
        (SETUP, "next_turn", "there are no turns before initiative is rolled"),
        (FREE, "next_cycle", "there are no cycles before initiative is rolled"),
        (SETUP, "next_round", "there are no rounds before initiative is rolled"),
        (FREE, "interrupt", "interrupts happen during turns"),
        (SETUP, "proactive", "roll initiative before anyone acts"),
        (FREE, "new_round", "no round begins outside the round order"),
    ],
)
def test_an_illegal_move_is_refused_with_its_reason(phase: str, event: str, message: str) -> None:
    state: dict[str, Any] = {"phase": phase}
    with pytest.raises(EngineError) as refused:
        require(EncounterState(state), event)
    assert str(refused.value) == message
    assert state == {"phase": phase}


def test_a_turn_move_names_who_tried_what() -> None:
    with pytest.raises(EngineError, match=r"^Bors cannot delay before initiative is rolled$"):
        require(EncounterState({"phase": FREE}), "on_turn", "Bors", "delay")


def test_legal_moves_lead_where_the_table_says_and_a_state_without_a_phase_plays_free() -> None:
    assert require(EncounterState({"phase": SETUP}), "initiative") == TURNS
    assert require(EncounterState({"phase": TURNS}), "proactive") == TURNS
    assert require(EncounterState({"phase": FREE}), "proactive") == FREE
    assert require(EncounterState({"phase": SETUP}), "reaction") == SETUP
    assert require(EncounterState({}), "reaction") == FREE
    assert (
        tracks_turns(EncounterState({"phase": TURNS})),
        tracks_turns(EncounterState({"phase": FREE})),
    ) == (True, False)


def started(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})


@pytest.mark.parametrize(
    ("setup", "kind", "body", "message"),
    [
        ("setup", "next_turn", {}, "there are no turns before initiative is rolled"),
        ("setup", "next_cycle", {}, "there are no cycles before initiative is rolled"),
        ("setup", "next_round", {}, "there are no rounds before initiative is rolled"),
        ("setup", "delay", {"combatant": "a"}, "a cannot delay before initiative is rolled"),
        ("setup", "interrupt", {"combatant": "a"}, "interrupts happen during turns"),
        (
            "setup",
            "exchange",
            {"attacker": "a", "defender": "b"},
            "roll initiative before anyone acts",
        ),
        ("turns", "initiative", {}, "initiative is rolled once, at the start of the encounter"),
        ("free", "initiative", {}, "initiative is rolled once, at the start of the encounter"),
        ("free", "next_round", {}, "there are no rounds before initiative is rolled"),
    ],
)
def test_a_request_the_phase_does_not_allow_is_refused_before_any_die_and_changes_nothing(
    table: Table, setup: str, kind: str, body: dict[str, Any], message: str
) -> None:
    if setup == "free":
        duel(table, fighter("a"), fighter("b"))
    else:
        started(table)
        if setup == "turns":
            table("initiative", {}, [9, 2])
    before = json.dumps(table.state, sort_keys=True)
    with pytest.raises(EngineError) as refused:
        table(kind, body)
    assert str(refused.value) == message
    assert table.rolled == []
    assert json.dumps(table.state, sort_keys=True) == before


def test_initiative_opens_round_one_in_turns(table: Table) -> None:
    started(table)
    assert table.state is not None and table.state["phase"] == SETUP
    table("initiative", {}, [9, 2])
    assert (table.state["phase"], table.state["round"], table.state["cycle"]) == (TURNS, 1, 1)


@pytest.mark.parametrize("phase", [FREE, None])
def test_paying_for_an_action_in_free_play_is_legal_and_unpaid_as_the_table_says(
    phase: str | None,
) -> None:
    # turns.spend_reaction and spend_proactive answer free play (or no phase) without asking
    # require (a call on every exchange): the table must say the same.
    data: dict[str, Any] = {} if phase is None else {"phase": phase}
    for event in ("proactive", "reaction"):
        assert require(EncounterState(dict(data)), event) == FREE
    record: dict[str, Any] = {
        "id": "a",
        "name": "A",
        "skills": {},
        "weapons": {},
        "characteristics": {},
        "damage_modifier": "+0",
        "traits": [],
        "conditions": {},
        "ap": 0,
    }
    state = EncounterState({**data, "combatants": {}, "delayed": [], "proactive": []})
    c = CombatantRecord(record)
    before = json.dumps([state.data, record])
    spend_reaction(state, c)
    spend_proactive(state, c, "attack")
    assert json.dumps([state.data, record]) == before
