"""The karmic engine reads from the rule data what it once decided in code: the off-hand extra
maneuver, bare hands, the surprise maneuver, the defense the odds assume and how long effects
last. Each test loads the bundled rules with a GM's house-rule overlay (``--rules DIR``) and
shows the outcome change against the bundled data."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from karmic_duel import RULES, Duel, attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.karmic import KarmicRules
from arbiter.compiler.model.loader import load_ruleset

AXE_AND_POINARD = fighter(
    "devon", "heroes", main="medium-axe", off="poinard", skills={"medium-axe": 4, "poinard": 6}
)
SOLDIER = fighter("soldier", "guards", skills={"sword": 2})
FISTS = """
[[weapons]]
id = "fists"
name = "Fists"
range = 0
max_maneuvers = 4
max_damage = 1
kind = "unarmed"
can_parry = false
"""


def house(tmp_path: Path, files: dict[str, str]) -> KarmicRules:
    """The bundled karmic rules under a house-rule folder holding ``files``."""
    folder = tmp_path / "house" / "karmic"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    model = load_ruleset("karmic", overlay=tmp_path / "house").model
    assert isinstance(model, KarmicRules)
    return model


def limit(duel: Duel, cid: str) -> int:
    view = duel.send("view", {"viewer": cid}).result
    return int(view["combatants"][cid]["maneuver_limit"])


# -- 1. the off-hand extra maneuver; a fighter without a weapon -------------------------------


def test_the_off_hand_extra_maneuver_comes_from_the_hands_data(tmp_path: Path) -> None:
    cards = ["plus-1#1", "plus-2#1", "plus-3#1", "plus-4#1"]
    bundled = ready([AXE_AND_POINARD, SOLDIER], {"devon": cards})
    assert limit(bundled, "devon") == 4  # the text: the poinard's 3, plus one

    rules = house(tmp_path, {"hands.toml": "[hands]\noff_hand_extra_maneuvers = 0\n"})
    duel = ready([AXE_AND_POINARD, SOLDIER], {"devon": cards}, rules=rules)
    assert limit(duel, "devon") == 3
    parry = {"maneuver": "parry", "target": "soldier", "weapon": "off"}
    for n in range(3):
        duel.declare("devon", {**parry, "card": cards[n]})
        duel.declare("soldier")
    with pytest.raises(EngineError, match="devon can take no more maneuvers this round"):
        duel.declare("devon", {**parry, "card": cards[3]})


def test_a_fighter_who_names_no_weapon_fights_with_the_datas_bare_hands(tmp_path: Path) -> None:
    brawler = {"id": "brawler", "name": "Brawler", "side": "heroes", "vitality": 10}
    bundled = ready([brawler, SOLDIER], {})
    assert bundled.state is not None
    assert bundled.state["combatants"]["brawler"]["main"] == "unarmed"
    assert limit(bundled, "brawler") == 2  # the bundled bare hands' maximum

    rules = house(
        tmp_path, {"weapons.toml": FISTS, "hands.toml": '[hands]\nbare_hands = "fists"\n'}
    )
    duel = ready([brawler, SOLDIER], {}, rules=rules)
    assert duel.state is not None
    assert duel.state["combatants"]["brawler"]["main"] == "fists"
    assert limit(duel, "brawler") == 4


# -- 2. the surprise maneuver and the defense the odds assume ---------------------------------

A = fighter("a", "heroes", skills={"sword": 1})
B = fighter("b", "villains", skills={"sword": 1})


def test_a_surprise_attack_is_the_maneuver_the_surprise_data_names(tmp_path: Path) -> None:
    bundled = Duel([A, B], first=["plus-9#1"])
    hit = bundled.send("surprise", {"attacker": "a", "target": "b"}).result
    assert (hit["total"], hit["damage"], "disarmed" in hit) == (9, 3, False)

    rules = house(tmp_path, {"situations.toml": '[surprise]\nmaneuver = "disarm"\n'})
    duel = Duel([A, B], first=["plus-9#1"], rules=rules)
    disarm = duel.send("surprise", {"attacker": "a", "target": "b"}).result
    assert disarm["parts"] == {"card": 9, "modifiers": 0, "difficulty": -5}
    assert (disarm["total"], "damage" in disarm) == (4, False)
    assert disarm["disarmed"] == {"weapon": "sword", "hand": "main"}
    with pytest.raises(EngineError, match="a surprise Disarming attack cannot be a called shot"):
        Duel([A, B], first=["plus-9#1"], rules=rules).send(
            "surprise", {"attacker": "a", "target": "b", "location": "head"}
        )


GIANT = fighter("giant", "monsters", size=3, finesse=2, main="club", skills={"club": 2})


def _flank_odds(rules: KarmicRules) -> tuple[dict, dict]:
    """a's odds on his flank before and after the giant seals a dodge against it."""
    hands = {"a": ["plus-5#1"], "giant": ["minus-3#1", "plus-2#1"]}
    duel = ready([A, GIANT], hands, initiative=("a", "giant"), rules=rules)
    duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    ask = {"viewer": "a", "attacker": "a", "target": "giant"}
    before = duel.send("odds", ask).private["a"]
    duel.declare("giant", {"maneuver": "dodge", "card": "minus-3#1", "target": "a"})
    after = duel.send("odds", ask).private["a"]
    return before, after


