"""What lasts (``lasting`` in a result): the public conditions of every combatant the request
changed, as the state holds them after it — so the tabletop shows a condition until the state
ends it, not only while a result restates it."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import GIVEN
from arbiter.bridge.engine.combat_styles.encounter.combatants import released
from arbiter.bridge.engine.combat_styles.encounter.lasting import (
    lasting,
    lasting_of,
    public_conditions,
    released_lasting,
)
from arbiter.bridge.engine.contract import JSON
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def test_prone_lasts_across_a_later_blow_and_goes_when_the_fighter_stands(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "evade", "effects": []}, [80, 30]
    )
    assert out["lasting"] == {"a": [], "b": ["prone"]}  # a: his attacked_round recorded
    # A later blow wounds b without restating that he is down: he is still prone.
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "none", "effects": []}, [30, 3, 2]
    )
    # 1d8 = 3 on the right leg (1d20 = 2; 5 hit points): a minor wound, no consequence.
    assert out["blow"]["wound"] == {
        "location": "right_leg",
        "damage": 3,
        "hit_points": 2,
        "wound": "minor",
        "consequences": [],
    }
    assert out["lasting"] == {"b": ["prone"]}  # a's record is as it was
    out = table("act", {"combatant": "b", "action": "regain_footing"})
    assert out["lasting"] == {"b": []}
    assert "prone" not in table.who("b")["conditions"]


def test_only_the_combatants_the_request_changed_are_listed(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b"), fighter("c")]})
    assert table.state is not None
    table.state["phase"] = "free"
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "evade", "effects": []}, [80, 30]
    )
    assert set(out["lasting"]) == {"a", "b"}  # c was not involved
    out = table("act", {"combatant": "b", "action": "regain_footing"})
    assert out["lasting"] == {"b": []}
    assert "lasting" not in table("state", {})


def test_a_prepared_counter_is_never_listed_though_the_state_holds_it(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    effects = [{"id": "prepare_counter", "counter": "trip_opponent"}]
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": effects}, [80, 30])
    assert "prepared_counter" in table.who("b")["conditions"]
    assert "prepared_counter" not in out["lasting"]["b"]
    assert "prepared_counter" not in str(out["lasting"])


def test_a_record_is_listed_when_the_request_changed_it_however_it_was_copied() -> None:
    kept = {"conditions": {"prone": {"turns": None}}}
    changed = {"conditions": {"stunned": {"turns": 2}, "prepared_counter": {"effect": "x"}}}
    before = {"combatants": {"a": kept, "b": {"conditions": {}}, "d": {"conditions": {}}}}
    after = {
        "combatants": {
            "a": kept,
            "b": changed,
            "c": {"conditions": {"dead": {}}},
            "d": {"conditions": {}},  # copied, never changed: not listed
        }
    }
    assert lasting(before, after) == {"b": ["stunned"], "c": ["dead"]}
    everyone = {"a": ["prone"], "b": ["stunned"], "c": ["dead"], "d": []}
    assert lasting(None, after) == everyone  # a new encounter: every record is new
    assert lasting(before, None) == {}
    assert public_conditions({"conditions": {"prone": {}, "bleeding": {}}}) == ["bleeding", "prone"]


def _stored(cid: str) -> JSON:
    return {
        "id": cid,
        "name": cid,
        "characteristics": {"str": 12, "siz": 11},
        "skills": {"evade": 40},
        "weapons": {"sword": {"hp": 8, "broken": False}},
        "hit_points": {"chest": 6, "head": 5},
        "armor": {"chest": 4},
        "damage_modifier": "+0",
        "luck_points": 2,
        "traits": [],
        "conditions": {},
        "wounds": {},
    }


def _views_of(before: JSON, ways: dict[str, str]) -> JSON:
    """A state leaving a handler: each record of ``before`` reached as ``ways`` says."""
    people: dict[str, CombatantRecord] = {}
    for cid, rec in before["combatants"].items():
        view = CombatantRecord(rec)
        way = ways.get(cid, "untouched")
        if way != "untouched":
            view = view.copied()
        if way == "copied twice":
            view = view.copied()
        elif way == "wounded":
            view.hit_points["chest"] -= 2
        elif way == "parry cut":
            view.weapons["sword"]["hp"] = 7
        elif way == "armour cut":
            view.armor["chest"] = 3
        elif way == "knocked down":
            view.conditions["prone"] = {"turns": None}
        elif way == "marked":
            view.add_mark("m")
        elif way == "luck spent":
            view.luck_points -= 1
        elif way == "luck rewritten":
            view.luck_points = view.luck_points  # written, the same value: unchanged
        elif way == "attacked":
            view.set_attacked_round(1)
        people[cid] = view
    return {"combatants": people}


def test_the_typed_records_comparison_finds_exactly_what_the_stored_one_does() -> None:
    ways = [
        "untouched",
        "copied",
        "copied twice",
        "wounded",
        "parry cut",
        "armour cut",
        "knocked down",
        "marked",
        "luck spent",
        "luck rewritten",
        "attacked",
    ]
    before = {"combatants": {way: _stored(way) for way in ways}}
    after = _views_of(before, {way: way for way in ways})
    fast = lasting_of(before, after)
    stored = {"combatants": {cid: rec.data for cid, rec in after["combatants"].items()}}
    assert fast == lasting(before, stored)
    assert set(fast) == {
        "wounded",
        "parry cut",
        "armour cut",
        "knocked down",
        "marked",
        "luck spent",
        "attacked",
    }
    assert fast["knocked down"] == ["prone"]
    # A record not copied from the stored one (built anew for the same id) is compared whole.
    rebuilt = {"combatants": {"copied": CombatantRecord({**_stored("copied"), "name": "x"})}}
    assert lasting_of(before, rebuilt) == {"copied": []}
    assert lasting_of(None, after) == lasting(None, stored)
    assert lasting_of(before, None) == {}


def test_releasing_with_lasting_tells_what_lasting_of_does_and_stores_what_released_does() -> None:
    ways = ["untouched", "copied", "wounded", "knocked down", "luck spent"]
    before = {"combatants": {way: _stored(way) for way in ways}}
    one, two = (_views_of(before, {way: way for way in ways}) for _ in range(2))
    two[GIVEN] = True  # a writable state's own key, dropped on the way out
    expected = lasting_of(before, one)
    released(one)
    assert (
        released_lasting(before, two)
        == expected
        == {
            "wounded": [],
            "knocked down": ["prone"],
            "luck spent": [],
        }
    )
    assert two == one
    assert two["combatants"]["untouched"] is before["combatants"]["untouched"]
    assert released_lasting(before, None) == {}
    bare: JSON = {"phase": "free", GIVEN: True}
    assert released_lasting(None, bare) == {}
    assert bare == {"phase": "free"}
