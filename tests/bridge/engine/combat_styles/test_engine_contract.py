"""The engine honours the contract: found by the registry, typed bodies, clear refusals."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.envelope import Request, RequestError, validate_body
from arbiter.bridge.engine.registry import get_engine
from tests.bridge.engine.combat_styles.helpers import Table, fighter


def test_the_registry_finds_the_engine_with_every_request_type() -> None:
    assert get_engine("combat-styles").inner is ENGINE
    assert {
        "check",
        "opposed",
        "exchange",
        "choose_effects",
        "odds",
        "start_encounter",
        "initiative",
        "act",
        "spend_ap",
        "delay",
        "interrupt",
        "next_turn",
        "next_cycle",
        "next_round",
        "state",
    } <= set(ENGINE.requests)


def test_a_malformed_body_is_refused_naming_the_field() -> None:
    request = Request(
        id="r", ruleset="combat-styles", type="exchange", body={"attacker": "a", "defense": "parry"}
    )
    with pytest.raises(RequestError, match=r"body\.defender.*body\.defense"):
        validate_body(ENGINE, request)


def test_unknown_rule_data_ids_are_refused_with_the_id(table: Table) -> None:
    from arbiter.bridge.engine.contract import EngineError

    with pytest.raises(EngineError, match="unknown weapon 'laser'"):
        table("start_encounter", {"combatants": [fighter("a", weapons=["laser"])]})
    with pytest.raises(EngineError, match="unknown armour 'mithril'"):
        table("start_encounter", {"combatants": [fighter("a", armor={"head": "mithril"})]})
    with pytest.raises(EngineError, match="unknown difficulty grade 'tricky'"):
        table("check", {"skill": 50, "grades": ["tricky"]})
    with pytest.raises(EngineError, match="needs an encounter"):
        table("initiative", {})


def test_an_exchange_without_an_encounter_uses_the_stat_blocks_it_carries(table: Table) -> None:
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "combatants": [fighter("a"), fighter("b")],
            "effects": [],
        },
        [40, 90, 3, 10],
    )
    assert out["status"] == "complete"
    assert table.who("b")["hit_points"]["chest"] == 4


def test_the_input_state_is_never_mutated(table: Table) -> None:
    import copy

    table("start_encounter", {"combatants": [fighter("a"), fighter("b"), fighter("c")]})
    table("initiative", {}, [9, 5, 1])
    table("delay", {"combatant": "a"})
    table("next_turn", {})  # b dithers
    for request, dice in [
        (("delay", {"combatant": "c"}), []),  # the cycle ends; a's unused delay is lost
        (("exchange", {"attacker": "a", "defender": "b", "effects": []}), [40, 90, 3, 10]),
        (("next_round", {}), []),
    ]:
        before = copy.deepcopy(table.state)
        kept = table.state
        table(*request, dice)
        assert kept == before, request[0]
