"""The envelope validates a body under the rules it is given, each rules object with its own
validation context (kept between requests), and reports a bad body field by field."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.envelope import Request, RequestError, validate_body
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.rule_edits import edited

BUNDLED = load_ruleset("combat-styles").model
HOUSE = edited(BUNDLED, "stat_block_limits.skills.max", 100)
"""The bundled rules with skills held to 100."""


def exchange_with_skill(value: int) -> Request:
    """A stateless exchange whose attacker's combat style is ``value``."""
    fighter = {
        "characteristics": {"str": 13, "con": 12, "siz": 13, "dex": 12, "int": 12},
        "skills": {"combat_style": value},
        "weapons": ["broadsword"],
    }
    body = {
        "attacker": "a",
        "defender": "b",
        "combatants": [{"id": "a", **fighter}, {"id": "b", **fighter, "skills": {}}],
    }
    return Request(id="r", ruleset="combat-styles", type="exchange", body=body)


def test_each_rules_object_holds_a_body_to_its_own_bounds_request_after_request() -> None:
    request = exchange_with_skill(150)
    for _ in range(2):  # the second round uses the contexts kept by the first
        validate_body(ENGINE, request, BUNDLED)
        with pytest.raises(RequestError) as refused:
            validate_body(ENGINE, request, HOUSE)
        assert str(refused.value) == (
            "invalid 'exchange' request: body.combatants.0.skills.combat_style: "
            "Input should be less than or equal to 100"
        )


def test_a_body_within_both_bounds_is_accepted_under_either_rules() -> None:
    request = exchange_with_skill(90)
    assert validate_body(ENGINE, request, HOUSE) == validate_body(ENGINE, request, BUNDLED)


def test_an_unknown_request_type_names_the_known_ones() -> None:
    request = Request(id="r", ruleset="combat-styles", type="dance", body={})
    with pytest.raises(RequestError, match=r"unknown request type 'dance' .*\(known: act, "):
        validate_body(ENGINE, request, BUNDLED)
