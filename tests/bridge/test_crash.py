"""A crash test: the server process is SIGKILLed while a client fires 5,000 requests.

Whatever the client was told must be in the log; after a restart, retrying every unanswered id
succeeds exactly once; no id is logged twice; the hash chain is intact.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bridge.store import Store
from bridge.views import GM, project
from tests.bridge.support import hello_message, write_rules

ROOT = Path(__file__).resolve().parents[2]
TOTAL = 5000
KILL_AFTER = 1500


class ServerProcess:
    def __init__(self, data: Path, rules: Path) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.bridge.serve_tiny",
                str(rules),
                "--data",
                str(data),
                "--port",
                "0",
                "--rate",
                "1000000",
                "--burst",
                "1000000",
                "--reload-interval",
                "0",
                "--no-build",
                "--quiet",
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("arbiter serve: ws://"), line
        self.url = line.split()[2]

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


def the_request(n: int) -> dict[str, Any]:
    if n % 3 == 0:
        req = {
            "id": f"c-{n}",
            "ruleset": "tiny",
            "type": "tally",
            "body": {"add": 1},
            "encounter": "e",
        }
    else:
        req = {"id": f"c-{n}", "ruleset": "tiny", "type": "check", "body": {"skill": 50}}
    return {"v": 1, "type": "request", "request": req}


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
    data, rules = tmp_path / "data", write_rules(tmp_path / "rules")
    server = ServerProcess(data, rules)
    secret = (data / "world.secret").read_text().strip()
    try:
        before = asyncio.run(fire(server.url, secret, list(range(TOTAL)), server))
    finally:
        server.stop()
    assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"

    log = logged(data)
    for rid, reply in before.items():
        seq, outcome = log[rid]
        assert project(outcome, GM) == reply["outcome"] and seq == reply["seq"]
    committed_unanswered = set(log) - set(before)

    server = ServerProcess(data, rules)
    try:
        unanswered = [n for n in range(TOTAL) if f"c-{n}" not in before]
        after = asyncio.run(fire(server.url, secret, unanswered, None))
    finally:
        server.stop()
    assert len(after) == len(unanswered)
    for rid, reply in after.items():
        assert reply["replayed"] is (rid in committed_unanswered)
        if rid in committed_unanswered:
            assert reply["outcome"] == project(log[rid][1], GM)

    final = logged(data)
    assert set(final) == {f"c-{n}" for n in range(TOTAL)}
    tallies = sorted(
        o["result"]["total"] for _, o in final.values() if o["result"]["kind"] == "tally"
    )
    assert tallies == list(range(1, len(tallies) + 1)), "encounter state survived the crash"
    store = Store(data / "arbiter.sqlite3")
    assert store.verify_chain() == []
    assert all(s.ended is not None for s in store.sessions())
    store.close()
