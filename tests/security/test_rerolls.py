"""A hostile player re-rolls by refusal: he resends a request id until he likes the result.

Each test is the hostile client, over real websockets against a real server with the bundled
rules and the server's own keyed dice (no scripted dice: a player cannot choose them). Before
issue #12, a request refused after its dice were rolled (`dice_error`, `encounter_required`) was
not logged, so resending its id decided it again with fresh dice: a stat block whose damage
modifier the engine cannot roll refused every landed blow, and a free exchange left awaiting a
choice of special effects was refused until the dice gave none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.fairness import verify_session
from arbiter.bridge.limits import Limits
from arbiter.bridge.logreplay import replay_log
from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.loader import load_all
from tests.bridge.support import Running, receive, running, send, tiny_config

ROOT = Path(__file__).resolve().parents[2]


def example() -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "docs" / "examples" / "combat-styles.json").read_text("utf-8"))
    entries = data["requests"] if isinstance(data, dict) else data
    return {entry["id"]: entry for entry in entries}


def free_exchange(rid: str, **changes: Any) -> dict[str, Any]:
    """Vessa attacks the gate guard with her dagger; no encounter: the stat blocks travel along."""
    entries = example()
    body = {**entries["cs-3"]["body"], "combatants": entries["cs-1"]["body"]["combatants"]}
    request = {"id": rid, "ruleset": "combat-styles", "type": "exchange", "body": body | changes}
    return {"v": 1, "type": "request", "request": request}


def dice_rolled(srv: Running) -> int:
    """Keyed dice blocks the server has drawn for its (one) connected client so far."""
    [client] = srv.server.clients
    return client.keyed.counter


def test_a_stat_block_with_a_damage_modifier_beyond_the_engine_is_refused_before_any_die(
    tmp_path: Path,
) -> None:
    combatants = example()["cs-1"]["body"]["combatants"]
    vessa = next(i for i, c in enumerate(combatants) if c["id"] == "vessa")
    strong = [c | {"damage_modifier": "201d6"} if c["id"] == "vessa" else c for c in combatants]
    with running(tiny_config(tmp_path, rules=RuleSource())) as srv:
        ws, _ = srv.hello(events=[])
        replies = []
        for _ in range(12):
            send(ws, free_exchange("blow-1", combatants=strong, effects=[]))
            replies.append(receive(ws))
        start = example()["cs-1"] | {"id": "start-1", "encounter": "yard"}
        send(ws, {"v": 1, "type": "request", "request": start | {"body": {"combatants": strong}}})
        started = receive(ws)
        rolled = dice_rolled(srv)
        ws.close()
        rows = srv.server.store.count()
    field = f"body.combatants.{vessa}.damage_modifier"
    for reply in [*replies, started]:
        assert reply["type"] == "error" and reply["code"] == "invalid_request", reply
        assert field in reply["message"] and "201 dice" in reply["message"], reply
    assert all(reply == replies[0] for reply in replies)
    # Refused at the door: not one die rolled, nothing logged, so nothing to re-roll.
    assert rolled == 0 and rows == 0


def test_resending_a_free_exchange_without_effects_never_rolls_its_dice_again(
    tmp_path: Path,
) -> None:
    with running(tiny_config(tmp_path, rules=RuleSource())) as srv:
        ws, _ = srv.hello(events=[])
        replies = []
        for _ in range(40):
            send(ws, free_exchange("greedy-1"))
            reply = receive(ws)
            replies.append(reply)
            if reply["type"] == "outcome":
                break  # the hostile player got a result he can use: he stops here
        rolled = dice_rolled(srv)
        ws.close()
        rows = srv.server.store.count()
    assert len(replies) == 40 and all(reply == replies[0] for reply in replies), replies[-1]
    assert replies[0]["code"] == "encounter_required" and replies[0]["id"] == "greedy-1"
    assert "must carry 'effects'" in replies[0]["message"]
    # Whatever the dice would have said, none was rolled: every resend is the same refusal.
    assert rolled == 0 and rows == 0


def test_a_request_refused_after_its_dice_is_logged_once_and_resent_gets_the_same_error(
    tmp_path: Path,
) -> None:
    # A budget of one die: the attack roll is rolled, the parry roll is over the budget.
    limits = Limits(auth_timeout_seconds=2.0, max_dice_per_request=1)
    with running(tiny_config(tmp_path, rules=RuleSource(), limits=limits)) as srv:
        ws, welcome = srv.hello(events=[])
        replies = []
        for _ in range(10):
            send(ws, free_exchange("over-1", effects=[]))
            replies.append(receive(ws))
        rolled = dice_rolled(srv)
        ws.close()
        store = srv.server.store
        rows = list(store.rolls())
        chain = store.verify_chain()
        session = store.session(welcome["session"])
    assert all(reply == replies[0] for reply in replies)
    assert replies[0] == {
        "v": 1,
        "type": "error",
        "id": "over-1",
        "code": "dice_error",
        "message": "the request needs more than 1 dice, over the budget",
        "retry_after": None,
    }
    [row] = rows
    outcome = json.loads(row.entry.outcome)
    assert row.entry.request_id == "over-1" and chain == []
    assert outcome["result"] == {
        "kind": "refused",
        "code": "dice_error",
        "message": "the request needs more than 1 dice, over the budget",
    }
    assert [d["expr"] for d in outcome["dice"]] == ["1d100 attack"] and outcome["state"] is None
    # One die was rolled, once: the resends rolled nothing.
    assert rolled >= 1 and row.entry.counter == 0
    # The refusal is re-derived from its die, and the die from the session's seed.
    assert replay_log(rows, load_all()).matched == 1
    assert session is not None
    check = verify_session(bytes.fromhex(session.seed), session.commitment, rows)
    assert check.ok and check.dice == 1
