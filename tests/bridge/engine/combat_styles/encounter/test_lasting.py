"""What lasts (``lasting`` in a result): the public conditions of every combatant the request
changed, as the state holds them after it — so the tabletop shows a condition until the state
ends it, not only while a result restates it."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.encounter.lasting import lasting, public_conditions
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
