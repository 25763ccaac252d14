"""The text's worked round: Devon against the soldier, replayed with the text's cards."""

from __future__ import annotations

from karmic_duel import Duel, fighter

DEVON_FIRST = ["plus-2#1", "minus-4#1", "plus-3-hit#1", "minus-2#1", "plus-10#1"]
ORDER = [*DEVON_FIRST, "minus-2-hit#1", "plus-5#1"]


def devon_and_the_soldier() -> Duel:
    duel = Duel(
        [
            fighter("devon", "heroes", force=1, skills={"sword": 3, "combat_training": 1}),
            fighter("soldier", "guards", force=1, armor="leather", skills={"sword": 2}),
        ],
        first=ORDER,
    )
    duel.send("draw_initiative", {"between": ["devon", "soldier"]})
    duel.send("draw_hands", {})
    return duel


def declare_the_round(duel: Duel) -> None:
    devon = {"target": "soldier"}
    soldier = {"target": "devon"}
    duel.declare("devon", {"maneuver": "attack", "card": "plus-3-hit#1", **devon})
    duel.declare("soldier", {"maneuver": "parry", "card": "plus-5#1", **soldier})
    duel.declare("devon", {"maneuver": "feint", "card": "minus-2#1", **devon})
    duel.declare("soldier", {"maneuver": "parry", "card": "minus-2-hit#1", **soldier})
    duel.declare("devon", {"maneuver": "disarm", "card": "plus-10#1", **devon})


def test_devon_wins_the_initiative_with_plus_two_against_minus_four() -> None:
    duel = devon_and_the_soldier()
    initiative = duel.results[1]
    assert initiative["draws"][0]["best"] == {"devon": 2, "soldier": -4}
    assert initiative["winner"] == "devon"
    assert duel.pair("devon", "soldier")["initiative"] == "devon"


def test_the_hands_are_drawn_by_sword_skill() -> None:
    duel = devon_and_the_soldier()
    assert duel.hand("devon") == ["plus-3-hit#1", "minus-2#1", "plus-10#1"]
    assert duel.hand("soldier") == ["minus-2-hit#1", "plus-5#1"]
    assert duel.pair("devon", "soldier")["range"] == 1


def test_the_worked_round_gives_minus_one_minus_one_and_a_disarm_at_plus_six() -> None:
    duel = devon_and_the_soldier()
    declare_the_round(duel)
    first = duel.play()
    assert first["round_over"] is False  # registers 2 and 3 are declared
    attack = first["outcomes"][0]
    assert attack["parts"] == {"card": 3, "modifiers": 1, "difficulty": 0}
    assert attack["defense"] == {"maneuver": "parry", "total": 5}
    assert (attack["net"], attack["success"]) == (-1, False)

    second = duel.play()
    feint = second["outcomes"][0]
    assert feint["total"] == -1
    assert feint["defense"]["total"] == -2  # not positive: does not modify the attack
    assert (feint["net"], feint["success"]) == (-1, False)

    third = duel.play()
    disarm = third["outcomes"][0]
    assert disarm["parts"] == {"card": 10, "modifiers": 1, "difficulty": -5}
    assert (disarm["net"], disarm["opposed"], disarm["success"]) == (6, False, True)
    assert disarm["disarmed"] == {"weapon": "sword", "hand": "main"}
    assert duel.state is not None
    assert duel.state["combatants"]["soldier"]["main"] == "unarmed"
    assert third["round_over"] is True
    assert duel.pair("devon", "soldier")["range"] == 0  # the unparried attack stepped in
    effects = duel.state["combatants"]["soldier"]["effects"]
    assert effects == [{"effect": "disarmed", "by": "devon", "weapon": "sword", "until_round": 2}]


def test_the_soldier_with_no_cards_left_cannot_declare_in_the_third_register() -> None:
    duel = devon_and_the_soldier()
    declare_the_round(duel)
    duel.play()
    duel.play()
    reveal = duel.send("reveal", {}).result
    assert reveal["register"] == 3
    assert list(reveal["declarations"]) == ["devon"]


def test_the_feint_shows_as_an_attack_until_revealed() -> None:
    duel = devon_and_the_soldier()
    declare_the_round(duel)
    view = duel.send("view", {"viewer": "soldier"}).result
    second = view["registers"][1]["declarations"]["devon"][0]
    assert second["maneuver"] == "attack"
    assert "card" not in second
