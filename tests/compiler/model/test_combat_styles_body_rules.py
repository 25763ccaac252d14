"""Rule data for spirit combat, encumbrance, fatigue checks and hands: validated, and shown to
the GM in the Other Combat Numbers journal."""

from __future__ import annotations

from pathlib import Path

from arbiter.compiler.model.loader import load_ruleset
from tests.compiler.model.test_combat_styles_errors import edited, problems

RULES = load_ruleset("combat-styles").model


def test_a_hand_on_an_unknown_location_is_refused_with_the_file_named(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", 'location = "left_arm"', 'location = "left_wing"')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/combat.toml: ")
    assert "unknown hit location 'left_wing'" in msg


def test_an_unknown_spirit_resistance_skill_is_refused(tmp_path: Path) -> None:
    root = edited(
        tmp_path,
        "combat.toml",
        'resist_with = ["spirit_combat", "willpower"]',
        'resist_with = ["spirit_combat", "faith"]',
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat > spirit_combat > resist_with #2"
    )
    assert "'spirit_combat', 'acrobatics'" in msg and '(got "faith")' in msg


def test_a_three_handed_missile_weapon_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "ranged_weapons.toml", "hands = 1", "hands = 3")
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/ranged_weapons.toml: entry ranged_weapons 'sling'")


def test_magic_points_equal_pow_in_the_bundled_data() -> None:
    assert RULES.derived.magic_points is not None
    assert RULES.derived.magic_points.value({"pow": 13}) == 13


def test_the_gm_sees_the_body_rules_among_the_other_combat_numbers() -> None:
    table = next(t for t in RULES.reference_tables() if t.id == "combat_numbers")
    rows = dict(table.rows)
    assert rows["Encumbrance"].startswith("ENC over 2× STR: +1 grade(s), movement −2 m")
    assert "4 Rounds at CON 11–15" in rows["Fatigue check in combat"]
    assert "spirit combat or willpower" in rows["Spirit combat"]
    assert rows["Hands"].startswith("right, left; shields take 1")
    assert any(note.startswith("spirit combat: assumed") for note in table.notes)
