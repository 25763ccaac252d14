"""Skill contests between combatants outside the exchange: each side rolls a named skill of
his record, at the grade his own conditions impose, with the over-100 penalty of the contest.

Used by the manoeuvres (leaping attacks, outmanoeuvring, aerial passes) and by a rider's
unopposed Ride roll against knockback.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import CheckResult, Grade, roll_check, target
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.grades.situations import condition_grades
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice


def skill_value(c: CombatantRecord, skill: str) -> int:
    """``c``'s value in ``skill``; EngineError when combatants have no such skill."""
    if skill not in c.skills:
        known = ", ".join(sorted(c.skills))
        raise EngineError(f"the rule data names skill {skill!r}, which combatants lack ({known})")
    return int(c.skills[skill])


def grade_for(rules: RulesView, c: CombatantRecord, steps: int, notes: list[str]) -> Grade:
    """The grade of ``c``'s roll: the most severe his conditions impose, then ``steps``."""
    checks = rules.checks
    return checks.shifted(checks.most_severe(condition_grades(rules, c, notes)), steps)


def roll_skill(
    rules: RulesView,
    dice: Dice,
    c: CombatantRecord,
    skill: str,
    *,
    penalty: int = 0,
    steps: int = 0,
    augment: int = 0,
    notes: list[str] | None = None,
) -> tuple[CheckResult, JSON]:
    """Roll ``c``'s ``skill``; returns the check and its JSON (``skill_name``, ``skill`` — the
    value, as an exchange reports it —, grade, target, roll, level)."""
    grade = grade_for(rules, c, steps, notes if notes is not None else [])
    value = skill_value(c, skill)
    tgt = target(rules.checks, value, grade, augment, penalty)
    if tgt.impossible:
        raise EngineError(f"{c.name}'s {skill} roll is {grade.name}: no attempt is possible")
    result = roll_check(rules.checks, dice, tgt, f"1d100 {skill} {c.id}")
    return result, {
        "combatant": c.id,
        "skill_name": skill,
        "skill": value,
        "grade": grade.id,
        **result.to_json(),
    }