def test_the_odds_assume_the_defense_the_odds_data_names(tmp_path: Path) -> None:
    before, after = _flank_odds(RULES)
    # A parry does not oppose a flank: the bundled odds count the flank as unopposed.
    assert (before["assumed_parry"], before["probability"]) == (False, "1/1")
    assert after["opposed"] is True and Fraction(after["probability"]) < 1

    rules = house(tmp_path, {"odds.toml": '[odds]\nassumed_defense = "dodge"\n'})
    before, after = _flank_odds(rules)
    assert before["assumed_parry"] is True
    # Counting an assumed dodge with an unseen card is the same count as a real sealed dodge.
    assert before["probability"] == after["probability"]
    assert Fraction(before["probability"]) < 1


# -- 3. bare hands after a disarm; 4. how long effects last -----------------------------------

DEVON = fighter("devon", "heroes", force=1, skills={"sword": 3, "combat_training": 1})
THE_SOLDIER = fighter("soldier", "guards", force=1, armor="leather", skills={"sword": 2})
TEXT_CARDS = [
    *["plus-2#1", "minus-4#1", "plus-3-hit#1", "minus-2#1", "plus-10#1"],
    *["minus-2-hit#1", "plus-5#1"],
]


def _the_worked_round(rules: KarmicRules) -> Duel:
    """The text's round (the soldier is disarmed in register 3), then the next hands."""
    duel = Duel([DEVON, THE_SOLDIER], first=TEXT_CARDS, rules=rules)
    duel.send("draw_initiative", {"between": ["devon", "soldier"]})
    duel.send("draw_hands", {})
    for devon, soldier in (
        (("attack", "plus-3-hit#1"), ("parry", "plus-5#1")),
        (("feint", "minus-2#1"), ("parry", "minus-2-hit#1")),
    ):
        duel.declare("devon", {"maneuver": devon[0], "card": devon[1], "target": "soldier"})
        duel.declare("soldier", {"maneuver": soldier[0], "card": soldier[1], "target": "devon"})
    duel.declare("devon", {"maneuver": "disarm", "card": "plus-10#1", "target": "soldier"})
    for _ in range(3):
        duel.play()
    duel.send("draw_hands", {})
    return duel


def test_a_disarmed_hand_holds_the_bare_hands_the_data_names(tmp_path: Path) -> None:
    assert _the_worked_round(RULES).state["combatants"]["soldier"]["main"] == "unarmed"  # type: ignore[index]
    rules = house(
        tmp_path, {"weapons.toml": FISTS, "hands.toml": '[hands]\nbare_hands = "fists"\n'}
    )
    duel = _the_worked_round(rules)
    assert duel.state is not None
    assert duel.state["combatants"]["soldier"]["main"] == "fists"
    assert limit(duel, "soldier") == 4


def test_the_disarm_is_remembered_as_long_as_the_lasting_effects_data_says(
    tmp_path: Path,
) -> None:
    bundled = _the_worked_round(RULES)
    assert bundled.state is not None
    assert bundled.state["round"]["number"] == 2
    assert bundled.state["combatants"]["soldier"]["effects"] == [
        {"effect": "disarmed", "by": "devon", "weapon": "sword", "until_round": 2}
    ]
    text = '[[lasting_effects]]\nid = "disarmed"\nname = "Disarmed"\nrounds = 0\n'
    duel = _the_worked_round(house(tmp_path, {"lasting_effects.toml": text}))
    assert duel.state is not None
    assert duel.state["combatants"]["soldier"]["effects"] == []


