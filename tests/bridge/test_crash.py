"""A crash test: the real ``arbiter serve`` with the bundled rules is SIGKILLed while a client
fires 5,000 requests (combat-styles checks, and rounds advanced in one encounter).

Whatever the client was told must be in the log; after a restart, retrying every unanswered id
succeeds exactly once; no id is logged twice; the encounter's rounds count on from where the
log says they stood; the hash chain is intact.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from arbiter.bridge.store import Store
from arbiter.bridge.views import GM, project
from tests.bridge.serving import ServeProcess
from tests.bridge.support import hello_message
from tests.support.apart import run_apart

TOTAL = 5000
KILL_AFTER = 1500


ARBITER = str(Path(sys.executable).parent / "arbiter")
FIGHTER = {
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear"],
}
SETUP = [
    {
        "id": "setup-1",
        "ruleset": "combat-styles",
        "type": "start_encounter",
        "encounter": "e",
        "body": {"combatants": [{"id": "a", **FIGHTER}, {"id": "b", **FIGHTER}]},
    },
    {
        "id": "setup-2",
        "ruleset": "combat-styles",
        "type": "initiative",
        "encounter": "e",
        "body": {},
    },
]
"""The encounter whose rounds the run advances (initiative puts it in round 1)."""


class ServerProcess(ServeProcess):
    """``arbiter serve`` (the installed command) on a free port, without a module build."""

    def __init__(self, data: Path) -> None:
        super().__init__([ARBITER, "serve"], data)


def the_request(n: int) -> dict[str, Any]:
    if n % 3 == 0:
        req = {
            "id": f"c-{n}",
            "ruleset": "combat-styles",
            "type": "next_round",
            "body": {},
            "encounter": "e",
        }
    else:
        req = {"id": f"c-{n}", "ruleset": "combat-styles", "type": "check", "body": {"skill": 50}}
    return {"v": 1, "type": "request", "request": req}


async def set_up(url: str, secret: str) -> None:
    """Start the encounter and roll its initiative, one request after the other."""
    async with connect(url, compression=None) as ws:
        await ws.send(json.dumps(hello_message(secret, events=[])))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for request in SETUP:
            await ws.send(json.dumps({"v": 1, "type": "request", "request": request}))
            assert json.loads(await ws.recv())["type"] == "outcome"


async def fire(
    url: str, secret: str, numbers: list[int], server: ServerProcess | None
) -> dict[str, Any]:
    """Send the requests pipelined; kill ``server`` after KILL_AFTER answers. Returns answers."""
    answers: dict[str, Any] = {}
    async with connect(url, compression=None, max_size=2**22) as ws:
        await ws.send(json.dumps(hello_message(secret, events=[])))
        assert json.loads(await ws.recv())["type"] == "welcome"

        async def sender() -> None:
            for n in numbers:
                await ws.send(json.dumps(the_request(n)))

        task = asyncio.create_task(sender())
        try:
            while len(answers) < len(numbers):
                reply = json.loads(await ws.recv())
                assert reply["type"] == "outcome", reply
                answers[reply["outcome"]["id"]] = reply
                if server is not None and len(answers) == KILL_AFTER:
                    server.kill()
        except ConnectionClosed:
            pass
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return answers


def logged(data: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    with sqlite3.connect(data / "arbiter.sqlite3") as db:
        rows = list(db.execute("SELECT seq, request_id, outcome FROM rolls"))
    ids = [r[1] for r in rows]
    assert len(ids) == len(set(ids)), "an id appears twice in the log"
    return {r[1]: (r[0], json.loads(r[2])) for r in rows}


def test_a_killed_server_loses_no_answered_roll_and_retries_succeed_exactly_once(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    server = ServerProcess(data)
    secret = (data / "world.secret").read_text().strip()
    try:
        run_apart(set_up(server.url, secret))
        before = run_apart(fire(server.url, secret, list(range(TOTAL)), server))
    finally:
        server.stop()
    assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"

    log = logged(data)
    for rid, reply in before.items():
        seq, outcome = log[rid]
        assert project(outcome, GM) == reply["outcome"] and seq == reply["seq"]
    committed_unanswered = set(log) - set(before)

    server = ServerProcess(data)
    try:
        unanswered = [n for n in range(TOTAL) if f"c-{n}" not in before]
        after = run_apart(fire(server.url, secret, unanswered, None))
    finally:
        server.stop()
    assert len(after) == len(unanswered)
    for rid, reply in after.items():
        assert reply["replayed"] is (rid in committed_unanswered)
        if rid in committed_unanswered:
            assert reply["outcome"] == project(log[rid][1], GM)

    final = logged(data)
    assert set(final) == {f"c-{n}" for n in range(TOTAL)} | {r["id"] for r in SETUP}
    rounds = sorted(
        o["result"]["round"] for _, o in final.values() if o["result"]["kind"] == "next_round"
    )
    assert len(rounds) == len(range(0, TOTAL, 3))
    assert rounds == list(range(2, len(rounds) + 2)), "encounter state survived the crash"
    store = Store(data / "arbiter.sqlite3")
    assert store.verify_chain() == []
    assert all(s.ended is not None for s in store.sessions())
    store.close()
