"""Damage arithmetic and the rule text's worked examples about damage."""

from __future__ import annotations

from fractions import Fraction

import pytest

from arbiter.bridge.engine.combat_styles.core.damage import (
    maximize,
    modifier_expr,
    parry_block,
    size_step,
    step_modifier,
)
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import parse


def test_maximize_damage_turns_a_hatchets_1d6_into_6() -> None:
    assert str(maximize(parse("1d6"))) == "6"


def test_maximize_damage_turns_a_great_clubs_2d6_into_1d6_plus_6() -> None:
    assert str(maximize(parse("2d6"))) == "1d6+6"


def test_maximize_damage_stacks_and_keeps_constants() -> None:
    assert str(maximize(parse("2d6+2"), 2)) == "14"
    assert str(maximize(parse("1d8+1d6"))) == "1d6+8"
    assert str(maximize(parse("1d4+1"), 3)) == "5"


def test_damage_modifier_steps_move_along_the_rule_ladder(view: RulesView) -> None:
    assert step_modifier(view.dm_ladder, "+0", 1) == "+1d2"
    assert step_modifier(view.dm_ladder, "+1d4", 2) == "+1d8"
    assert step_modifier(view.dm_ladder, "-1d2", 1) == "+0"
    assert modifier_expr("+0") is None
    assert str(modifier_expr("-1d4")) == "-1d4"


def test_parry_with_a_weapon_one_size_smaller_blocks_half(view: RulesView) -> None:
    block = parry_block(view.sizes, view.parry_reductions, "large", "medium")
    assert block.fraction == Fraction(1, 2)
    assert block.remaining(8) == 4
    assert block.remaining(7) == 4  # the half that gets through rounds up


def test_parry_with_a_weapon_two_sizes_smaller_blocks_nothing(view: RulesView) -> None:
    block = parry_block(view.sizes, view.parry_reductions, "huge", "medium")
    assert block.remaining(9) == 9


@pytest.mark.parametrize(("attack", "parry"), [("medium", "medium"), ("medium", "huge")])
def test_parry_with_an_equal_or_larger_weapon_blocks_all(
    view: RulesView, attack: str, parry: str
) -> None:
    assert parry_block(view.sizes, view.parry_reductions, attack, parry).remaining(12) == 0


def test_a_charge_moves_the_weapon_one_size_up(view: RulesView) -> None:
    assert size_step(view.sizes, "medium", view.charge.size_steps) == "large"
    assert size_step(view.sizes, "enormous", 1) == "enormous"


def test_a_damage_modifier_off_the_ladder_cannot_be_stepped(view: RulesView) -> None:
    with pytest.raises(EngineError, match=r"'\+1d3' is not on the ladder"):
        step_modifier(view.dm_ladder, "+1d3", 1)
