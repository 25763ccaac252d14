"""The combat-styles engine follows its rule data: each test edits a rule value and shows the
outcome changes with it."""

from __future__ import annotations

from typing import Any

from bridge.engine.combat_styles.requests import Situation
from bridge.engine.combat_styles.rules import view_of
from bridge.engine.combat_styles.situations import attack_terms
from compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited


def _archers(model: RulesetBase) -> tuple[dict[str, Any], dict[str, Any]]:
    table = Table(model)
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    return table.who("a"), table.who("b")


def _aimed_grade(model: RulesetBase, *situations: str) -> str:
    view = view_of(model)
    a, b = _archers(model)
    situation = Situation(aiming=True, attacker_situations=list(situations))
    return attack_terms(view, a, b, view.arm("short_bow"), situation).grade.id


def test_aiming_eases_a_standard_shot_by_the_data_s_aim_steps(model: RulesetBase) -> None:
    assert _aimed_grade(model) == "easy"
    assert _aimed_grade(edited(model, "combat.ranged.aim_grade_steps", -2)) == "very_easy"


def test_aiming_never_eases_a_very_easy_shot_to_automatic(model: RulesetBase) -> None:
    assert _aimed_grade(model, "very_easy") == "very_easy"
    assert _aimed_grade(model, "easy") == "very_easy"
    deeper = edited(model, "combat.ranged.aim_grade_steps", -3)
    assert _aimed_grade(deeper) == "very_easy"


def test_the_easiest_grade_aiming_reaches_is_read_from_the_data(model: RulesetBase) -> None:
    house = edited(model, "combat.ranged.aim_easiest_grade", "easy")
    assert _aimed_grade(house, "easy") == "easy"
    assert _aimed_grade(house, "hard") == "standard"
    free = edited(model, "combat.ranged.aim_easiest_grade", "automatic")
    assert _aimed_grade(free, "very_easy") == "automatic"
