"""The typed encounter state is a view of the stored state: every top-level field a corpus of
keyed encounters stores has a property reading exactly the stored value; a field written for
the first time goes last, as a dict would put it; a field written again keeps its place; a key
the engine does not know is kept; fields an encounter's kind does not keep read as the engine
has always read them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.core.encounter_state import GIVEN, EncounterState
from arbiter.bridge.engine.contract import JSON
from benchmarks.combat_styles_corpus import corpus

FIELDS = {
    "combatants": "records",
    "phase": "phase",
    "round": "round",
    "cycle": "cycle",
    "order": "order",
    "initiative": "initiative",
    "acted": "acted",
    "proactive": "proactive",
    "delayed": "delayed",
    "pending": "pending",
    "seq": "seq",
    "spirit_engagements": "spirit_engagements",
    "essence_lost": "essence_lost",
    "fatigue_checks": "fatigue_checks",
}
"""Stored key → the view's property for it."""


def stored_states() -> list[JSON]:
    """Every state a corpus of 30 encounters leaves, as stored."""
    lines, _ = corpus(30, steps=25)
    out: list[JSON] = []
    for line in lines:
        outcome = json.loads(line).get("outcome")
        if outcome is not None and outcome["state"] is not None:
            out.append(outcome["state"])
    return out


def test_every_top_level_field_a_corpus_stores_reads_as_stored_through_its_property() -> None:
    states = stored_states()
    assert len(states) > 300
    seen: set[str] = set()
    for state in states:
        view = EncounterState(state)
        assert view.data is state
        for key, value in state.items():
            assert key in FIELDS, f"{key!r} has no typed property"
            assert getattr(view, FIELDS[key]) == value
            seen.add(key)
    # The corpus reaches every field of a started and of a free encounter.
    assert seen >= {
        "combatants",
        "phase",
        "round",
        "cycle",
        "order",
        "initiative",
        "acted",
        "proactive",
        "delayed",
        "pending",
        "seq",
    }


def test_a_field_written_for_the_first_time_goes_last_and_a_rewritten_one_keeps_its_place() -> None:
    data: dict[str, Any] = {"combatants": {}, "phase": "setup", "mystery": 1, "round": 0}
    view = EncounterState(data)
    view.phase = "turns"
    view.round = 1
    view.cycle = 1
    view.seq = 4
    view.essence_lost = {"round": 1, "cycle": 1, "lost": []}
    view.pending_kept()["x1"] = {"attacker": "a"}
    assert list(data) == [
        "combatants",
        "phase",
        "mystery",
        "round",
        "cycle",
        "seq",
        "essence_lost",
        "pending",
    ]
    assert (data["phase"], data["round"], data["cycle"], data["seq"]) == ("turns", 1, 1, 4)
    assert data["mystery"] == 1 and data["pending"] == {"x1": {"attacker": "a"}}
    view.drop_essence_lost()
    view.drop_essence_lost()
    assert "essence_lost" not in data and view.essence_lost is None


def test_a_free_encounter_reads_the_fields_it_does_not_keep_as_the_engine_always_has() -> None:
    view = EncounterState({"combatants": {}, "phase": "free"})
    assert (view.round, view.cycle, view.seq, view.essence_lost) == (None, None, 0, None)
    assert (view.spirit_engagements, view.fatigue_checks, view.is_writable) == ([], False, False)
    assert view.pending_or_none is None and not view.has("pending")
    for read in (
        lambda: view.order,
        lambda: view.acted,
        lambda: view.pending,
        view.round_number,
        view.cycle_number,
    ):
        with pytest.raises(KeyError):
            read()
    assert list(view.data) == ["combatants", "phase"]  # reading stored nothing


def test_the_writable_marker_is_set_read_and_dropped_through_the_view() -> None:
    view = EncounterState({"combatants": {}})
    view.mark_writable()
    assert view.is_writable and view.has(GIVEN)
    view.drop_writable()
    view.drop_writable()
    assert not view.is_writable and not view.has(GIVEN)


def test_a_view_made_of_a_state_knows_it_writable_by_the_key_it_stores() -> None:
    assert not EncounterState({"combatants": {}}).is_writable
    made = EncounterState({"combatants": {}, GIVEN: True})
    assert made.is_writable
    again = EncounterState(made.data)
    again.drop_writable()
    assert GIVEN not in made.data and not EncounterState(made.data).is_writable
