"""The typed combatant record writes back exactly the record it read, key for key and in the
same order, over every record of a corpus of keyed encounters; fields stored for the first time
go last, as a dict would put them; fields it does not know are kept."""

from __future__ import annotations

import json

from arbiter.bridge.engine.combat_styles.encounter.combatant_record import ORDER, CombatantRecord
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    records_of,
    stored,
    typed,
    writable,
)
from arbiter.bridge.engine.contract import JSON
from benchmarks.combat_styles_corpus import corpus


def stored_records() -> list[JSON]:
    """Every combatant record of every state a corpus of 30 encounters leaves, as stored."""
    lines, _ = corpus(30, steps=25)
    out: list[JSON] = []
    for line in lines:
        outcome = json.loads(line).get("outcome")
        if outcome is not None and outcome["state"] is not None:
            out.extend(outcome["state"]["combatants"].values())
    return out


def test_every_stored_record_is_written_back_key_for_key_in_its_own_order() -> None:
    records = stored_records()
    assert len(records) > 500
    assert any("ap" in r for r in records) and any("ap" not in r for r in records)
    for rec in records:
        again = CombatantRecord.of(rec).to_json()
        assert list(again.items()) == list(rec.items())


def test_a_new_record_keeps_the_order_it_was_built_in() -> None:
    rec = next(r for r in stored_records() if list(r) == list(ORDER))
    assert list(CombatantRecord.of(rec).to_json()) == list(ORDER)


def test_a_field_stored_for_the_first_time_goes_last_and_a_second_write_keeps_its_place() -> None:
    rec = next(r for r in stored_records() if "ap" not in r and "marks" not in r)
    typed = CombatantRecord.of(rec)
    assert typed.ap is None and typed.marks is None
    typed.set_marks(["x"])
    typed.set_ap(3)
    typed.set_marks(["x", "y"])
    out = typed.to_json()
    assert list(out)[-2:] == ["marks", "ap"]
    assert out["marks"] == ["x", "y"] and out["ap"] == 3


def test_fields_an_older_record_lacks_read_none_and_are_not_written() -> None:
    rec = dict(stored_records()[0])
    for key in ("hands", "enc", "quadruped", "spirit", "body_plan", "magic_points"):
        del rec[key]
    typed = CombatantRecord.of(rec)
    assert (typed.hands, typed.enc, typed.quadruped, typed.spirit) == (None, None, None, None)
    assert typed.body_plan is None and typed.magic_points is None
    assert list(typed.to_json().items()) == list(rec.items())


def test_a_field_the_engine_does_not_know_is_kept_in_its_place() -> None:
    rec = dict(stored_records()[0])
    rec = {"from_elsewhere": {"a": 1}, **rec}
    assert list(CombatantRecord.of(rec).to_json().items()) == list(rec.items())


def test_a_change_to_a_typed_field_is_what_is_written() -> None:
    rec = stored_records()[0]
    typed = CombatantRecord.of(rec)
    typed.luck_points = rec["luck_points"] + 1
    assert typed.to_json()["luck_points"] == rec["luck_points"] + 1


def test_typed_reaches_the_states_own_record_and_stored_writes_back_in_place() -> None:
    rec = stored_records()[0]
    given = {"combatants": {rec["id"]: rec}, "phase": "free", "pending": {}, "seq": 0}
    state = writable(given)
    c = typed(state, rec["id"])
    c.conditions["prone"] = {"turns": None}
    c.luck_points = rec["luck_points"] - 1
    own = records_of(state)[rec["id"]]
    assert "prone" in own["conditions"] and "prone" not in rec["conditions"]
    assert own["luck_points"] == rec["luck_points"]  # not yet stored
    stored(state, c)
    assert records_of(state)[rec["id"]] is own
    assert own["luck_points"] == rec["luck_points"] - 1
    assert list(own) == list(rec)
    assert records_of(given)[rec["id"]] is rec and "prone" not in rec["conditions"]
