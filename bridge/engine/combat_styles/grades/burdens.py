"""What a combatant's own state does to a plain check: the grades his conditions impose (his
fatigue level's floor, blinded, an entangled or grappled head or torso, a weapon impaled in him,
prone — every roll he makes, as the text's "future skill attempts") and the grade steps of his
load for the skill checked."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core import encumbrance
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.grades.situations import condition_grades


def burdens(
    rules: RulesView, c: CombatantRecord, skill: str | None, notes: list[str]
) -> tuple[list[str], int]:
    """(grade ids, grade steps) that ``c``'s conditions and load add to a check of ``skill``
    (None: a skill encumbrance cannot grade); each one is explained in ``notes``."""
    grades = condition_grades(rules, c, notes)
    steps = encumbrance.grade_steps(rules, c, skill, notes) if skill else 0
    return grades, steps
