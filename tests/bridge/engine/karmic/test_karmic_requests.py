"""A karmic stat block's numbers are held at the door to the served rule data's bounds
(``stat_block_limits.toml``), each problem at its own field in pydantic's words."""

from __future__ import annotations

import json

from pydantic import ValidationError

from arbiter.bridge.engine.karmic.requests import CombatantSpec
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.karmic import KarmicRules
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.rule_edits import edited

BUNDLED = load_ruleset("karmic").model
BLOCK = {"id": "devon", "name": "Devon", "side": "heroes", "vitality": 10}


def refusals(block: dict[str, object], rules: object = BUNDLED) -> list[tuple[str, str]]:
    """(field, message) of every problem the door finds in ``block`` under ``rules``."""
    text = json.dumps({**BLOCK, **block})
    context = validation_context({"karmic": rules})  # type: ignore[dict-item]
    try:
        CombatantSpec.model_validate_json(text, strict=True, context=context)
    except ValidationError as err:
        return [(".".join(str(p) for p in e["loc"]), e["msg"]) for e in err.errors()]
    return []


def test_the_bundled_bounds_are_the_data_s_and_the_edges_pass() -> None:
    assert isinstance(BUNDLED, KarmicRules)
    limits = BUNDLED.stat_block_limits
    assert (limits.finesse.min, limits.finesse.max) == (-20, 20)
    assert (limits.vitality.min, limits.vitality.max) == (1, 10**9)
    assert (limits.size.min, limits.size.max) == (1, 1000)
    assert (limits.skills.min, limits.skills.max) == (0, 20)
    edge = {"finesse": -20, "force": 20, "vitality": 10**9, "size": 1000, "skills": {"x": 20}}
    assert refusals(edge) == []


def test_each_number_out_of_its_bound_is_refused_at_its_own_field() -> None:
    block = {"finesse": -21, "vitality": 0, "size": 1001, "skills": {"fists": 21}}
    assert refusals(block) == [
        ("finesse", "Input should be greater than or equal to -20"),
        ("vitality", "Input should be greater than or equal to 1"),
        ("size", "Input should be less than or equal to 1000"),
        ("skills.fists", "Input should be less than or equal to 20"),
    ]


def test_the_door_reads_the_bounds_from_the_served_data() -> None:
    heroic = edited(BUNDLED, "stat_block_limits.skills.max", 30)
    assert refusals({"skills": {"fists": 25}}) == [
        ("skills.fists", "Input should be less than or equal to 20")
    ]
    assert refusals({"skills": {"fists": 25}}, heroic) == []
