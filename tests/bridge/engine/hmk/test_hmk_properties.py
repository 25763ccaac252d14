"""Properties over many generated fights: the engine only ever refuses with EngineError, the
state stays JSON and round-trips, and outcomes agree with the chance (the purity of every engine
is tests/bridge/engine/test_purity.py)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.hmk import ENGINE
from arbiter.bridge.engine.hmk.state import load

score = st.integers(min_value=0, max_value=120)
MISSILES = {"short-bow", "light-crossbow"}
BASE: dict[str, Any] = {
    "attributes": {"STR": 50, "DEX": 50, "AGL": 50, "HEA": 60, "INT": 50, "AWA": 50},
    "ip": 400,
    "defensive_tactics": 20,
    "skills": {"long-sword": 70},
    "weapon": "long-sword",
    "weapons": ["dagger"],
    "armor": "leather",
}


@st.composite
def stat_blocks(draw: Any, ident: str, party: str) -> dict[str, Any]:
    weapon = draw(st.sampled_from(["long-sword", "dagger", "short-bow", "light-crossbow", "club"]))
    return {
        "id": ident,
        "party": party,
        "attributes": {
            a: draw(st.integers(1, 100)) for a in ("STR", "DEX", "AGL", "HEA", "INT", "AWA")
        },
        "ip": draw(st.integers(1, 60)),
        "defensive_tactics": draw(score),
        "specialization": draw(st.integers(0, 20)),
        "skills": {weapon: draw(score), "dagger": draw(score)},
        "weapon": weapon,
        "weapons": ["dagger"],
        "armor": draw(st.sampled_from([None, "leather", "chain-mail", "plate"])),
        "shield": draw(st.booleans()),
        "actions": draw(st.integers(1, 2)),
    }


MOVES = [
    ("attack", {"attacker": "a", "defender": "b", "bystander": "c"}),
    ("attack", {"attacker": "b", "defender": "a"}),
    ("attack", {"attacker": "c", "defender": "b"}),
    ("round", {}),
    ("initiative", {}),
    ("declare", {"combatant": "b", "defending": True}),
    ("reload", {"combatant": "a"}),
    ("ready", {"combatant": "b", "weapon": "dagger"}),
    ("stand", {"combatant": "a"}),
    ("aid", {"combatant": "b", "heal_ip": 5}),
]


def play(hmk: Any, blocks: list[Any], source: Any, steps: list[int]) -> list[str]:
    """Play ``steps`` (indexes into MOVES) checking every invariant; the strike outcomes."""
    struck: list[str] = []
    state = _resolve(hmk, "start", {"combatants": blocks}, None, source).state
    for step in steps:
        kind, body = MOVES[step]
        if kind == "attack":
            weapon = state["combatants"][body["attacker"]]["weapon"]
            if weapon in MISSILES:
                body = {**body, "distance_feet": 20}
        try:
            outcome = _resolve(hmk, kind, body, state, source)
        except EngineError:
            continue
        if kind == "attack":
            result = outcome.result
            struck.append(result["outcome"])
            assert result["chance"]["effective"] >= 5
            assert result["outcome"] in ("critical", "hit", "miss", "fumble")
            assert (result["outcome"] == "fumble") == (result["roll"] >= 96)
            if result["outcome"] == "miss":
                assert result["roll"] > result["chance"]["effective"]
        assert json.loads(json.dumps(outcome.result)) == outcome.result
        if outcome.state is not None:
            assert json.loads(json.dumps(outcome.state)) == outcome.state
            assert load(outcome.state).to_json() == outcome.state
            state = outcome.state
        for who in state["combatants"].values():
            terminal = who["attributes"]["HEA"] // 4
            if who["status"] == "active":
                assert who["ip"] > 0
            if who["ip"] < -terminal:
                assert who["status"] == "dead"
    return struck


def _resolve(hmk: Any, kind: str, body: dict[str, Any], state: Any, source: Any) -> Any:
    model = ENGINE.requests[kind].model_validate(body)
    return ENGINE.resolve(hmk.model, kind, model, state, Dice(source))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    a=stat_blocks("a", "red"),
    b=stat_blocks("b", "blue"),
    c=stat_blocks("c", "red"),
    seed=st.binary(min_size=16, max_size=16),
    steps=st.lists(st.integers(0, 9), min_size=5, max_size=40),
)
def test_random_fights_keep_a_valid_state_and_refuse_only_with_engine_errors(
    hmk: Any, a: Any, b: Any, c: Any, seed: bytes, steps: list[int]
) -> None:
    play(hmk, [a, b, c], KeyedSource(seed), steps)


def test_a_long_seeded_fight_strikes_with_every_outcome(hmk: Any) -> None:
    blocks = [
        {**BASE, "id": "a", "party": "red", "weapon": "short-bow", "skills": {"short-bow": 70}},
        {**BASE, "id": "b", "party": "blue"},
        {**BASE, "id": "c", "party": "red"},
    ]
    steps = [0, 1, 2, 3, 6, 4, 8, 9] * 60
    struck = play(hmk, blocks, KeyedSource(b"hmk property fight seed"), steps)
    assert {"critical", "hit", "miss", "fumble"} <= set(struck), struck


def test_every_effect_kind_has_a_handler_and_the_bundled_tables_use_them_all(hmk: Any) -> None:
    from arbiter.bridge.engine.hmk.effects import HANDLED_KINDS
    from arbiter.compiler.model.hmk.effects import EFFECT_KINDS, AttributeRoll

    assert set(EFFECT_KINDS) == HANDLED_KINDS
    used: set[str] = set()
    rules = hmk.model
    stack = [e for t in (rules.critical_hits, rules.melee_fumbles, rules.missile_fumbles)
             for r in t.rows for e in r.effects]  # fmt: skip
    while stack:
        effect = stack.pop()
        used.add(effect.kind)
        if isinstance(effect, AttributeRoll):
            stack.extend(effect.on_failure)
    assert used == set(EFFECT_KINDS)
