"""What a combatant's own body does to a plain check: his fatigue level's grade floor and the
grade steps of his load for the skill checked."""

from __future__ import annotations

from bridge.engine.combat_styles import encumbrance
from bridge.engine.combat_styles.situations import fatigue_of
from bridge.engine.combat_styles.view import RulesView
from bridge.engine.contract import JSON


def burdens(
    rules: RulesView, c: JSON, skill: str | None, notes: list[str]
) -> tuple[list[str], int]:
    """(grade ids, grade steps) that ``c``'s fatigue and load add to a check of ``skill``
    (None: a skill encumbrance cannot grade); each one is explained in ``notes``."""
    grades: list[str] = []
    level = fatigue_of(rules, c)
    if level is not None and level.grade is not None:
        grades.append(level.grade)
        notes.append(f"{c['name']}: {level.id}")
    steps = encumbrance.grade_steps(rules, c, skill, notes) if skill else 0
    return grades, steps
