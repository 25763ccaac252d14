"""One test (or a few) per maneuver of the text, with the cards chosen so the numbers show."""

from __future__ import annotations

import pytest
from karmic_duel import attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError

A = fighter("a", "heroes", skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def parry(card: str, target: str, **kw: object) -> dict[str, object]:
    return {"maneuver": "parry", "card": card, "target": target, **kw}


def test_an_unopposed_attack_succeeds_and_deals_up_to_the_weapons_maximum() -> None:
    duel = ready([A, B], {"a": ["plus-4#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-4#1", "b"))
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert (hit["opposed"], hit["success"], hit["damage"], hit["vitality"]) == (False, True, 3, 7)
    assert duel.pair("a", "b")["range"] == 0  # the attack stepped in, nobody stepped back


def test_an_unopposed_attack_with_a_low_card_still_deals_the_minimum() -> None:
    duel = ready([A, B], {"a": ["minus-3#1"], "b": ["zero#1"]})
    duel.declare("a", attack("minus-3#1", "b"))
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert (hit["total"], hit["success"], hit["damage"]) == (-3, True, 1)


def test_armor_protection_is_subtracted_from_damage() -> None:
    leather = {**B, "armor": "leather"}
    duel = ready([A, leather], {"a": ["plus-9#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-9#1", "b"))
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert (hit["parts"]["modifiers"], hit["protection"], hit["damage"]) == (0, 1, 2)


def test_a_parry_stops_the_attack_and_a_better_parry_seizes_the_initiative() -> None:
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["plus-4#1"]}, initiative=("a", "b"))
    duel.declare("a", attack("plus-1#1", "b"))
    duel.declare("b", parry("plus-4#1", "a"))
    result = duel.play()
    assert result["outcomes"][0]["net"] == -3
    assert result["initiative"] == [{"holder": "b", "over": "a"}]
    assert duel.pair("a", "b") == {**duel.pair("a", "b"), "initiative": "b", "range": 1}


def test_the_foe_without_the_initiative_declares_second() -> None:
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["plus-4#1"]}, initiative=("a", "b"))
    with pytest.raises(EngineError, match="a holds the initiative over b and declares first"):
        duel.declare("b", parry("plus-4#1", "a"))


def test_a_feint_is_resolved_as_an_attack() -> None:
    duel = ready([A, B], {"a": ["plus-6#1"], "b": ["plus-2#1"]})
    duel.declare("a", attack("plus-6#1", "b", maneuver="feint"))
    duel.declare("b", parry("plus-2#1", "a"))
    hit = duel.play()["outcomes"][0]
    assert (hit["maneuver"], hit["net"], hit["success"], hit["damage"]) == ("feint", 4, True, 3)


