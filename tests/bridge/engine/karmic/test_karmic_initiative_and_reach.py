"""Initiative draws (ties, show-downs), reach and parrying across ranges, views, purity."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from karmic_duel import Duel, attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError

A = fighter("a", "heroes", skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def test_a_tied_initiative_draw_is_drawn_again() -> None:
    duel = Duel([A, B], first=["plus-4#1", "plus-4#2", "minus-1#1", "plus-6#1"])
    result = duel.send("draw_initiative", {"between": ["a", "b"]}).result
    assert [d["best"] for d in result["draws"]] == [{"a": 4, "b": 4}, {"a": -1, "b": 6}]
    assert result["winner"] == "b"


def test_combat_training_draws_several_cards_and_keeps_the_best() -> None:
    trained = {**A, "skills": {"combat_training": 3}}
    duel = Duel([trained, B], first=["minus-5#1", "plus-1#1", "minus-3#1", "zero#1"])
    result = duel.send("draw_initiative", {"between": ["a", "b"]}).result
    assert [len(result["draws"][0]["cards"][cid]) for cid in ("a", "b")] == [3, 1]
    assert result["draws"][0]["best"] == {"a": 1, "b": 0}


def test_a_show_down_draws_fast_draw_instead_of_combat_training() -> None:
    gunslinger = {**A, "skills": {"combat_training": 3, "fast_draw": 2}}
    duel = Duel([gunslinger, B], first=["minus-5#1", "plus-1#1", "zero#1"])
    result = duel.send("draw_initiative", {"between": ["a", "b"], "showdown": True}).result
    assert result["skill"] == "fast_draw"
    assert len(result["draws"][0]["cards"]["a"]) == 2


def test_a_duel_begins_at_the_range_of_the_longest_weapon() -> None:
    duel = Duel([{**A, "main": "spear"}, B])
    assert duel.pair("a", "b")["range"] == 2


def test_a_sword_cannot_attack_at_the_spears_range_but_can_parry_the_spear() -> None:
    spear = {**A, "main": "spear", "skills": {"spear": 1}}
    duel = ready([spear, B], {"a": ["plus-5#1"], "b": ["plus-9#1"]})
    with pytest.raises(EngineError, match="Sword attacks at range 1, the range is 2"):
        duel.declare("b", attack("plus-9#1", "a"))
    duel.declare("a", attack("plus-5#1", "b"))
    duel.declare("b", {"maneuver": "parry", "card": "plus-9#1", "target": "a"})
    hit = duel.play()["outcomes"][0]
    assert (hit["defense"]["total"], hit["success"]) == (9, False)


def test_a_longer_weapon_cannot_parry_a_shorter_one_at_close_range() -> None:
    dagger = {**A, "main": "dagger", "skills": {"dagger": 1}}
    duel = ready([dagger, B], {"a": ["plus-2#1"], "b": ["plus-9#1"]}, start_range=0)
    duel.declare("a", attack("plus-2#1", "b"))
    duel.declare("b", {"maneuver": "parry", "card": "plus-9#1", "target": "a"})
    hit = duel.play()["outcomes"][0]
    assert "Sword parries at range 1" in hit["defense_void"]
    assert (hit["opposed"], hit["success"]) == (False, True)


def test_an_attack_declared_ahead_fails_if_the_range_moved_out_of_reach() -> None:
    a = {**A, "skills": {"sword": 2}}
    b = {**B, "skills": {"sword": 2}}
    duel = ready([a, b], {"a": ["plus-1#1", "plus-2#1"], "b": ["plus-9#1", "zero#1"]})
    duel.declare("a", attack("plus-1#1", "b", step=False))
    duel.declare("b", {"maneuver": "parry", "card": "plus-9#1", "target": "a"})
    duel.declare("a", attack("plus-2#1", "b"))  # declared while register 1 is unresolved
    duel.declare("b")
    duel.play()
    assert duel.pair("a", "b")["range"] == 2
    hit = duel.play()["outcomes"][0]
    assert (hit["success"], hit["reason"]) == (False, "Sword attacks at range 1, the range is 2")


def test_a_players_view_holds_his_own_hand_and_only_counts_of_the_others() -> None:
    duel = ready([A, B], {"a": ["plus-5#1"], "b": ["plus-9#1"]})
    duel.declare("a", attack("plus-5#1", "b"))
    res = duel.send("view", {"viewer": "b"})
    assert res.private == {
        "b": {
            "combatant": "b",
            "hand": [{"card": "plus-9#1", "value": 9, "hit": False}],
            "sealed": [],
        }
    }
    assert res.result["combatants"]["a"]["hand_count"] == 0
    assert res.result["registers"][0]["declarations"]["a"] == [
        {"maneuver": "attack", "targets": ["b"], "weapon": "main", "step": True}
    ]
    assert "plus-5#1" not in repr(res.result)
    assert res.result["deck"]["draw_count"] == 46


def test_the_engine_package_does_no_io_and_uses_no_global_randomness() -> None:
    package = Path(__file__).resolve().parents[4] / "bridge" / "engine" / "karmic"
    banned = re.compile(r"^\s*(import|from)\s+(random|time|datetime|os|socket|pathlib)\b|\bopen\(")
    for source in package.glob("*.py"):
        for line in source.read_text().splitlines():
            assert not banned.search(line), f"{source.name}: {line}"
