"""Random sequences of manoeuvres mixed with turns: every request is decided or refused with a
reason, refused requests change nothing, the state stays plain JSON with action points in
range, and every decided outcome replays exactly from its recorded dice."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.combat_styles.encounter.combatants import taken_in
from arbiter.bridge.engine.combat_styles.rounds import current
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import KeyedSource, ScriptedSource
from arbiter.bridge.engine.envelope import Request, resolve
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import fighter

IDS = ["a", "b", "c", "horse"]
WHO = st.sampled_from(IDS)
STEP = st.one_of(
    st.tuples(st.just("leaping_attack"), WHO, st.sampled_from(["brawn", "evade", "none"])),
    st.tuples(st.just("outmaneuver"), WHO, st.sampled_from([None, "engage", "withdraw"])),
    st.tuples(st.just("sweep_attack"), st.sampled_from(["parry", "evade", "none"])),
    st.tuples(st.just("aerial_pass"), WHO),
    st.tuples(st.just("mount"), st.booleans()),
    st.tuples(st.just("mounted_withdraw")),
    st.tuples(st.just("exchange"), WHO, st.sampled_from(["parry", "evade", "none"])),
    st.tuples(st.just("defend_mount"), st.sampled_from(["combat_style", "ride"])),
    st.tuples(st.sampled_from(["next_turn", "next_round"])),
    st.tuples(st.just("choose")),
)


def request(step: tuple[Any, ...], state: JSON) -> tuple[str, dict[str, Any]]:
    """The request a step stands for; the combatant whose turn it is acts."""
    kind = step[0]
    me = current(taken_in(state) or state) or "a"
    others = [i for i in IDS if i != me]
    if kind == "leaping_attack":
        return kind, {"attacker": me, "defender": step[1], "resist_with": step[2], "effects": []}
    if kind == "outmaneuver":
        then = {"then": step[2], "engage": others[0] if step[2] == "engage" else None}
        return kind, {"combatant": me, "opponents": [i for i in others if i != step[1]], **then}
    if kind == "sweep_attack":
        targets = [{"defender": i, "defence": step[1]} for i in others[:2]]
        return kind, {"attacker": me, "targets": targets}
    if kind == "aerial_pass":
        return kind, {"combatant": step[1], "opponents": [i for i in IDS if i != step[1]][:2]}
    if kind == "mount":
        return kind, {"rider": me, "mount": "horse" if step[1] else None}
    if kind == "mounted_withdraw":
        return kind, {"rider": me, "opponents": [i for i in others if i != "horse"]}
    if kind == "exchange":
        return kind, {"attacker": me, "defender": step[1], "defence": step[2], "effects": []}
    if kind == "defend_mount":
        rider = state["combatants"]["horse"]["conditions"].get("ridden", {}).get("by", "a")
        body = {"attacker": me, "defender": "horse", "defended_by": rider, "effects": []}
        return "exchange", {**body, "defended_with": step[1], "parry_weapon": "heater"}
    if kind == "choose":
        token = min(state.get("pending", {}), default="x0")
        return "choose_effects", {"token": token, "effects": []}
    return kind, {}


def run(model: RulesetBase, kind: str, body: dict[str, Any], state: JSON, source: Any) -> JSON:
    req = {"id": "r", "ruleset": "combat-styles", "type": kind, "body": body}
    return resolve(Request.model_validate(req), ENGINE, model, "hash", state, source)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, max_size=20), seed=st.binary(min_size=16, max_size=16))
def test_any_sequence_of_manoeuvres_is_decided_or_refused_and_replays_exactly(
    model: RulesetBase, steps: list[tuple[Any, ...]], seed: bytes
) -> None:
    source = KeyedSource(seed)
    horse = fighter(
        "horse",
        characteristics={"str": 25, "con": 15, "siz": 25, "dex": 10, "int": 5},
        quadruped=True,
        weapons=[],
        movement=12,
    )
    blocks = [fighter(i, skills={"ride": 50, "fly": 40}, movement=8) for i in IDS[:3]] + [horse]
    state = run(model, "start_encounter", {"combatants": blocks}, None, source)["state"]
    state = run(model, "initiative", {}, state, source)["state"]
    for step in steps:
        kind, body = request(step, state)
        before = json.dumps(state, sort_keys=True)
        try:
            outcome = run(model, kind, body, state, source)
        except EngineError as err:
            assert str(err)
            continue
        assert json.dumps(state, sort_keys=True) == before  # the input is never mutated
        assert json.loads(json.dumps(outcome)) == outcome
        again = ScriptedSource(d["result"] for d in outcome["dice"])
        assert run(model, kind, body, json.loads(before), again) == outcome
        state = outcome["state"] or state
        for c in state["combatants"].values():
            assert 0 <= c["ap"] <= c["action_points_max"]
