"""Flags that state how the engine behaves accept only the behaviour the engine implements: a
GM who changes one is told, with the file, entry and field, instead of being silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compiler.model.test_combat_styles_errors import edited, problems


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("die_faces = 100", "die_faces = 20", "die_faces"),
        ('rounding = "up"', 'rounding = "down"', "rounding"),
        ("grades_stack = false", "grades_stack = true", "grades_stack"),
        ("critical_minimum = 1", "critical_minimum = 2", "critical_minimum"),
        (
            "over_100_needs_declared_defence = true",
            "over_100_needs_declared_defence = false",
            "over_100_needs_declared_defence",
        ),
        (
            "over_100_endurance_retroactive = true",
            "over_100_endurance_retroactive = false",
            "over_100_endurance_retroactive",
        ),
        (
            "augment_changes_critical = false",
            "augment_changes_critical = true",
            "augment_changes_critical",
        ),
    ],
)
def test_a_check_flag_the_engine_does_not_implement_is_refused_by_name(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    (msg,) = problems(edited(tmp_path, "checks.toml", old, new))
    assert msg.startswith(f"combat-styles/checks.toml: entry checks: field '{field}': ")
    assert "the engine implements only" in msg
    assert "would be ignored" in msg


@pytest.mark.parametrize(
    ("file", "old", "new", "field"),
    [
        (
            "combat.toml",
            "can_defend_before_own_turn = false",
            "can_defend_before_own_turn = true",
            "surprise.can_defend_before_own_turn",
        ),
        (
            "combat.toml",
            "offensive_actions_this_round = false",
            "offensive_actions_this_round = true",
            "surprise.offensive_actions_this_round",
        ),
        (
            "combat.toml",
            "natural_weapons_exempt = true",
            "natural_weapons_exempt = false",
            "reach.natural_weapons_exempt",
        ),
        (
            "charging.toml",
            "set_weapon_uses_chargers_dm = true",
            "set_weapon_uses_chargers_dm = false",
            "set_weapon_uses_chargers_dm",
        ),
        (
            "charging.toml",
            "counterattack_counts_as_failed_parry = true",
            "counterattack_counts_as_failed_parry = false",
            "counterattack_counts_as_failed_parry",
        ),
        ("action_points.toml", "carry_over = false", "carry_over = true", "carry_over"),
        (
            "combat.toml",
            "proactive_per_cycle = 1",
            "proactive_per_cycle = 2",
            "proactive_per_cycle",
        ),
        (
            "combat.toml",
            "reactions_per_threat = 1",
            "reactions_per_threat = 2",
            "reactions_per_threat",
        ),
    ],
)
def test_a_combat_flag_the_engine_does_not_implement_is_refused_by_name(
    tmp_path: Path, file: str, old: str, new: str, field: str
) -> None:
    (msg,) = problems(edited(tmp_path, file, old, new))
    assert msg.startswith(f"combat-styles/{file}: ")
    assert f"field '{field}': " in msg
    assert "the engine implements only" in msg


def test_allowing_choose_location_in_a_blind_strike_is_refused_with_where_to_change_it(
    tmp_path: Path,
) -> None:
    root = edited(
        tmp_path,
        "combat.toml",
        "blind_strike_allows_choose_location = false",
        "blind_strike_allows_choose_location = true",
    )
    (msg,) = problems(root)
    assert "field 'cover.blind_strike_allows_choose_location'" in msg
    assert "not_blind_strike" in msg


def test_an_unknown_thrusting_effect_for_swimming_is_refused_by_name(tmp_path: Path) -> None:
    root = edited(
        tmp_path, "combat.toml", 'thrusting_effects = ["impale"]', 'thrusting_effects = ["stab"]'
    )
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat > swimming > thrusting_effects #1: "
        "unknown special effect 'stab'"
    )


def test_a_default_body_plan_that_is_no_hit_location_table_is_refused(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", 'body_plan = "humanoid"', 'body_plan = "serpent"')
    (msg,) = problems(root)
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat: field 'body_plan': unknown hit-location table 'serpent'"
    )


def test_mitigate_damage_must_lead_to_a_lesser_wound(tmp_path: Path) -> None:
    root = edited(tmp_path, "combat.toml", 'mitigate_to = "serious"', 'mitigate_to = "major"')
    (msg,) = problems(root)
    assert msg.startswith("combat-styles/combat.toml: entry combat: field 'luck.mitigate_to': ")
    assert "'major' is not a lesser wound than 'major'" in msg
