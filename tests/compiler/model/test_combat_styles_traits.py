"""Style and weapon traits say how the engine treats them; a trait whose marker and values
disagree, or that names what the data lacks, is refused with file, entry and field."""

from __future__ import annotations

from pathlib import Path

from arbiter.compiler.model.loader import load_ruleset
from tests.compiler.model.test_combat_styles_errors import edited, problems


def test_every_style_trait_is_marked_and_engine_traits_carry_rules() -> None:
    model = load_ruleset("combat-styles").model
    marks = {t.id: t.effect for t in model.style_traits}
    assert marks["assassination"] == "unlocks_effects"
    assert marks["daredevil"] == marks["batter_aside"] == "rules"
    assert marks["cautious_fighter"] == marks["shield_wall"] == "narrative"
    assert all(t.rules.sets_anything() for t in model.style_traits if t.effect == "rules")


def test_a_rules_trait_without_rules_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "style_traits.toml", "rules = { evade_ends_prone = false }\n", "")
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/style_traits.toml: entry style_traits 'daredevil': ")
    assert "effect = 'rules' needs a [style_traits.rules] value" in msg


def test_a_narrative_trait_with_rules_is_refused_because_they_would_be_ignored(
    tmp_path: Path,
) -> None:
    root = edited(
        tmp_path,
        "style_traits.toml",
        'effect = "rules"\nrules = { evade_ends_prone = false }',
        'effect = "narrative"\nrules = { evade_ends_prone = false }',
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/style_traits.toml: entry style_traits 'daredevil': ")
    assert "takes no rules (they would be ignored)" in msg


def test_a_trait_said_to_unlock_effects_that_no_effect_requires_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "style_traits.toml",
        'name = "Cautious Fighter"\neffect = "narrative"',
        'name = "Cautious Fighter"\neffect = "unlocks_effects"',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/style_traits.toml: entry style_traits 'cautious_fighter': field 'effect': "
        "no special effect requires this trait"
    )


def test_a_required_trait_marked_narrative_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "style_traits.toml",
        'name = "Assassination"\neffect = "unlocks_effects"',
        'name = "Assassination"\neffect = "narrative"',
    )
    (msg,) = problems(root)
    assert "entry style_traits 'assassination': field 'effect': " in msg
    assert "not purely narrative" in msg


def test_a_trait_easing_an_unknown_situation_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "style_traits.toml", '"close_pitch_black"', '"close_pitch_dark"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/style_traits.toml: entry style_traits 'blind_fighting' > rules > "
        "eases_situations #2: unknown situational modifier 'close_pitch_dark'"
    )


def test_parry_size_steps_without_their_condition_are_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "style_traits.toml",
        'rules = { parry_size_steps = 1, parry_size_when = "not_attacked_this_round" }',
        "rules = { parry_size_steps = 1 }",
    )
    (msg,) = problems(root)
    assert "entry style_traits 'defensive_minded'" in msg
    assert "parry_size_steps needs parry_size_when" in msg


def test_a_group_only_trait_cannot_carry_engine_rules(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "style_traits.toml",
        'name = "Shield Wall"\neffect = "narrative"',
        'name = "Shield Wall"\neffect = "rules"\nrules = { evade_ends_prone = false }',
    )
    (msg,) = problems(root)
    assert "entry style_traits 'shield_wall'" in msg
    assert "the engine does not track" in msg


def test_the_style_trait_journal_says_how_arbiter_treats_each_trait() -> None:
    model = load_ruleset("combat-styles").model
    journal = next(t for t in model.reference_tables() if t.id == "style_traits")
    assert journal.columns[-1] == "Arbiter"
    handling = {row[0]: row[-1] for row in journal.rows}
    assert handling["Daredevil"] == "applied"
    assert handling["Assassination"] == "unlocks special effects"
    assert handling["Cautious Fighter"] == "GM's call"


def test_every_weapon_trait_is_marked_and_only_set_and_barbed_are_applied() -> None:
    model = load_ruleset("combat-styles").model
    marks = {t.id: t.effect for t in model.weapon_traits}
    assert {t for t, mark in marks.items() if mark == "rules"} == {"set", "barbed"}
    assert marks["flexible"] == marks["thrown"] == "narrative"


def test_an_unknown_weapon_trait_effect_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "weapon_traits.toml", 'effect = "rules"', 'effect = "automatic"')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/weapon_traits.toml: entry weapon_traits 'set': ")
    assert "field 'effect'" in msg


def test_a_weapon_trait_applied_without_rules_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "weapon_traits.toml",
        'name = "Flexible"\neffect = "narrative"',
        'name = "Flexible"\neffect = "rules"',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/weapon_traits.toml: entry weapon_traits 'flexible': field 'effect': "
        "effect = 'rules' needs a [weapon_traits.rules] value"
    )


def test_a_narrative_weapon_trait_with_rules_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "weapon_traits.toml",
        'name = "Set"\neffect = "rules"',
        'name = "Set"\neffect = "narrative"',
    )
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/weapon_traits.toml: entry weapon_traits 'set': ")
    assert "takes no rules (they would be ignored)" in msg


def test_a_narrative_weapon_trait_the_swimming_rules_read_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", "thrusting_traits = []", 'thrusting_traits = ["thrown"]')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/weapon_traits.toml: entry weapon_traits 'thrown': field 'effect': "
        "combat.swimming.thrusting_traits names this trait"
    )


def test_the_weapon_trait_journal_says_how_arbiter_treats_each_trait() -> None:
    model = load_ruleset("combat-styles").model
    journal = next(t for t in model.reference_tables() if t.id == "weapon_traits")
    assert journal.columns[-1] == "Arbiter"
    handling = {row[0]: row[-1] for row in journal.rows}
    assert handling["Barbed"] == "applied"
    assert handling["Flexible"] == "GM's call"
