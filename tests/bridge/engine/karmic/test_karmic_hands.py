"""Hands by weapon skill, off-hand limits, weapon changes, the deck and its reshuffles."""

from __future__ import annotations

import pytest
from karmic_duel import DECK, Duel, attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError

AXE_AND_POINARD = fighter(
    "devon",
    "heroes",
    main="medium-axe",
    off="poinard",
    skills={"medium-axe": 4, "poinard": 6},
)
SOLDIER = fighter("soldier", "guards", skills={"sword": 2})


def test_axe_and_poinard_draw_four_cards_the_lower_skill() -> None:
    duel = Duel([AXE_AND_POINARD, SOLDIER])
    duel.send("draw_hands", {})
    assert len(duel.hand("devon")) == 4
    assert duel.last.result["hand_sizes"] == {"devon": 4, "soldier": 2}


def test_axe_and_poinard_allow_four_maneuvers_but_only_two_with_the_axe() -> None:
    cards = ["plus-1#1", "plus-2#1", "plus-3#1", "plus-4#1"]
    duel = ready([AXE_AND_POINARD, SOLDIER], {"devon": cards})
    duel.declare("devon", attack(cards[0], "soldier", weapon="main"))
    duel.declare("soldier")
    duel.declare("devon", attack(cards[1], "soldier", weapon="main"))
    duel.declare("soldier")
    with pytest.raises(EngineError, match="no more than 2 maneuvers with the Medium axe"):
        duel.declare("devon", attack(cards[2], "soldier", weapon="main"))
    duel.declare(
        "devon", {"maneuver": "parry", "card": cards[2], "target": "soldier", "weapon": "off"}
    )
    duel.declare("soldier", register=3)
    duel.declare(
        "devon", {"maneuver": "parry", "card": cards[3], "target": "soldier", "weapon": "off"}
    )
    view = duel.send("view", {"viewer": "devon"}).result
    assert view["combatants"]["devon"]["maneuvers_used"] == 4
    assert view["combatants"]["devon"]["maneuver_limit"] == 4


def test_the_poinard_takes_no_more_than_three_maneuvers() -> None:
    devon = {**AXE_AND_POINARD, "skills": {"medium-axe": 6, "poinard": 6}}
    cards = ["plus-1#1", "plus-2#1", "plus-3#1", "plus-4#1", "plus-5#1", "plus-6#1"]
    duel = ready([devon, SOLDIER], {"devon": cards})
    parry = {"maneuver": "parry", "target": "soldier", "weapon": "off"}
    for n in range(3):
        duel.declare("devon", {**parry, "card": cards[n]})
        duel.declare("soldier")
    with pytest.raises(EngineError, match="no more than 3 maneuvers with the Poinard"):
        duel.declare("devon", {**parry, "card": cards[3]})


def test_a_sword_alone_allows_its_maximum_of_three_maneuvers() -> None:
    cards = ["plus-1#1", "plus-2#1", "plus-3#1", "plus-4#1"]
    duel = ready([fighter("a", "x", skills={"sword": 4}), SOLDIER], {"a": cards})
    for n in range(3):
        duel.declare("a", attack(cards[n], "soldier", step=False))
        duel.declare("soldier")
    with pytest.raises(EngineError, match="no more maneuvers"):
        duel.declare("a", attack(cards[3], "soldier"))


def test_a_weapon_change_spends_a_card_ends_the_round_and_limits_the_next_hand() -> None:
    devon = fighter("devon", "heroes", main="long-sword", skills={"long-sword": 3, "dagger": 4})
    noble = fighter("noble", "nobles", skills={"sword": 3})
    cards = ["plus-1#1", "plus-2#1", "plus-3#1"]
    duel = ready([devon, noble], {"devon": cards}, initiative=("devon", "noble"))
    duel.declare("devon", attack(cards[0], "noble"))
    duel.declare(
        "noble",
        {"maneuver": "parry", "card": duel.hand("noble")[0], "target": "devon", "step": False},
    )
    change = {"maneuver": "change-weapon", "card": cards[1], "new_weapon": "dagger"}
    duel.declare("devon", change)
    with pytest.raises(EngineError, match="no more maneuvers"):
        duel.declare("devon", attack(cards[2], "noble"))
    duel.declare("noble")
    first = duel.play()
    assert duel.pair("devon", "noble")["range"] == 0  # the noble did not step back
    assert first["outcomes"][1]["parts"]["no_step"] == -2
    second = duel.play()
    assert second["outcomes"][0]["drawn"] == "dagger"
    assert second["round_over"] is False  # the noble still holds cards
    duel.declare("noble")
    assert duel.play()["declarations"] == {"noble": []}
    duel.send("draw_hands", {})
    assert len(duel.hand("devon")) == 1  # no Fast Draw: one card
    duel.send("draw_hands", {})
    assert len(duel.hand("devon")) == 4  # the dagger skill again


def test_hands_are_drawn_without_replacement_and_the_discard_reshuffles() -> None:
    a = fighter("a", "x", skills={"sword": 10})
    b = fighter("b", "y", skills={"sword": 10})
    duel = Duel([a, b], first=[])
    seen: list[str] = []
    for _ in range(2):
        duel.send("draw_hands", {})
        seen += duel.hand("a") + duel.hand("b")
        duel.declare("a")
        duel.declare("b")
        duel.play()
    assert len(set(seen[:40])) == 40
    assert duel.state is not None
    deck = duel.state["deck"]
    assert deck["reshuffles"] == 0
    duel.send("draw_hands", {})  # 8 left in the pile: the discard is shuffled in
    assert duel.state["deck"]["reshuffles"] == 1
    held = duel.hand("a") + duel.hand("b")
    assert len(set(held)) == 20
    everywhere = held + duel.state["deck"]["draw"] + [c for c, _ in duel.state["deck"]["discard"]]
    assert sorted(everywhere) == sorted(DECK)


def test_a_skill_the_fighter_lacks_draws_one_card() -> None:
    duel = Duel([fighter("a", "x"), fighter("b", "y", skills={"sword": 3})])
    duel.send("draw_hands", {})
    assert duel.last.result["hand_sizes"] == {"a": 1, "b": 3}
