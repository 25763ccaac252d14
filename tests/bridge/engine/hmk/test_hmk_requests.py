"""An hmk stat block's numbers are held at the door to the served rule data's bounds
(``stat_block_limits.toml``), each problem at its own field in pydantic's words."""

from __future__ import annotations

import json

from pydantic import ValidationError

from arbiter.bridge.engine.hmk.requests import StatBlock
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.hmk import HmkRules
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.rule_edits import edited

BUNDLED = load_ruleset("hmk").model
ATTRIBUTES = {"STR": 55, "DEX": 60, "AGL": 50, "HEA": 44, "INT": 50, "AWA": 45}
BLOCK = {"id": "ana", "attributes": ATTRIBUTES, "ip": 40}


def refusals(block: dict[str, object], rules: object = BUNDLED) -> list[tuple[str, str]]:
    """(field, message) of every problem the door finds in ``block`` under ``rules``."""
    text = json.dumps({**BLOCK, **block})
    context = validation_context({"hmk": rules})  # type: ignore[dict-item]
    try:
        StatBlock.model_validate_json(text, strict=True, context=context)
    except ValidationError as err:
        return [(".".join(str(p) for p in e["loc"]), e["msg"]) for e in err.errors()]
    return []


def test_the_bundled_bounds_are_the_data_s_and_the_edges_pass() -> None:
    assert isinstance(BUNDLED, HmkRules)
    limits = BUNDLED.stat_block_limits
    assert (limits.attributes.min, limits.attributes.max) == (0, 999)
    assert (limits.ip.min, limits.ip.max) == (1, 9999)
    assert (limits.skills.min, limits.skills.max) == (0, 999)
    assert (limits.actions.min, limits.actions.max) == (1, 10)
    edge = {"attributes": {**ATTRIBUTES, "STR": 999, "DEX": 0}, "ip": 9999, "actions": 10}
    assert refusals(edge) == []


def test_each_number_out_of_its_bound_is_refused_at_its_own_field() -> None:
    block = {
        "attributes": {**ATTRIBUTES, "AWA": -1},
        "ip": 0,
        "defensive_tactics": 1000,
        "skills": {"long-sword": 1000},
        "actions": 11,
    }
    assert refusals(block) == [
        ("attributes.AWA", "Input should be greater than or equal to 0"),
        ("ip", "Input should be greater than or equal to 1"),
        ("defensive_tactics", "Input should be less than or equal to 999"),
        ("skills.long-sword", "Input should be less than or equal to 999"),
        ("actions", "Input should be less than or equal to 10"),
    ]


def test_the_door_reads_the_bounds_from_the_served_data() -> None:
    gritty = edited(BUNDLED, "stat_block_limits.ip.max", 60)
    assert refusals({"ip": 80}) == []
    assert refusals({"ip": 80}, gritty) == [("ip", "Input should be less than or equal to 60")]
