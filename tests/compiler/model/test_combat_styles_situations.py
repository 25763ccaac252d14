"""Situational numbers of the combat-styles rules: impale, distance, knockback, fatigue,
action points, initiative, derived attributes — spot checks against the reference."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.compiler.model.combat_styles import CombatStylesRules
from arbiter.compiler.model.combat_styles.basics import Fraction
from arbiter.compiler.model.loader import load_ruleset

RULES = load_ruleset("combat-styles").model
assert isinstance(RULES, CombatStylesRules)


@pytest.mark.parametrize(
    ("siz", "size", "expected"),
    [
        (8, "small", "formidable"),
        (8, "large", "incapacitated"),
        (15, "small", "hard"),
        (15, "medium", "formidable"),
        (25, "small", "no_effect"),
        (25, "huge", "herculean"),
        (45, "enormous", "formidable"),
        (45, "large", "no_effect"),
        (55, "enormous", "hard"),
        (90, "enormous", "no_effect"),
    ],
)
def test_the_impale_table_matches_the_reference(siz: int, size: str, expected: str) -> None:
    assert RULES.impale_penalty(siz, size) == expected


@pytest.mark.parametrize(
    ("metres", "siz", "steps"),
    [
        (10, 8, 1),  # first cell +1 (RULES-NOTES)
        (10, 15, 0),
        (10, 200, -2),
        (50, 30, 1),
        (75, 60, 1),
        (100, 100, 1),
        (130, 8, 4),
        (130, 200, 1),
        (150, 8, 4),  # beyond the table: one step more than 40 m nearer (110 m: 3)
        (181, 8, 5),  # 141 m → 101 m: 3, plus 2
        (150, 15, 4),  # the next row of each column is the column to its left shifted down
        (150, 200, 2),
    ],
)
def test_distance_penalties_by_distance_and_size(metres: int, siz: int, steps: int) -> None:
    assert RULES.distance_penalties.steps(metres, siz) == steps


def test_knockback_is_one_metre_per_five_points_or_fraction_over_siz() -> None:
    kb = RULES.knockback
    assert kb.metres(13, 13) == 0
    assert kb.metres(14, 13) == 1
    assert kb.metres(18, 13) == 1
    assert kb.metres(19, 13) == 2
    assert [(f.skill, f.grade) for f in kb.avoid_fall] == [
        ("acrobatics", "easy"),
        ("athletics", "standard"),
    ]
    assert kb.brace_siz_multiplier.apply(13) == 20  # 19.5 rounds up


def test_charging_numbers_come_from_the_text() -> None:
    c = RULES.charging
    assert (c.attack_grade_steps, c.weapon_size_steps) == (1, 1)
    assert (c.damage_modifier_steps_biped, c.damage_modifier_steps_quadruped) == (1, 2)
    assert c.min_rounds_of_movement == 1
    assert RULES.shift_size("medium", c.weapon_size_steps).id == "large"
    assert RULES.shift_size("enormous", 1).id == "enormous"


def test_surprise_and_other_numbers() -> None:
    cb = RULES.combat
    assert cb.surprise.initiative_penalty == -10
    assert cb.surprise.bonus_effects == 1
    assert cb.pulled_blow.damage.apply(7) == 4
    assert (cb.mounted.location_die, cb.mounted.location_add) == ("1d10", 10)
    assert cb.ranged.long_range_damage.apply(9) == 5
    assert cb.ranged.long_range_force_steps == -1
    assert cb.reach.inside_reach_damage_cap == "1d3+1"
    assert cb.passive_block.crouch_multiplier == 2
    assert (cb.familiarity.broadly_similar, cb.familiarity.reasonably_different) == (1, 2)


def test_fatigue_levels_match_the_reference() -> None:
    wearied = RULES.fatigue_level("wearied")
    assert (wearied.skill_grade, wearied.movement, wearied.initiative) == ("formidable", -2, -2)
    exhausted = RULES.fatigue_level("exhausted")
    assert (exhausted.movement, exhausted.initiative, exhausted.action_points) == ("half", -4, -1)
    incapacitated = RULES.fatigue_level("incapacitated")
    assert (incapacitated.initiative, incapacitated.action_points) == (-8, -3)
    assert RULES.fatigue_level("winded").recovery_minutes == 15
    assert RULES.fatigue_level("dead").recovery_minutes is None
    assert [f.id for f in sorted(RULES.fatigue_levels, key=lambda f: f.rank)][-1] == "dead"


def test_action_points_default_to_two_and_the_table_is_an_option() -> None:
    ap = RULES.action_points
    assert ap.points({"int": 18, "dex": 18}) == 2
    table = ap.model_copy(update={"method": "table"})
    assert table.points({"int": 6, "dex": 6}) == 1
    assert table.points({"int": 6, "dex": 7}) == 2
    assert table.points({"int": 18, "dex": 18}) == 3
    assert table.points({"int": 20, "dex": 17}) == 4
    assert table.points({"int": 30, "dex": 30}) == 5


def test_initiative_bonus_rounds_up() -> None:
    ini = RULES.initiative
    assert ini.die == "1d10"
    assert ini.bonus.value({"dex": 13, "int": 14}) == 14
    assert ini.tie_break == "higher_dex_then_roll"


def test_healing_rate_and_luck_points_by_bands_of_six() -> None:
    d = RULES.derived
    assert [d.healing_rate.value({"con": c}) for c in (1, 6, 7, 12, 13, 18, 19)] == [
        1,
        1,
        2,
        2,
        3,
        3,
        4,
    ]
    assert d.luck_points.value({"pow": 11}) == 2


def test_spirit_damage_by_skill() -> None:
    assert RULES.spirit_damage_for(20) == "1d2"
    assert RULES.spirit_damage_for(55) == "1d6"
    assert RULES.spirit_damage_for(101) == "2d6"
    assert RULES.spirit_damage_for(500) == "3d10"


def test_situational_modifiers_carry_grade_ids() -> None:
    assert RULES.situation("close_prone").grade == "formidable"
    assert RULES.situation("close_attack_from_behind").applies_to == "defence"
    assert RULES.situation("close_blinded").grade == "herculean"
    assert RULES.situation("ranged_target_sprinting").grade == "formidable"
    assert RULES.situation("ranged_gale").grade == "hopeless"
    close = [m for m in RULES.situational_modifiers if m.context == "close"]
    ranged = [m for m in RULES.situational_modifiers if m.context == "ranged"]
    assert (len(close), len(ranged)) == (11, 13)


def test_every_effect_a_weapon_enables_requires_a_weapon_or_is_general() -> None:
    # A weapon's effects list only matters for effects that ask for it; unarmed effects are
    # listed on the unarmed entry for the GM's benefit.
    listed = {e for w in (*RULES.weapons, *RULES.shields, *RULES.ranged_weapons) for e in w.effects}
    for ident in listed:
        effect = RULES.effect(ident)
        assert (
            effect.requires.weapon_lists_effect
            or effect.requires.weapon_kinds
            or ident in {"pin_weapon"}
        ), ident


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=260))
def test_every_str_plus_siz_total_has_exactly_one_damage_modifier(total: int) -> None:
    bands = [s for s in RULES.damage_modifiers if s.band.contains(total)]
    assert len(bands) == 1


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=300),
    st.sampled_from([g.multiplier for g in RULES.grades if g.multiplier is not None]),
)
def test_a_grade_multiplier_never_rounds_down(skill: int, multiplier: Fraction) -> None:
    value = multiplier.apply(skill)
    exact = skill * multiplier.numerator / multiplier.denominator
    assert exact <= value < exact + 1