def test_a_disarm_can_take_the_off_hand_weapon() -> None:
    shielded = {**B, "off": "small-shield", "skills": {"sword": 1, "small-shield": 1}}
    duel = ready([A, shielded], {"a": ["plus-7#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-7#1", "b", maneuver="disarm", target_weapon="off"))
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert hit["disarmed"] == {"weapon": "small-shield", "hand": "off"}
    assert "damage" not in hit
    assert duel.state is not None and duel.state["combatants"]["b"]["off"] is None


def test_a_called_shot_to_the_head_is_at_minus_five_and_doubles_damage() -> None:
    duel = ready([A, B], {"a": ["plus-10#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-10#1", "b", location="head"))
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert (hit["parts"]["location"], hit["total"], hit["multiplier"], hit["damage"]) == (
        -5,
        5,
        2,
        6,
    )


def test_called_shots_use_the_large_and_small_creature_tables() -> None:
    giant = fighter("giant", "villains", size=2, main="club", skills={"club": 1})
    rat = fighter("rat", "villains", size=1, main="dagger")
    man = fighter("man", "heroes", size=3, skills={"sword": 2})
    duel = ready([man, giant], {"man": ["plus-5#1", "plus-6#1"], "giant": ["zero#1"]})
    duel.declare("man", attack("plus-5#1", "giant", location="legs"))  # normal size: -3
    duel.declare("giant")
    assert duel.play()["outcomes"][0]["parts"]["location"] == -3
    duel = ready([man, rat], {"man": ["plus-5#1", "plus-6#1"], "rat": ["zero#1"]}, start_range=1)
    with pytest.raises(EngineError, match="no called shot to the Head vitals of a small creature"):
        duel.declare("man", attack("plus-5#1", "rat", location="head-vitals"))
    duel.declare("man", attack("plus-5#1", "rat", location="torso-vitals"))
    duel.declare("rat")
    assert duel.play()["outcomes"][0]["parts"]["location"] == -10
    small = fighter("small", "heroes", skills={"sword": 1})
    big = fighter("big", "villains", size=2, main="sword")
    duel = ready([small, big], {"small": ["plus-5#1"]})
    duel.declare("small", attack("plus-5#1", "big", location="head-vitals"))
    duel.declare("big")
    assert duel.play()["outcomes"][0]["parts"]["location"] == -6


def test_an_attack_without_a_step_is_at_minus_two_and_opens_the_range() -> None:
    duel = ready([A, B], {"a": ["plus-5#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-5#1", "b", step=False))
    duel.declare("b", parry("zero#1", "a"))
    hit = duel.play()
    assert hit["outcomes"][0]["parts"]["no_step"] == -2
    assert hit["outcomes"][0]["total"] == 3
    assert hit["ranges"] == {"a|b": {"from": 1, "to": 2}}


def test_a_parry_against_nothing_leaves_the_range_alone() -> None:
    duel = ready([A, B], {"a": ["plus-5#1"], "b": ["zero#1"]})
    duel.declare("a")
    duel.declare("b", parry("zero#1", "a"))
    assert duel.play()["ranges"] == {}


def test_a_charge_closes_in_gives_one_maneuver_each_and_one_more_maximum_damage() -> None:
    a = {**A, "skills": {"sword": 3}}
    hand = ["plus-10#1", "plus-9#1", "plus-8#1"]
    duel = ready([a, B], {"a": hand, "b": ["minus-5#2"]}, start_range=5)
    charge = duel.send("charge", {"combatant": "a", "target": "b"}).result
    assert (charge["range"], charge["initiative"]) == (1, "a")
    duel.declare("a", attack("plus-10#1", "b"))
    duel.declare("b")
    hit = duel.play()
    assert (hit["outcomes"][0]["maximum"], hit["outcomes"][0]["damage"]) == (4, 4)
    with pytest.raises(EngineError, match="no more maneuvers"):
        duel.declare("a", attack("plus-9#1", "b"))
    duel.declare("b")  # the foe's one maneuver, here a pass
    assert duel.play()["round_over"] is True


def test_a_charge_against_a_longer_weapon_gives_the_foe_the_initiative() -> None:
    spear = {**B, "main": "spear"}
    duel = ready([A, spear], {"a": ["plus-1#1"], "b": ["plus-2#1"]}, start_range=6)
    charge = duel.send("charge", {"combatant": "a", "target": "b"}).result
    assert (charge["range"], charge["initiative"]) == (2, "b")


def test_a_shield_bash_hits_the_head_for_one_once_a_round_and_the_shield_cannot_parry() -> None:
    a = {**A, "off": "small-shield", "skills": {"sword": 3, "small-shield": 3}}
    hand = ["plus-9#1", "plus-8#1", "plus-7#1"]
    duel = ready([a, B], {"a": hand}, start_range=0)
    duel.declare("a", attack("plus-9#1", "b", maneuver="shield-bash", weapon="off"))
    duel.declare("b")
    with pytest.raises(EngineError, match="bashed this round and cannot parry"):
        duel.declare("a", parry("plus-8#1", "b", weapon="off"))
    with pytest.raises(EngineError, match="only one Shield bash per round"):
        duel.declare("a", attack("plus-8#1", "b", maneuver="shield-bash", weapon="off"))
    hit = duel.play(1)["outcomes"][0]
    assert (hit["maximum"], hit["multiplier"], hit["damage"]) == (1, 1, 1)
    assert "location" not in hit["parts"]


def test_a_shield_bash_is_made_only_at_range_zero() -> None:
    a = {**A, "off": "small-shield", "skills": {"sword": 1, "small-shield": 1}}
    duel = ready([a, B], {"a": ["plus-9#1"]})
    with pytest.raises(EngineError, match="made at range 0, the range is 1"):
        duel.declare("a", attack("plus-9#1", "b", maneuver="shield-bash", weapon="off"))


def test_a_surprised_target_cannot_defend() -> None:
    from karmic_duel import Duel

    duel = Duel([A, B], first=["minus-1#1"])
    hit = duel.send("surprise", {"attacker": "a", "target": "b"}).result
    assert (hit["surprised"], hit["total"], hit["damage"]) == (True, -1, 1)


def test_combat_training_lets_the_target_draw_to_avoid_surprise() -> None:
    from karmic_duel import Duel

    trained = {**B, "skills": {"combat_training": 2}}
    duel = Duel([A, trained], first=["plus-3#1", "minus-5#1", "plus-4#1"])
    check = duel.send("surprise", {"attacker": "a", "target": "b"}).result
    assert check["check"]["best"] == {"a": 3, "b": 4}
    assert check["surprised"] is False


def test_one_fighter_may_parry_two_attackers_in_one_register_with_two_cards() -> None:
    a = {**A, "skills": {"sword": 2}}
    c = fighter("c", "villains", skills={"sword": 1})
    hands = {"a": ["plus-5#1", "minus-5#1"], "b": ["plus-3#1"], "c": ["plus-4#1"]}
    duel = ready([a, B, c], hands)
    duel.declare("b", attack("plus-3#1", "a"))
    duel.declare("c", attack("plus-4#1", "a"))
    duel.declare("a", parry("plus-5#1", "b"), parry("minus-5#1", "c"))
    outcomes = {o["combatant"]: o for o in duel.play()["outcomes"] if o["maneuver"] == "attack"}
    assert (outcomes["b"]["net"], outcomes["b"]["success"]) == (-2, False)
    assert (outcomes["c"]["net"], outcomes["c"]["success"]) == (4, True)


def test_only_parries_may_share_a_register() -> None:
    a = {**A, "skills": {"sword": 2}}
    duel = ready([a, B], {"a": ["plus-5#1", "minus-5#1"]})
    with pytest.raises(EngineError, match="only parries may share a register"):
        duel.declare("a", attack("plus-5#1", "b"), parry("minus-5#1", "b"))


def test_seizing_the_initiative_from_a_second_foe_yields_it_to_the_first() -> None:
    from karmic_duel import Duel

    c = fighter("c", "villains", skills={"sword": 1})
    initiative = ["plus-10#1", "minus-5#1", "minus-5#2", "plus-10#2"]
    duel = Duel([A, B, c], first=[*initiative, "plus-9#1", "zero#1", "minus-4#1"])
    duel.send("draw_initiative", {"between": ["a", "b"]})
    duel.send("draw_initiative", {"between": ["a", "c"]})
    duel.send("draw_hands", {})
    assert duel.pair("a", "c")["initiative"] == "c"
    duel.declare("c", attack("minus-4#1", "a"))
    duel.declare("a", parry("plus-9#1", "c"))
    duel.declare("b")
    result = duel.play()
    assert result["initiative"] == [
        {"holder": "a", "over": "c"},
        {"holder": "b", "over": "a", "yielded_by": "a"},
    ]


def test_a_hit_card_draws_one_more_card_and_adds_it() -> None:
    from karmic_duel import Duel

    duel = Duel([A, B], first=["plus-3-hit#1", "plus-5#1", "plus-4#1"])
    duel.send("draw_hands", {})
    duel.declare("a", attack("plus-3-hit#1", "b"))
    duel.declare("b", parry("plus-5#1", "a"))
    duel.send("reveal", {})
    drawn = duel.send("hit_draw", {"combatant": "a", "card": "plus-3-hit#1"}).result
    assert drawn["drawn"]["value"] == 4
    with pytest.raises(EngineError, match="already been hit"):
        duel.send("hit_draw", {"combatant": "a", "card": "plus-3-hit#1"})
    with pytest.raises(EngineError, match="not a hit card"):
        duel.send("hit_draw", {"combatant": "b", "card": "plus-5#1"})
    hit = duel.send("resolve_register", {}).result["outcomes"][0]
    assert (hit["parts"]["hit"], hit["total"], hit["net"], hit["success"]) == (4, 7, 2, True)


def test_when_both_hesitate_their_fight_ends() -> None:
    duel = ready([A, B], {}, initiative=("a", "b"))
    with pytest.raises(EngineError, match="only its holder hesitates"):
        duel.send("hesitate", {"combatant": "b", "opponent": "a"})
    first = duel.send("hesitate", {"combatant": "a", "opponent": "b"}).result
    assert (first["ended"], duel.pair("a", "b")["initiative"]) == (False, "b")
    second = duel.send("hesitate", {"combatant": "b", "opponent": "a"}).result
    assert (second["ended"], second["duel_over"]) == (True, True)


def test_a_fighter_at_zero_vitality_is_out_of_the_fight_and_the_duel_ends() -> None:
    weak = {**B, "vitality": 3}
    duel = ready([A, weak], {"a": ["plus-9#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-9#1", "b"))
    duel.declare("b")
    result = duel.play()
    assert (result["outcomes"][0]["out"], result["duel_over"]) == (True, True)
    with pytest.raises(EngineError, match="the duel is over"):
        duel.send("draw_hands", {})


def test_a_register_opens_only_when_everyone_has_declared_in_the_previous_one() -> None:
    a = {**A, "skills": {"sword": 2}}
    duel = ready([a, B], {"a": ["plus-1#1", "plus-2#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-1#1", "b"))
    with pytest.raises(EngineError, match=r"register 1 is still being declared \(by b\)"):
        duel.declare("a", attack("plus-2#1", "b"))


def test_when_everyone_passes_in_a_register_the_round_is_over() -> None:
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["zero#1"]})
    duel.declare("a")
    duel.declare("b")
    with pytest.raises(EngineError, match="everyone passed in register 1"):
        duel.declare("a", attack("plus-1#1", "b"))
    assert duel.play()["round_over"] is True
    duel.send("draw_hands", {})
    assert duel.last.result["round"] == 2


def test_after_everyone_passes_the_next_round_is_drawn_without_revealing_anything() -> None:
    """The documented flow: when everybody passes in a register the round is over, so
    draw_hands starts the next one; the last pass says so."""
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["zero#1"]})
    assert duel.declare("a").result["round_over"] is False
    assert duel.declare("b").result["round_over"] is True
    duel.send("draw_hands", {})
    assert duel.last.result["round"] == 2


def test_a_register_everyone_passed_ends_the_round_once_the_earlier_one_is_resolved() -> None:
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["zero#1"]})
    duel.declare("a", attack("plus-1#1", "b"))
    duel.declare("b")
    duel.declare("a")
    assert duel.declare("b").result["round_over"] is False  # register 1 is still to resolve
    with pytest.raises(EngineError, match="register 1 of this round is not resolved yet"):
        duel.send("draw_hands", {})
    assert duel.play(1)["round_over"] is True
    duel.send("draw_hands", {})
    assert duel.last.result["round"] == 2


def test_a_register_far_ahead_cannot_be_declared() -> None:
    duel = ready([A, B], {"a": ["plus-1#1"], "b": ["zero#1"]})
    with pytest.raises(EngineError, match="register 3 is not open: the next is 1"):
        duel.declare("a", attack("plus-1#1", "b"), register=3)