def _flanked_next_round(rules: KarmicRules) -> Duel:
    """a flanks the giant in round 1; round 2 begins and a passes in its first register."""
    hands = {"a": ["plus-5#1"], "giant": ["plus-1#1", "plus-2#1"]}
    duel = ready([A, GIANT], hands, initiative=("a", "giant"), rules=rules)
    duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    duel.declare("giant", {"maneuver": "parry", "card": "plus-1#1", "target": "a"})
    assert duel.play()["outcomes"][0]["success"] is True
    duel.declare("giant")
    assert duel.play()["round_over"] is True
    duel.send("draw_hands", {})
    duel.declare("a")
    return duel


def test_a_flank_lasts_as_many_rounds_as_the_lasting_effects_data_says(tmp_path: Path) -> None:
    bundled = _flanked_next_round(RULES)
    card = bundled.hand("giant")[0]
    with pytest.raises(EngineError, match="a has flanked giant: giant cannot attack him"):
        bundled.declare("giant", attack(card, "a"))

    text = '[[lasting_effects]]\nid = "flanked"\nname = "Flanked"\nrounds = 0\n'
    duel = _flanked_next_round(house(tmp_path, {"lasting_effects.toml": text}))
    duel.declare("giant", attack(duel.hand("giant")[0], "a"))
    assert duel.last.result["maneuvers"] == 1


def _clung_next_round(rules: KarmicRules) -> Duel:
    """a clings to the giant in round 1; the round ends and round 2's hands are drawn."""
    hands = {"a": ["plus-9#1"], "giant": ["minus-5#2", "minus-4#1"]}
    duel = ready([A, GIANT], hands, initiative=("a", "giant"), rules=rules)
    duel.declare("a", attack("plus-9#1", "giant", maneuver="cling"))
    duel.declare("giant")
    assert duel.play()["outcomes"][0]["success"] is True
    duel.declare("giant")
    assert duel.play()["round_over"] is True
    duel.send("draw_hands", {})
    return duel


def test_a_cling_lasts_until_a_buck_unless_the_data_gives_it_rounds(tmp_path: Path) -> None:
    bundled = _clung_next_round(RULES)
    assert bundled.state is not None
    clung = {"effect": "clung", "by": "a", "after_flank": False}
    assert bundled.state["combatants"]["giant"]["effects"] == [clung]

    text = '[[lasting_effects]]\nid = "clung"\nname = "Clung to"\nrounds = 0\n'
    duel = _clung_next_round(house(tmp_path, {"lasting_effects.toml": text}))
    assert duel.state is not None
    assert duel.state["combatants"]["giant"]["effects"] == []


# -- which weapons may bash -------------------------------------------------------------------

HOUSE_SHIELD_BASH = """
[[maneuvers]]
id = "shield-bash"
name = "Shield bash"
kind = "offense"
step = "forward"
defended_by = ["parry", "dodge"]
deals_damage = true
weapon_kind = "shield"
at_range = 0
once_per_round = true
forced_location = "head"
no_location_benefit = true
shield_cannot_parry = true
needs_bash = false
"""


def test_only_a_weapon_that_can_bash_bashes_while_the_maneuver_needs_bash(
    tmp_path: Path,
) -> None:
    a = {**A, "off": "large-shield", "skills": {"sword": 1, "large-shield": 1}}
    bash = attack("plus-9#1", "b", maneuver="shield-bash", weapon="off")
    bundled = ready([a, B], {"a": ["plus-9#1"]}, start_range=0)
    with pytest.raises(EngineError, match="a Large shield cannot bash"):
        bundled.declare("a", bash)

    rules = house(tmp_path, {"maneuvers.toml": HOUSE_SHIELD_BASH})
    duel = ready([a, B], {"a": ["plus-9#1"]}, start_range=0, rules=rules)
    duel.declare("a", bash)
    duel.declare("b")
    hit = duel.play()["outcomes"][0]
    assert (hit["success"], hit["damage"]) == (True, 1)
