"""Random sequences of encounter requests: every request either succeeds or is refused with
an EngineError, and the state stays consistent and plain JSON."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.combat_styles.encounter.combatants import taken_in
from arbiter.bridge.engine.combat_styles.rounds import current
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import fighter

IDS = ["a", "b", "c"]
STEP = st.one_of(
    st.tuples(
        st.just("exchange_now"), st.sampled_from(IDS), st.sampled_from(["parry", "evade", "none"])
    ),
    st.tuples(
        st.just("exchange_now"), st.sampled_from(IDS), st.sampled_from(["parry", "evade", "none"])
    ),
    st.tuples(
        st.just("exchange"),
        st.sampled_from(IDS),
        st.sampled_from(IDS),
        st.sampled_from(["parry", "evade", "none"]),
    ),
    st.tuples(st.sampled_from(["next_turn", "next_cycle", "next_round", "state"])),
    st.tuples(st.sampled_from(["delay", "interrupt"]), st.sampled_from(IDS)),
    st.tuples(
        st.just("act"),
        st.sampled_from(IDS),
        st.sampled_from(["ready_weapon", "brace", "dither", "struggle", "evade"]),
    ),
    st.tuples(st.just("choose")),
)


def request(step: tuple[Any, ...], state: JSON) -> tuple[str, dict[str, Any]]:
    kind = step[0]
    if kind == "exchange_now":  # the combatant whose turn it is attacks
        return "exchange", {
            "attacker": current(taken_in(state) or state) or "a",
            "defender": step[1],
            "defence": step[2],
        }
    if kind == "exchange":
        return "exchange", {"attacker": step[1], "defender": step[2], "defence": step[3]}
    if kind in ("delay", "interrupt"):
        return kind, {"combatant": step[1]}
    if kind == "act":
        return "act", {"combatant": step[1], "action": step[2]}
    if kind == "choose":
        pending = sorted(state.get("pending", {}))
        token = pending[0] if pending else "x0"
        won = state.get("pending", {}).get(token, {})
        simple = [
            e["id"] for e in won.get("eligible", []) if e["id"] in ("bleed", "withdraw", "arise")
        ]
        return "choose_effects", {"token": token, "effects": [{"id": i} for i in simple[:1]]}
    return kind, {}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, max_size=25), seed=st.binary(min_size=16, max_size=16))
def test_any_sequence_of_requests_is_decided_or_refused_with_a_reason(
    model: RulesetBase, steps: list[tuple[Any, ...]], seed: bytes
) -> None:
    source = KeyedSource(seed)

    def resolve(kind: str, body: dict[str, Any], state: JSON | None) -> JSON | None:
        parsed = ENGINE.requests[kind].model_validate(body)
        return ENGINE.resolve(model, kind, parsed, state, Dice(source)).state

    state = resolve("start_encounter", {"combatants": [fighter(i) for i in IDS]}, None)
    state = resolve("initiative", {}, state)
    for step in steps:
        assert state is not None
        kind, body = request(step, state)
        snapshot = json.dumps(state, sort_keys=True)
        try:
            state = resolve(kind, body, state) or state
        except EngineError as err:
            assert str(err)
            assert json.dumps(state, sort_keys=True) == snapshot  # refused: nothing changed
            continue
        assert json.loads(json.dumps(state)) == state
        for c in state["combatants"].values():
            assert 0 <= c["ap"] <= c["action_points_max"]
        now = current(taken_in(state) or state)
        assert now is None or state["combatants"][now]["ap"] > 0
