"""d100 checks: grades, success levels, opposed rolls, skills over 100, augments, luck."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckResult,
    Level,
    contest_penalty,
    level_of,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.dice import Dice, ScriptedSource
from tests.bridge.engine.combat_styles.helpers import Table


@pytest.mark.parametrize(
    ("grade", "skill", "expected"),
    [
        ("very_easy", 45, 90),
        ("easy", 45, 68),  # 67.5 rounds up
        ("standard", 45, 45),
        ("hard", 50, 34),  # 33.3 rounds up
        ("formidable", 45, 23),  # 22.5 rounds up
        ("herculean", 45, 5),  # ×1/10, 4.5 rounds up
    ],
)
def test_a_grade_multiplies_the_skill_and_rounds_fractions_up(
    view: RulesView, grade: str, skill: int, expected: int
) -> None:
    assert target(view.checks, skill, view.grade(grade)).skill == expected


def test_grades_do_not_stack_the_most_severe_applies(view: RulesView) -> None:
    assert view.checks.most_severe(["hard", "formidable", "easy"]).id == "formidable"
    assert view.checks.most_severe([]).id == "standard"
    assert view.checks.shifted(view.grade("hard"), 1).id == "formidable"
    assert view.checks.shifted(view.grade("herculean"), 3).id == "hopeless"


@pytest.mark.parametrize(
    ("roll", "skill", "level"),
    [
        (1, 60, Level.CRITICAL),
        (6, 60, Level.CRITICAL),  # ceil(60/10) = 6
        (7, 60, Level.SUCCESS),
        (6, 55, Level.CRITICAL),  # ceil(55/10) = 6
        (60, 60, Level.SUCCESS),
        (61, 60, Level.FAILURE),
        (5, 3, Level.SUCCESS),  # 01-05 always succeed
        (1, 3, Level.CRITICAL),
        (3, 0, Level.SUCCESS),  # a skill of 0 has no critical but 01-05 still succeed
        (96, 120, Level.FAILURE),  # 96-00 always fail
        (98, 97, Level.FAILURE),
        (99, 80, Level.FUMBLE),
        (100, 80, Level.FUMBLE),
        (99, 120, Level.FAILURE),  # over 100 only 00 fumbles
        (100, 120, Level.FUMBLE),
    ],
)
def test_success_levels_follow_the_rule_data(
    view: RulesView, roll: int, skill: int, level: Level
) -> None:
    assert level_of(view.checks, roll, target(view.checks, skill)) == level


def test_an_augment_adds_a_fifth_of_the_skill_but_not_to_the_critical_range(
    view: RulesView,
) -> None:
    tgt = target(view.checks, 50, None, augment=33)  # +ceil(6.6) = +7
    assert tgt.skill == 57
    assert level_of(view.checks, 5, tgt) == Level.CRITICAL
    assert level_of(view.checks, 6, tgt) == Level.SUCCESS  # ceil(57/10)=6 would be critical


def test_skills_over_100_lower_every_participant_by_the_excess() -> None:
    assert contest_penalty([130, 80]) == 30
    assert contest_penalty([100, 80]) == 0


def test_in_an_opposed_roll_the_better_level_wins_then_the_higher_roll(view: RulesView) -> None:
    def res(roll: int, skill: int) -> CheckResult:
        tgt = target(view.checks, skill)
        return CheckResult(tgt, roll, level_of(view.checks, roll, tgt))

    assert opposed_winner(res(40, 60), res(70, 60)) == 1  # success beats failure
    assert opposed_winner(res(40, 60), res(50, 60)) == -1  # both succeed: higher roll wins
    assert opposed_winner(res(3, 60), res(50, 60)) == 1  # critical beats success
    assert opposed_winner(res(80, 60), res(90, 60)) == 0  # both fail: nobody wins


def test_a_luck_point_rerolls_a_result_worse_than_asked_once(view: RulesView) -> None:
    dice = Dice(ScriptedSource([80, 30]))
    result = roll_check(view.checks, dice, target(view.checks, 50), luck_below=Level.SUCCESS)
    assert (result.rerolled_from, result.roll, result.level) == (80, 30, Level.SUCCESS)
    dice = Dice(ScriptedSource([30]))
    result = roll_check(view.checks, dice, target(view.checks, 50), luck_below=Level.SUCCESS)
    assert result.rerolled_from is None


def test_a_check_request_reports_target_roll_and_level(table: Table) -> None:
    out = table("check", {"skill": 70, "grades": ["hard", "easy"], "label": "climb"}, [47])
    assert out == {
        "kind": "check",
        "label": "climb",
        "grade": "hard",
        "target": 47,
        "roll": 47,
        "level": "success",
    }


def test_an_opposed_request_applies_the_over_100_rule_and_counts_effects(table: Table) -> None:
    out = table(
        "opposed",
        {"protagonist": {"skill": 120}, "antagonist": {"skill": 70}},
        [2, 55],
    )
    assert out["penalty_over_100"] == 20
    assert out["protagonist"]["target"] == 100
    assert out["antagonist"]["target"] == 50
    assert out["protagonist"]["level"] == "critical"
    assert out["antagonist"]["level"] == "failure"
    assert out["winner"] == "protagonist"
    assert out["differential"] == {"winner": "protagonist", "effects": 2}


def test_a_hopeless_check_is_refused(table: Table) -> None:
    from arbiter.bridge.engine.contract import EngineError

    with pytest.raises(EngineError, match="no attempt"):
        table("check", {"skill": 70, "grades": ["hopeless"]})
