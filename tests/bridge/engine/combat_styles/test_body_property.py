"""Properties of spirit combat and fatigue checks on random skills and keyed dice: replays
reproduce every outcome, Spirit Damage stays within its dice, checks fall due on schedule."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.dice import KeyedSource, ScriptedSource, parse
from arbiter.bridge.engine.envelope import Request, resolve
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import fighter

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def run(model: RulesetBase, req: dict[str, Any], state: Any, source: Any) -> dict[str, Any]:
    return resolve(Request.model_validate(req), ENGINE, model, "hash", state, source)


def replay(model: RulesetBase, req: dict[str, Any], state: Any, outcome: dict[str, Any]) -> Any:
    return run(model, req, state, ScriptedSource(d["result"] for d in outcome["dice"]))


@SETTINGS
@given(
    skills=st.tuples(st.integers(0, 300), st.integers(0, 300)),
    mp=st.tuples(st.integers(0, 30), st.integers(0, 30)),
    seed=st.binary(min_size=16, max_size=16),
)
def test_spirit_damage_comes_off_the_losers_magic_points_within_its_dice(
    model: RulesetBase, skills: tuple[int, int], mp: tuple[int, int], seed: bytes
) -> None:
    blocks = [
        fighter("a", spirit_combat=skills[0], magic_points=mp[0] + 1),
        fighter("b", spirit_combat=skills[1], magic_points=mp[1] + 1),
    ]
    body = {"attacker": "a", "defender": "b", "combatants": blocks, "effects": []}
    req = {"id": "s", "ruleset": "combat-styles", "type": "spirit_combat", "body": body}
    first = run(model, req, None, KeyedSource(seed))
    assert json.loads(json.dumps(first)) == first
    assert replay(model, req, None, first) == first
    result, after = first["result"], first["state"]["combatants"]
    hit = result["spirit_damage"]
    if hit is None:
        assert [after[c]["magic_points"] for c in "ab"] == [mp[0] + 1, mp[1] + 1]
        return
    winner = "a" if hit["to"] == "b" else "b"
    low, high = parse(model.spirit_damage_for(after[winner]["spirit_combat"])).bounds()
    assert low <= hit["rolled"] <= high
    assert hit["magic_points"]["after"] == hit["magic_points"]["before"] - hit["rolled"]
    assert after[hit["to"]]["magic_points"] == hit["magic_points"]["after"]
    assert (result["defeated"] == hit["to"]) == (hit["magic_points"]["after"] <= 0)


@SETTINGS
@given(
    con=st.integers(1, 30),
    rounds=st.integers(1, 14),
    seed=st.binary(min_size=16, max_size=16),
)
def test_fatigue_checks_fall_due_on_schedule_and_replay_exactly(
    model: RulesetBase, con: int, rounds: int, seed: bytes
) -> None:
    chars = {"str": 11, "con": con, "siz": 12, "dex": 12, "int": 12, "pow": 10}
    start = {
        "id": "s",
        "ruleset": "combat-styles",
        "type": "start_encounter",
        "body": {"combatants": [fighter("a", characteristics=chars)], "fatigue_checks": True},
    }
    state = run(model, start, None, KeyedSource(seed))["state"]
    init = {"id": "i", "ruleset": "combat-styles", "type": "initiative", "body": {}}
    state = run(model, init, state, KeyedSource(seed, counter=100))["state"]
    every = next(b.every_rounds for b in model.combat.fatigue_checks.bands if b.con.contains(con))
    checked = 0
    lost = 0
    for n in range(rounds):
        req = {"id": f"r{n}", "ruleset": "combat-styles", "type": "next_round", "body": {}}
        out = run(model, req, state, KeyedSource(seed, counter=200 + n))
        assert replay(model, req, state, out) == out
        due = out["result"].get("fatigue_checks", [])
        assert [d["round"] for d in due] == ([n + 1] if (n + 1) % every == 0 else [])
        checked += len(due)
        state = out["state"]
        now = state["combatants"]["a"].get("fatigue_levels", 0)
        assert now >= lost  # fatigue only ever worsens in combat
        lost = now
    assert checked == rounds // every
