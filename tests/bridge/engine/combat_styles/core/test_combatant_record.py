"""The typed combatant record writes back exactly the record it read, key for key and in the
same order, over every record of a corpus of keyed encounters; fields stored for the first time
go last, as a dict would put them; fields it does not know are kept."""

from __future__ import annotations

import json

from arbiter.bridge.engine.combat_styles.core.combatant_record import ORDER, CombatantRecord
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    released,
    taken_in,
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


def test_a_change_to_a_copy_is_what_is_written_and_the_stored_record_keeps_its_value() -> None:
    rec = stored_records()[0]
    luck = rec["luck_points"]
    typed = CombatantRecord.of(rec).copied()
    typed.luck_points = luck + 1
    assert typed.to_json()["luck_points"] == luck + 1
    assert rec["luck_points"] == luck
    assert list(typed.to_json()) == list(rec)


def test_a_copy_shares_nothing_a_request_changes() -> None:
    rec = next(r for r in stored_records() if r.get("marks") and r["conditions"])
    original = CombatantRecord.of(rec)
    copy = original.copied()
    copy.conditions[next(iter(copy.conditions))]["changed"] = True
    copy.hit_points[next(iter(copy.hit_points))] -= 1
    copy.weapons[next(iter(copy.weapons))]["broken"] = True
    copy.add_mark("again")
    copy.set_fatigue_levels(3)
    assert list(original.to_json().items()) == list(rec.items())
    assert list(copy.to_json())[-1] == "fatigue_levels" or "fatigue_levels" in rec


def test_a_state_taken_in_writes_back_only_the_records_the_request_reached() -> None:
    records = stored_records()
    a = records[0]
    b = next(r for r in records if r["id"] != a["id"])
    given = {"combatants": {a["id"]: a, b["id"]: b}, "phase": "free", "pending": {}, "seq": 0}
    taken = taken_in(given)
    assert taken is not None
    view = writable(taken)
    c = combatant(view, a["id"])
    c.conditions["prone"] = {"turns": None}
    c.luck_points = a["luck_points"] - 1
    state = view.data
    released(state)
    assert list(state) == ["combatants", "phase", "pending", "seq"]
    assert state["combatants"][b["id"]] is b  # never reached: the very record given
    out = state["combatants"][a["id"]]
    assert list(out) == list(a) and out["luck_points"] == a["luck_points"] - 1
    assert "prone" in out["conditions"] and "prone" not in a["conditions"]
