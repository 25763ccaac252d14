"""The bundled combat-styles rules load, and their numbers match the text and the reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.compiler.model.combat_styles import CombatStylesRules
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def rules() -> CombatStylesRules:
    model = load_ruleset("combat-styles").model
    assert isinstance(model, CombatStylesRules)
    return model


def test_the_bundled_ruleset_loads_with_its_metadata(rules: CombatStylesRules) -> None:
    assert rules.ruleset.id == "combat-styles"
    assert rules.ruleset.version == "1.0.0"
    assert rules.ruleset.source == "003_91e53ebead5f971e.txt"


HASH_SCRIPT = "from arbiter.compiler.model.loader import load_ruleset; "
HASH_SCRIPT += "print(load_ruleset('combat-styles').content_hash)"


def test_the_content_hash_follows_the_rule_data_not_the_process_nor_the_formatting(
    tmp_path: Path,
) -> None:
    here = load_ruleset("combat-styles").content_hash
    # Another process, another hash seed (set and dict orders): the same hash.
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", HASH_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == here
    weapons = (RULES_ROOT / "combat-styles" / "weapons.toml").read_text(encoding="utf-8")
    first = weapons.index("[[weapons]]")
    dagger = weapons[first : weapons.index("[[weapons]]", first + 1)]
    assert 'id = "dagger"' in dagger and "ap = 6" in dagger
    # A house rule restating the dagger as it is (reformatted, with a comment): the same hash.
    same = tmp_path / "same" / "combat-styles"
    same.mkdir(parents=True)
    (same / "weapons.toml").write_text("# as bundled\n" + dagger.replace(" = ", "="))
    assert load_ruleset("combat-styles", overlay=same.parent).content_hash == here
    # One number changed: another hash.
    other = tmp_path / "other" / "combat-styles"
    other.mkdir(parents=True)
    (other / "weapons.toml").write_text(dagger.replace("ap = 6", "ap = 7"))
    changed = load_ruleset("combat-styles", overlay=other.parent)
    assert next(w.ap for w in changed.model.weapons if w.id == "dagger") == 7
    assert changed.content_hash != here


@pytest.mark.parametrize(
    ("grade", "skill", "expected"),
    [
        ("very_easy", 45, 90),
        ("easy", 45, 68),  # 67.5 rounds up
        ("standard", 45, 45),
        ("hard", 45, 30),
        ("hard", 50, 34),  # 33.3 rounds up
        ("formidable", 45, 23),  # 22.5 rounds up
        ("herculean", 45, 5),  # 4.5 rounds up; Herculean is a tenth
    ],
)
def test_grade_multipliers_round_fractions_up(
    rules: CombatStylesRules, grade: str, skill: int, expected: int
) -> None:
    multiplier = rules.grade(grade).multiplier
    assert multiplier is not None
    assert multiplier.apply(skill, rules.checks.rounding) == expected


def test_automatic_and_hopeless_grades_are_not_rolled(rules: CombatStylesRules) -> None:
    assert rules.grade("automatic").outcome == "automatic"
    assert rules.grade("hopeless").outcome == "impossible"
    assert [g.id for g in rules.grade_ladder()] == [
        "automatic",
        "very_easy",
        "easy",
        "standard",
        "hard",
        "formidable",
        "herculean",
        "hopeless",
    ]


def test_grades_shift_along_the_ladder_and_stop_at_the_ends(rules: CombatStylesRules) -> None:
    assert rules.shift_grade("standard", 1).id == "hard"
    assert rules.shift_grade("hard", -2).id == "easy"
    assert rules.shift_grade("herculean", 5).id == "hopeless"
    assert rules.most_severe(["hard", "formidable", "hard"]).id == "formidable"
    assert rules.most_severe([]).id == "standard"


def test_the_check_rules_hold_the_critical_and_fumble_numbers(rules: CombatStylesRules) -> None:
    checks = rules.checks
    assert checks.critical_divisor == 10
    assert checks.fumble_rolls == (99, 100)
    assert checks.fumble_rolls_over_100 == (100,)
    assert checks.automatic_success_max == 5
    assert checks.automatic_failure_min == 96
    assert checks.grades_stack is False


def test_the_differential_table_matches_the_reference(rules: CombatStylesRules) -> None:
    effects = rules.differential.effects
    assert effects("critical", "critical") == 0
    assert effects("critical", "success") == 1
    assert effects("critical", "failure") == 2
    assert effects("critical", "fumble") == 3
    assert effects("success", "failure") == 1
    assert effects("success", "fumble") == 2
    assert effects("failure", "critical") == -2
    assert effects("failure", "fumble") == 0
    assert effects("fumble", "fumble") == 0
    assert effects("fumble", "success") == -2
    assert rules.differential.no_defence_level == "failure"


def test_an_unaware_guard_struck_by_a_surprising_attacker_gives_two_effects(
    rules: CombatStylesRules,
) -> None:
    # The text's assassin: a success against the guard's automatic failure, plus surprise.
    won = rules.differential.effects("success", rules.differential.no_defence_level)
    assert won + rules.combat.surprise.bonus_effects == 2


def test_there_are_forty_four_special_effects_with_known_takers(rules: CombatStylesRules) -> None:
    assert len(rules.special_effects) == 44
    assert rules.effect("bypass_armor").requires.own_roll == "critical"
    assert rules.effect("bypass_armor").stackable
    assert rules.effect("maximize_damage").stackable
    assert rules.effect("entangle").stackable is False
    assert rules.effect("pin_down").stackable is True
    assert rules.effect("accidental_injury").taker == "defender"
    assert rules.effect("accidental_injury").requires.opponent_roll == "fumble"
    assert rules.effect("close_range").taker == "either"
    assert rules.effect("open_range").taker == "defender"
    assert rules.effect("scar_foe").narrative
    assert rules.effect("spoil_spell").taker == "attacker"


def test_choose_location_needs_a_critical_only_at_range(rules: CombatStylesRules) -> None:
    req = rules.effect("choose_location").requires
    assert req.own_roll is None
    assert req.ranged_own_roll == "critical"
    assert req.ranged_roll_waived_when == ("ranged_close_range_stationary_or_unaware",)


def test_bash_numbers_come_from_the_text(rules: CombatStylesRules) -> None:
    params = rules.effect("bash").params
    assert {k.weapon_kind: k.damage_per_metre for k in params.knockback} == {
        "shield": 2,
        "melee": 3,
    }
    assert params.target_limit is not None
    assert (params.target_limit.attribute, params.target_limit.multiple) == ("siz", 2)


def test_parry_one_size_smaller_blocks_half_and_two_smaller_none(
    rules: CombatStylesRules,
) -> None:
    assert rules.parry_row("medium", "medium").damage_taken.apply(8) == 0
    assert rules.parry_row("medium", "large").damage_taken.apply(8) == 0
    assert rules.parry_row("large", "medium").damage_taken.apply(8) == 4
    assert rules.parry_row("large", "medium").damage_taken.apply(7) == 4
    assert rules.parry_row("huge", "medium").damage_taken.apply(8) == 8
    assert rules.parry_row("enormous", "small").damage_taken.apply(8) == 8


def test_weapons_carry_size_reach_damage_and_effects(rules: CombatStylesRules) -> None:
    dagger = rules.weapon("dagger")
    assert (dagger.damage, dagger.size, dagger.reach) == ("1d4+1", "small", "short")
    assert dagger.effects == ("bleed", "impale")
    assert rules.weapon("great_club").damage == "2d6"
    assert rules.weapon("greatsword").size == "huge"
    assert rules.weapon("pike").reach == "very_long"
    thrown = rules.ranged_weapon(dagger.thrown_as or "")
    assert (thrown.damage, thrown.range.long, thrown.impale_size) == ("1d4", 20, "small")
    unarmed = rules.weapon(rules.combat.unarmed_weapon)
    assert (unarmed.damage, unarmed.size, unarmed.reach) == ("1d3", "small", "touch")


def test_shields_and_ranged_weapons_are_listed(rules: CombatStylesRules) -> None:
    assert rules.shield("scutum").passive_block == 5
    assert rules.shield("buckler").size == "medium"
    bow = rules.ranged_weapon("long_bow")
    assert (bow.force, bow.range.close, bow.range.effective, bow.range.long) == (
        "huge",
        15,
        125,
        250,
    )
    assert bow.range.band(200) == "long"
    assert bow.range.band(251) is None
    assert rules.any_weapon("heater").id == "heater"


def test_full_laminated_armour_costs_three_initiative(rules: CombatStylesRules) -> None:
    laminated = rules.armor_type("laminated")
    assert (laminated.ap, laminated.enc) == (3, 2)
    assert rules.initiative.armor_penalty([laminated.enc] * 7) == 3


def test_the_hit_location_table_covers_the_d20(rules: CombatStylesRules) -> None:
    table = rules.location_table("humanoid")
    assert table.die == "1d20"
    rolls = {roll: table.location_for(roll) for roll in range(1, 21)}
    assert rolls[1] == rolls[3] == "right_leg"
    assert rolls[9] == "abdomen"
    assert rolls[12] == "chest"
    assert rolls[18] == "left_arm"
    assert rolls[19] == rolls[20] == "head"


def test_location_hit_points_follow_the_formula(rules: CombatStylesRules) -> None:
    # CON+SIZ 26 → base ceil(26/5) = 6
    hp = rules.location_hit_points({"con": 13, "siz": 13})
    assert hp == {
        "right_leg": 6,
        "left_leg": 6,
        "abdomen": 7,
        "chest": 8,
        "right_arm": 5,
        "left_arm": 5,
        "head": 6,
    }
    # CON+SIZ 6 → base 2: arms max(1, 2-1) = 1
    assert rules.location_hit_points({"con": 3, "siz": 3})["left_arm"] == 1


def test_wound_levels_follow_remaining_hit_points(rules: CombatStylesRules) -> None:
    assert rules.wound_level(3, 5).id == "minor"
    assert rules.wound_level(0, 5).id == "serious"
    assert rules.wound_level(-4, 5).id == "serious"
    assert rules.wound_level(-5, 5).id == "major"
    major = rules.wound_levels[2]
    assert major.vital.dies_unless_treated is not None
    assert major.vital.dies_unless_treated.multiple == 2
    assert major.vital.dies_unless_treated.unit == "rounds"


@pytest.mark.parametrize(
    ("total", "dice"),
    [(5, "-1d8"), (20, "-1d2"), (21, "+0"), (25, "+0"), (26, "+1d2"), (50, "+1d10"), (51, "+1d12")],
)
def test_the_damage_modifier_follows_str_plus_siz(
    rules: CombatStylesRules, total: int, dice: str
) -> None:
    assert rules.damage_modifier(total) == dice


def test_a_charge_moves_the_damage_modifier_along_the_ladder(rules: CombatStylesRules) -> None:
    biped = rules.charging.damage_modifier_steps_biped
    quadruped = rules.charging.damage_modifier_steps_quadruped
    assert rules.damage_modifier(30, biped) == "+1d4"
    assert rules.damage_modifier(30, quadruped) == "+1d6"
