"""Any outcome, replayed with its recorded dice, is reproduced exactly (and random exchanges with
random eligible choices never break the engine)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import KeyedSource, ScriptedSource
from arbiter.bridge.engine.envelope import Request, resolve
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import fighter

MELEE = ["dagger", "broadsword", "mace", "great_axe", "battleaxe_1h", "net", "heater", "unarmed"]
OPTION_FREE_SKIP = {"choose_location", "marksman", "force_failure", "prepare_counter"}


def run(model: RulesetBase, req: dict[str, Any], state: JSON | None, source: Any) -> JSON:
    return resolve(Request.model_validate(req), ENGINE, model, "hash", state, source)


def replayed(model: RulesetBase, req: dict[str, Any], state: JSON | None, outcome: JSON) -> JSON:
    return run(model, req, state, ScriptedSource(d["result"] for d in outcome["dice"]))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    skills=st.tuples(st.integers(5, 140), st.integers(5, 140)),
    weapon=st.sampled_from(MELEE),
    defence=st.sampled_from(["parry", "evade", "none"]),
    armor=st.sampled_from([{}, {"chest": "mail", "head": "padded"}]),
    seed=st.binary(min_size=16, max_size=16),
    pick=st.randoms(use_true_random=False),
)
def test_replaying_an_exchange_with_its_recorded_dice_reproduces_it(
    model: RulesetBase,
    skills: tuple[int, int],
    weapon: str,
    defence: str,
    armor: dict[str, str],
    seed: bytes,
    pick: Any,
) -> None:
    a = fighter(
        "a", weapons=[weapon] if weapon != "unarmed" else [], skills={"combat_style": skills[0]}
    )
    b = fighter("b", armor=armor, skills={"combat_style": skills[1], "evade": skills[1] // 2})
    start = {
        "id": "s",
        "ruleset": "combat-styles",
        "type": "start_encounter",
        "body": {"combatants": [a, b]},
    }
    state = run(model, start, None, KeyedSource(seed))["state"]
    state["phase"] = "free"
    body = {"attacker": "a", "defender": "b", "weapon": weapon, "defence": defence}
    if defence == "parry":
        body["parry_weapon"] = "heater"
    req = {"id": "x", "ruleset": "combat-styles", "type": "exchange", "body": body}
    source = KeyedSource(seed, counter=1000)
    pristine = json.loads(json.dumps(state))
    first = run(model, req, state, source)
    assert state == pristine  # the engine never mutates the state it is given
    assert json.loads(json.dumps(first)) == first  # plain JSON, as the server stores it
    assert replayed(model, req, json.loads(json.dumps(state)), first) == first
    result = first["result"]
    if result["status"] != "awaiting_effects":
        return
    eligible = [e for e in result["eligible"] if e["id"] not in OPTION_FREE_SKIP]
    chosen: list[dict[str, str]] = []
    for _ in range(result["differential"]["effects"]):
        options = [e for e in eligible if e["stackable"] or {"id": e["id"]} not in chosen]
        if options:
            chosen.append({"id": pick.choice(options)["id"]})
    choose = {
        "id": "c",
        "ruleset": "combat-styles",
        "type": "choose_effects",
        "body": {"token": result["token"], "effects": chosen},
    }
    kept = json.loads(json.dumps(first["state"]))
    try:
        second = run(model, choose, first["state"], source)
    except EngineError as err:
        # Only choices the rules forbid may be refused, and then with a reason.
        assert str(err)
        return
    assert first["state"] == kept
    assert json.loads(json.dumps(second)) == second
    assert replayed(model, choose, json.loads(json.dumps(first["state"])), second) == second
    assert second["result"]["status"] == "complete"
