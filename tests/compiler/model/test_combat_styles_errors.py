"""Bad combat-styles rule files are refused with the file, entry and field named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arbiter.bridge.cli import main
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset

RULESET = "combat-styles"


def edited(tmp_path: Path, file: str, old: str, new: str) -> Path:
    """A copy of the bundled rules with one exact edit in ``file`` (the text must occur)."""
    root = tmp_path / "rules"
    shutil.copytree(RULES_ROOT / RULESET, root / RULESET)
    path = root / RULESET / file
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {file}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def problems(root: Path, overlay: Path | None = None) -> list[str]:
    with pytest.raises(RuleError) as info:
        load_ruleset(RULESET, root=root, overlay=overlay)
    return [str(p) for p in info.value.problems]


def test_a_string_where_a_number_belongs_names_the_weapon_and_field(tmp_path: Path) -> None:
    root = edited(tmp_path, "weapons.toml", "ap = 6\nhp = 8\nenc = 0", 'ap = "6"\nhp = 8\nenc = 0')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/weapons.toml: entry weapons 'dagger': field 'ap': ")
    assert "integer" in msg


def test_an_unknown_size_names_the_weapon(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "weapons.toml",
        'damage = "1d4+1"\nsize = "small"',
        'damage = "1d4+1"\nsize = "tiny"',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/weapons.toml: entry weapons 'dagger': field 'size': unknown size 'tiny'"
    )
    assert "known: enormous, huge, large, medium, small" in msg


def test_an_unknown_special_effect_on_a_weapon_is_reported(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "weapons.toml", 'effects = ["bleed", "impale"]', 'effects = ["bleed", "impael"]'
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/weapons.toml: entry weapons 'dagger' > effects #2: ")
    assert "unknown special effect 'impael'" in msg


def test_a_malformed_damage_expression_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "weapons.toml", 'damage = "1d4+1"', 'damage = "1d4 plus 1"')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/weapons.toml: entry weapons 'dagger': field 'damage': ")


def test_an_overlap_in_the_hit_location_table_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "hit_location_tables.toml", "range = [4, 6]", "range = [3, 6]")
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/hit_location_tables.toml: entry hit_location_tables 'humanoid' > rows #2: "
        "field 'range': overlap: 3–3 is already covered by an earlier row"
    )


def test_a_gap_in_the_hit_location_table_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "hit_location_tables.toml", "range = [19, 20]", "range = [20, 20]")
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/hit_location_tables.toml: entry hit_location_tables 'humanoid' > rows #7: "
        "field 'range': gap: no row covers 19–19 on 1d20"
    )


def test_an_unknown_location_in_the_hit_location_table_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "hit_location_tables.toml", 'location = "head"', 'location = "tail"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/hit_location_tables.toml: entry hit_location_tables 'humanoid' > rows #7: "
        "field 'location': unknown hit location 'tail'"
    )


def test_a_duplicate_special_effect_id_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "special_effects.toml", 'id = "arise"', 'id = "accidental_injury"')
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/special_effects.toml: entry special_effects #2: field 'id': "
        "duplicate id 'accidental_injury'"
    )


def test_a_shield_may_not_share_an_id_with_a_weapon(tmp_path: Path) -> None:
    root = edited(tmp_path, "shields.toml", 'id = "buckler"', 'id = "dagger"')
    found = problems(root)
    # The sample styles that named the buckler now point at nothing, too.
    assert found[0].startswith("combat-styles/shields.toml: entry shields 'dagger': field 'id': ")
    assert "also used in weapons" in found[0]
    assert all("unknown weapon 'buckler'" in msg for msg in found[1:])


def test_a_gap_in_the_damage_modifier_bands_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "damage_modifiers.toml", "min = 21, max = 25", "min = 22, max = 25")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/damage_modifiers.toml: entry damage_modifiers 'dm_zero': field 'band': gap: "
        "nothing covers 21–21"
    )


def test_an_overlap_in_the_impale_table_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "impale_effects.toml", "min = 21, max = 30", "min = 20, max = 30")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/impale_effects.toml: entry impale_effects 'siz_21_30': field 'siz': overlap"
    )


def test_an_impale_row_must_give_every_weapon_size(tmp_path: Path) -> None:
    root = edited(tmp_path, "impale_effects.toml", ', enormous = "incapacitated" }', " }")
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/impale_effects.toml: entry impale_effects 'siz_1_10': field 'by_weapon_size': "
        "no result for weapon size 'enormous'"
    )


def test_a_missing_differential_cell_is_reported(tmp_path: Path) -> None:
    line = '  { protagonist = "failure", antagonist = "fumble", effects = 0 },\n'
    root = edited(tmp_path, "differential.toml", line, "")
    (msg,) = problems(root)
    assert msg == (
        "combat-styles/differential.toml: entry differential: field 'cells': "
        "no cell for protagonist 'failure' against antagonist 'fumble'"
    )


def test_an_unknown_grade_in_a_situational_modifier_is_reported(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "situational_modifiers.toml", 'grade = "herculean"', 'grade = "impossible"'
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/situational_modifiers.toml: entry situational_modifiers 'close_pitch_black': "
        "field 'grade': unknown grade 'impossible'"
    )


def test_a_fumble_that_could_succeed_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "checks.toml", "fumble_rolls = [99, 100]", "fumble_rolls = [90, 100]")
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/checks.toml: entry checks: ")
    assert "fumble roll 90 is below automatic_failure_min 96" in msg


def test_a_rolled_grade_without_a_multiplier_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "grades.toml", "multiplier = { numerator = 2, denominator = 3 }\n", "")
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/grades.toml: entry grades 'hard': ")
    assert "needs a multiplier" in msg


def test_a_distance_row_with_the_wrong_number_of_steps_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "distance_penalties.toml", "steps = [1, 0, -1, -1, -2, -2]", "steps = [1, 0, -1]"
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/distance_penalties.toml: entry distance_penalties: ")
    assert "has 3 steps; expected one per SIZ column (6)" in msg


def test_distance_rows_out_of_order_are_reported(tmp_path: Path) -> None:
    first = "  { metres = { min = 0, max = 20 }, steps = [1, 0, -1, -1, -2, -2] },\n"
    tail = "]\n\n[distance_penalties.beyond]"
    root = edited(tmp_path, "distance_penalties.toml", first, "")
    path = root / RULESET / "distance_penalties.toml"
    path.write_text(path.read_text().replace(tail, first + tail), encoding="utf-8")
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/distance_penalties.toml: entry distance_penalties > rows #7: "
        "field 'metres': overlap"
    )


def test_a_gap_in_the_parry_reduction_rows_is_reported(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "parry_reduction.toml", "steps_smaller_min = 2", "steps_smaller_min = 3"
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/parry_reduction.toml: entry parry_reduction 'two_or_more_smaller': "
        "field 'steps_smaller_min': gap after 1 steps smaller"
    )


def test_an_unknown_style_trait_required_by_an_effect_is_reported(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "special_effects.toml", 'style_trait = "assassination"', 'style_trait = "ninja"'
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/special_effects.toml: entry special_effects 'kill_silently': "
        "field 'requires.style_trait': unknown style trait 'ninja'"
    )


def test_an_unknown_weapon_in_a_combat_style_is_reported(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat_styles.toml", 'covers = ["javelin"]', 'covers = ["pilum"]')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/combat_styles.toml: entry combat_styles 'infantry' > ")
    assert "unknown weapon 'pilum'" in msg


def test_an_assumed_value_needs_its_note(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "grades.toml",
        'note = "RULES-NOTES: Herculean is ×1/10 (Mythras core); the Imperative SRD uses ×1/5."\n',
        "",
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/grades.toml: entry grades 'herculean': ")
    assert "needs a one-line note" in msg


def test_a_missing_rule_file_is_named(tmp_path: Path) -> None:
    root = edited(tmp_path, "knockback.toml", "[knockback]", "[knockback]")
    (root / RULESET / "knockback.toml").unlink()
    assert problems(root) == [
        "combat-styles/knockback.toml: missing: no file defines 'knockback' (expected in knockback.toml)"
    ]


def test_house_rules_replace_a_weapon_and_add_a_new_one(tmp_path: Path) -> None:
    house = tmp_path / "house" / RULESET
    house.mkdir(parents=True)
    (house / "weapons.toml").write_text(
        '[[weapons]]\nid = "dagger"\nname = "Dagger"\nhands = 1\ndamage = "1d6"\n'
        'size = "small"\nreach = "short"\neffects = ["bleed", "impale"]\n\n'
        '[[weapons]]\nid = "katar"\nname = "Katar"\nhands = 1\ndamage = "1d4+2"\n'
        'size = "small"\nreach = "touch"\neffects = ["impale"]\n',
        encoding="utf-8",
    )
    rules = load_ruleset(RULESET, overlay=tmp_path / "house").model
    assert rules.weapon("dagger").damage == "1d6"
    assert rules.weapon("katar").reach == "touch"
    assert rules.weapon("greatsword").damage == "2d8"


def test_an_error_in_a_house_rule_names_the_house_rule_file(tmp_path: Path) -> None:
    house = tmp_path / "house" / RULESET
    house.mkdir(parents=True)
    (house / "weapons.toml").write_text(
        '[[weapons]]\nid = "katar"\nname = "Katar"\nhands = 1\ndamage = "1d4+2"\n'
        'size = "small"\nreach = "elbow"\n',
        encoding="utf-8",
    )
    (msg,) = problems(RULES_ROOT, tmp_path / "house")
    assert msg.startswith(
        "house/combat-styles/weapons.toml: entry weapons 'katar': field 'reach': unknown reach 'elbow'"
    )


def test_a_house_rule_size_must_be_given_on_every_impale_row(tmp_path: Path) -> None:
    house = tmp_path / "house" / RULESET
    house.mkdir(parents=True)
    (house / "sizes.toml").write_text(
        '[[sizes]]\nid = "colossal"\nname = "Colossal"\nabbreviation = "C"\nrank = 6\n'
        'assumed = true\nnote = "Our giants need it."\n',
        encoding="utf-8",
    )
    found = problems(RULES_ROOT, tmp_path / "house")
    assert len(found) == 7
    assert found[0] == (
        "combat-styles/impale_effects.toml: entry impale_effects 'siz_1_10': "
        "field 'by_weapon_size': no result for weapon size 'colossal'"
    )


def test_a_house_rule_grade_joins_the_ladder_by_its_step(tmp_path: Path) -> None:
    house = tmp_path / "house" / RULESET
    house.mkdir(parents=True)
    grades = (RULES_ROOT / RULESET / "grades.toml").read_text(encoding="utf-8")
    grades = grades.replace("step = 7", "step = 8").replace(
        '[[grades]]\nid = "hopeless"',
        '[[grades]]\nid = "heroic"\nname = "Heroic"\nstep = 7\n'
        "multiplier = { numerator = 1, denominator = 20 }\n"
        'assumed = true\nnote = "A house grade between Herculean and Hopeless."\n\n'
        '[[grades]]\nid = "hopeless"',
    )
    (house / "grades.toml").write_text(grades, encoding="utf-8")
    rules = load_ruleset(RULESET, overlay=tmp_path / "house").model
    assert rules.shift_grade("herculean", 1).id == "heroic"
    assert rules.shift_grade("heroic", 1).id == "hopeless"


def test_a_leaping_attack_skill_must_be_a_known_skill(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "combat.toml",
        'quadruped_defender_skill = "athletics"',
        'quadruped_defender_skill = "jumping"',
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/combat.toml: ")
    assert "quadruped_defender_skill" in msg


def test_a_regain_footing_skill_must_be_a_known_skill(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "combat.toml",
        'opponent_skills = ["brawn", "athletics"]',
        'opponent_skills = ["brawn", "heft"]',
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/combat.toml: ")
    assert "regain_footing" in msg
    assert "opponent_skills" in msg


def test_a_stat_block_bound_that_is_not_a_number_names_the_file_entry_and_field(
    tmp_path: Path,
) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "skills = { min = 0, max = 500 }",
        'skills = { min = 0, max = "500" }',
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'skills.max': "
    )
    assert "integer" in msg


def test_a_stat_block_bound_whose_min_is_over_its_max_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "hit_points = { min = 1, max = 1000 }",
        "hit_points = { min = 1001, max = 1000 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'hit_points': "
    )
    assert "min 1001 is over max 1000: no value would do" in msg


def test_a_stat_block_bound_under_what_the_engine_can_use_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "hit_points = { min = 1, max = 1000 }",
        "hit_points = { min = 0, max = 1000 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'hit_points': "
    )
    assert "min 0 is under 1, the least the engine can use" in msg


def test_a_stat_block_bound_for_a_field_the_door_does_not_bound_is_refused(
    tmp_path: Path,
) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "[stat_block_limits]\n",
        "[stat_block_limits]\nluck = { min = 0, max = 9 }\n",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'luck': "
    )


def test_a_house_rule_file_with_a_bad_bound_builds_no_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    house = tmp_path / "house"
    (house / RULESET).mkdir(parents=True)
    (house / RULESET / "stat_block_limits.toml").write_text(
        "[stat_block_limits]\nskills = { min = 0, max = -5 }\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    assert main(["build", "--out", str(out), "--rules", str(house)]) == 1
    err = capsys.readouterr().err
    assert (
        "house/combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'skills': "
    ) in err
    assert "min 0 is over max -5: no value would do" in err
    assert not (out / "arbiter").exists()


def test_a_characteristic_bound_under_what_the_engine_can_use_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "siz = { min = 1, max = 500 }",
        "siz = { min = 0, max = 500 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'siz': "
    )
    assert "min 0 is under 1, the least the engine can use" in msg


def test_a_points_bound_that_is_not_a_number_names_the_file_entry_and_field(
    tmp_path: Path,
) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "luck_points = { min = 0, max = 20 }",
        'luck_points = { min = 0, max = "many" }',
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'luck_points.max': "
    )
    assert "integer" in msg


def test_a_healing_rate_bound_under_what_the_engine_can_use_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "healing_rate = { min = 0, max = 1000000 }",
        "healing_rate = { min = -1, max = 1000000 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'healing_rate': "
    )
    assert "min -1 is under 0, the least the engine can use" in msg


def test_a_bound_left_out_of_the_table_is_named(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "enc = { min = 0, max = 10000 }\n", ""
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'enc': "
    )


def test_a_stat_block_bound_without_a_max_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "hit_points = { min = 1, max = 1000 }",
        "hit_points = { min = 1 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'hit_points': "
    )
    assert "no max: every bound needs one, at most 1000000000 (e.g. { min = 1, max = 100 })" in msg


def test_a_stat_block_bound_over_the_engines_ceiling_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "stat_block_limits.toml", "hit_points = { min = 1, max = 1000 }",
        "hit_points = { min = 1, max = 1000000001 }",
    )  # fmt: skip
    (msg,) = problems(root)
    assert "max 1000000001 is over 1000000000, the most the engine's arithmetic is meant for" in msg


def test_a_house_rule_bound_without_a_max_builds_no_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    house = tmp_path / "house"
    (house / RULESET).mkdir(parents=True)
    (house / RULESET / "stat_block_limits.toml").write_text(
        "[stat_block_limits]\nskills = { min = 0 }\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    assert main(["build", "--out", str(out), "--rules", str(house)]) == 1
    err = capsys.readouterr().err
    assert (
        "house/combat-styles/stat_block_limits.toml: entry stat_block_limits: field 'skills': "
    ) in err
    assert "no max: every bound needs one" in err
    assert not (out / "arbiter").exists()
