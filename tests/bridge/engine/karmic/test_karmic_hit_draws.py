"""Every revealed hit card of a register may be drawn on: both duellists', and each of a
fighter's several parries, named by card id or by its place among the revealed plays."""

from __future__ import annotations

import pytest
from karmic_duel import Duel, attack, fighter
from pydantic import ValidationError

from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.karmic import ENGINE

A = fighter("a", "heroes", skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def parry(card: str, target: str) -> dict[str, object]:
    return {"maneuver": "parry", "card": card, "target": target}


def test_both_duellists_draw_on_their_hit_cards_in_either_order() -> None:
    duel = Duel([A, B], first=["plus-3-hit#1", "minus-2-hit#1", "plus-4#1", "plus-6#1"])
    duel.send("draw_hands", {})
    duel.declare("a", attack("plus-3-hit#1", "b"))
    duel.declare("b", parry("minus-2-hit#1", "a"))
    shown = duel.send("reveal", {}).result["declarations"]
    assert [p["card"] for p in shown["a"]] == [{"value": 3, "hit": True}]
    assert [p["card"] for p in shown["b"]] == [{"value": -2, "hit": True}]
    first = duel.send("hit_draw", {"combatant": "b", "play": 0}).result
    second = duel.send("hit_draw", {"combatant": "a", "card": "plus-3-hit#1"}).result
    assert (first["play"], first["card"], first["drawn"]) == (
        0,
        {"value": -2, "hit": True},
        {"value": 4, "hit": False},
    )
    assert (second["play"], second["drawn"]) == (0, {"value": 6, "hit": False})
    hit = duel.send("resolve_register", {}).result["outcomes"]
    attack_outcome = next(o for o in hit if o["maneuver"] == "attack")
    parry_outcome = next(o for o in hit if o["maneuver"] == "parry")
    assert parry_outcome["parts"]["hit"] == 4 and parry_outcome["total"] == 2
    assert attack_outcome["parts"]["hit"] == 6 and attack_outcome["total"] == 9
    assert (attack_outcome["net"], attack_outcome["success"]) == (7, True)


def _two_hit_parries() -> Duel:
    """a parries b (+2 hit, play 0) and c (-1 hit, play 1) in one register."""
    a = {**A, "skills": {"sword": 2}}
    c = fighter("c", "villains", skills={"sword": 1})
    hands = ["plus-2-hit#1", "minus-1-hit#1", "plus-3#1", "plus-4#1"]
    duel = Duel([a, B, c], first=[*hands, "plus-5#1", "minus-5#1"])
    duel.send("draw_hands", {})
    duel.declare("b", attack("plus-3#1", "a"))
    duel.declare("c", attack("plus-4#1", "a"))
    duel.declare("a", parry("plus-2-hit#1", "b"), parry("minus-1-hit#1", "c"))
    duel.send("reveal", {})
    return duel


def test_a_fighter_draws_on_each_of_two_hit_parries_named_by_their_place() -> None:
    duel = _two_hit_parries()
    later = duel.send("hit_draw", {"combatant": "a", "play": 1}).result
    sooner = duel.send("hit_draw", {"combatant": "a", "play": 0}).result
    assert (later["card"]["value"], later["drawn"]["value"]) == (-1, 5)
    assert (sooner["card"]["value"], sooner["drawn"]["value"]) == (2, -5)
    outcomes = {
        o["combatant"]: o
        for o in duel.send("resolve_register", {}).result["outcomes"]
        if o["maneuver"] == "attack"
    }
    # b's 3 against a parry of 2 - 5 = -3 (not positive); c's 4 against -1 + 5 = 4.
    assert (outcomes["b"]["defense"]["total"], outcomes["b"]["net"]) == (-3, 3)
    assert (outcomes["c"]["defense"]["total"], outcomes["c"]["net"]) == (4, 0)
    assert [outcomes["b"]["success"], outcomes["c"]["success"]] == [True, False]


def test_each_hit_card_is_drawn_on_once_whichever_way_it_is_named() -> None:
    duel = _two_hit_parries()
    duel.send("hit_draw", {"combatant": "a", "card": "minus-1-hit#1"})
    with pytest.raises(EngineError, match="the card of a's play 1 has already been hit"):
        duel.send("hit_draw", {"combatant": "a", "play": 1})
    with pytest.raises(EngineError, match="a made 2 plays in register 1: there is no play 2"):
        duel.send("hit_draw", {"combatant": "a", "play": 2})
    with pytest.raises(EngineError, match="the card of b's play 0 is not a hit card"):
        duel.send("hit_draw", {"combatant": "b", "play": 0})


@pytest.mark.parametrize(
    "body",
    [{"combatant": "a"}, {"combatant": "a", "card": "plus-2-hit#1", "play": 0}],
)
def test_a_hit_draw_names_its_card_exactly_one_way(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="exactly one of card"):
        ENGINE.requests["hit_draw"].model_validate(body)
