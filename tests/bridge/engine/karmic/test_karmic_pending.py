"""A reveal describes its open hit draws as pending choices in the shape every ruleset shares
(docs/requests.md, "Pending choices"): one per revealed hit card, for its own player, each a
complete ``hit_draw`` request that names the card by its place (no card id)."""

from __future__ import annotations

from karmic_duel import Duel, attack, fighter

A = fighter("a", "heroes", skills={"sword": 2})
B = fighter("b", "villains", skills={"sword": 1})
C = fighter("c", "villains", skills={"sword": 1})


def parry(card: str, target: str) -> dict[str, object]:
    return {"maneuver": "parry", "card": card, "target": target}


def test_each_revealed_hit_card_is_a_choice_for_its_own_player() -> None:
    hands = ["plus-2-hit#1", "minus-1-hit#1", "plus-3#1", "plus-4#1"]
    duel = Duel([A, B, C], first=[*hands, "plus-5#1", "minus-5#1"])
    duel.send("draw_hands", {})
    duel.declare("b", attack("plus-3#1", "a"))
    duel.declare("c", attack("plus-4#1", "a"))
    duel.declare("a", parry("plus-2-hit#1", "b"), parry("minus-1-hit#1", "c"))
    reveal = duel.send("reveal", {}).result
    assert reveal["pending"] == [
        {
            "by": "a",
            "key": f"hit-a-{play}",
            "type": "hit_draw",
            "body": {"combatant": "a", "register": reveal["register"], "play": play},
            "complete": True,
            "options": [{"id": "hit", "label": f"a: draw for the hit ({shown})"}],
        }
        for play, shown in ((0, "+2"), (1, "-1"))
    ]
    # the choice, sent as described, is the draw
    drawn = duel.send("hit_draw", reveal["pending"][1]["body"]).result
    assert (drawn["play"], drawn["card"]["value"]) == (1, -1)


def test_a_reveal_without_hit_cards_waits_for_nothing() -> None:
    one = fighter("a", "heroes", skills={"sword": 1})
    duel = Duel([one, B], first=["plus-3#1", "plus-4#1", "plus-5#1", "minus-5#1"])
    duel.send("draw_hands", {})
    duel.declare("a", attack("plus-3#1", "b"))
    duel.declare("b", attack("plus-4#1", "a"))
    assert "pending" not in duel.send("reveal", {}).result
