"""A stat block's dice are checked at the door: the engine never meets one it cannot roll."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import StatBlock

BLOCK = {"id": "bram", "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11}}


def validated(damage_modifier: str) -> StatBlock:
    text = json.dumps({**BLOCK, "damage_modifier": damage_modifier})
    return StatBlock.model_validate_json(text, strict=True)


@pytest.mark.parametrize("modifier", ["+1d4", "-1d6", "1d8+1d6", "+0", "0", "", "+200d6"])
def test_a_damage_modifier_the_engine_can_roll_is_kept_as_given(modifier: str) -> None:
    assert validated(modifier).damage_modifier == modifier


@pytest.mark.parametrize(
    ("modifier", "problem"),
    [
        ("201d6", "'201d6' rolls 201 dice, over the budget of 200"),
        ("+1d1001", "'1d1001': d1001 is over the budget of 1000 faces"),
        ("strong", "cannot read dice expression 'strong' at position 1"),
    ],
)
def test_a_damage_modifier_beyond_the_engine_is_refused_naming_the_field(
    modifier: str, problem: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        validated(modifier)
    [error] = refused.value.errors()
    assert error["loc"] == ("damage_modifier",)
    assert problem in error["msg"]
