"""Encumbrance: ENC carried over multiples of STR makes STR and DEX skills grades harder."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules


def test_a_load_over_twice_str_makes_the_attack_one_grade_harder(table: Table) -> None:
    duel(table, fighter("a", enc=23), fighter("b"))  # STR 11: 23 > 22
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [50])
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("hard", 40)  # 60 × 2/3
    assert out["attack"]["level"] == "failure"
    assert out["notes"][0] == (
        "a is encumbered (ENC 23 over 2× STR 11): combat style 1 grade(s) harder; "
        "movement −2 m, no sprinting"
    )


def test_a_load_of_exactly_twice_str_is_no_burden(table: Table) -> None:
    duel(table, fighter("a", enc=22), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [95])
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("standard", 60)
    assert not any("encumbered" in n for n in out["notes"])


def test_a_load_over_three_times_str_makes_the_parry_two_grades_harder(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", enc=34))
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [95, 20])
    assert (out["defence_roll"]["grade"], out["defence_roll"]["target"]) == ("formidable", 30)
    assert "movement half, walking only" in out["notes"][0]


def test_an_encumbered_evade_is_harder_too(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", enc=23))
    body = {"attacker": "a", "defender": "b", "defence": "evade", "effects": []}
    out = table("exchange", body, [95, 20])
    assert (out["defence_roll"]["grade"], out["defence_roll"]["target"]) == ("hard", 27)


def test_a_resistance_roll_with_an_encumbered_skill_is_harder(table: Table) -> None:
    # Trip Opponent is resisted by Brawn, Evade or Acrobatics; b's best, Evade 40, is Hard
    # (27) under 23 ENC. Dice: attack, 1d8 damage, 1d20 location, the resistance roll.
    duel(table, fighter("a"), fighter("b", enc=23))
    choice = [{"id": "trip_opponent"}]
    body = {"attacker": "a", "defender": "b", "defence": "none", "effects": choice}
    out = table("exchange", body, [10, 1, 10, 20])
    trip = next(e for e in out["effects"] if e["id"] == "trip_opponent")
    assert trip["resistance"]["skill"] == "evade"
    assert trip["resistance"]["target"] == 27
    assert trip["resistance"]["encumbered_grade_steps"] == 1


def test_editing_the_encumbrance_bands_and_skills_changes_the_grades(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "combat.toml": (
                "[combat.encumbrance]\n"
                'skills = ["evade"]\n'
                "bands = [\n"
                '  { over_str_multiple = 1, grade_steps = 3, movement = "crawl" },\n'
                "]\n"
            )
        },
    )
    table = Table(rules)
    duel(table, fighter("a", enc=12), fighter("b", enc=12))
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [95])
    assert out["attack"]["grade"] == "standard"  # combat style no longer listed
    body = {"attacker": "a", "defender": "b", "defence": "evade", "effects": []}
    out = table("exchange", body, [95, 3])
    assert (out["defence_roll"]["grade"], out["defence_roll"]["target"]) == ("herculean", 4)
    assert "movement crawl" in out["notes"][0]


def test_a_burdened_victim_struggles_against_a_grip_at_a_harder_grade(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b", enc=23))
    grip = {"attacker": "a", "defender": "b", "weapon": "unarmed", "effects": [{"id": "grip"}]}
    table("exchange", grip, [30, 90, 1, 10])
    out = table("act", {"combatant": "b", "action": "struggle"}, [50, 70])
    assert out["struggle"]["victim_roll"]["target"] == 40  # Unarmed 60, Hard under 23 ENC
    assert out["struggle"]["holder_roll"]["target"] == 60  # the gripper carries nothing
    assert out["struggle"]["freed"] is False  # both fail


def test_a_check_naming_the_combatant_and_skill_is_graded_by_his_load(table: Table) -> None:
    duel(table, fighter("a", enc=34), fighter("b"))
    body = {"skill": 30, "combatant": "a", "skill_name": "athletics", "label": "jump"}
    out = table("check", body, [20])
    assert (out["grade"], out["target"], out["level"]) == ("formidable", 15, "failure")
    assert out["notes"] == [
        "a is encumbered (ENC 34 over 3× STR 11): athletics 2 grade(s) harder; "
        "movement half, walking only"
    ]
    out = table("check", {**body, "skill": 40, "skill_name": "willpower"}, [20])
    assert (out["grade"], out["target"]) == ("standard", 40)  # a load spares Willpower
    assert "notes" not in out


def test_fatigue_and_load_together_grade_a_check(table: Table) -> None:
    duel(table, fighter("a", enc=23, fatigue="wearied"), fighter("b"))
    body = {"skill": 30, "combatant": "a", "skill_name": "brawn"}
    out = table("check", body, [3])  # wearied: Formidable; one step more for the load
    assert (out["grade"], out["target"], out["level"]) == ("herculean", 3, "success")
    assert out["notes"][0] == "a: wearied"


def test_a_check_naming_a_combatant_needs_an_encounter(table: Table) -> None:
    with pytest.raises(EngineError, match="needs an encounter"):
        table("check", {"skill": 30, "combatant": "a", "skill_name": "athletics"})
