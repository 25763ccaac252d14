"""Failover to a synchronous standby under a real ``arbiter serve --store postgresql://…``: the
primary is stopped immediately (``pg_ctl stop -m immediate``, a crash) while a client streams
5,000 pipelined requests, the standby is promoted (``pg_ctl promote``), and a new server on the
promoted standby answers the retries. Every roll the client was told is on the standby, each
unanswered id is decided exactly once, the chain verifies, and ``arbiter reveal`` verifies the
session the dead primary's server held."""

from __future__ import annotations

import asyncio
import json
import subprocess
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from arbiter.bridge.cli import main
from arbiter.bridge.views import GM, project
from tests.bridge.serving import ServeProcess
from tests.bridge.support import hello_message
from tests.bridge.test_crash import ARBITER, KILL_AFTER, SETUP, TOTAL, set_up, the_request
from tests.bridge.test_crash_postgres import WINDOW, logged
from tests.bridge.test_server_postgres import url
from tests.support.apart import run_apart

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.support.postgres import Replicated


async def stream(
    address: str, secret: str, numbers: list[int], interrupt: Callable[[], None] | None
) -> tuple[dict[str, Any], set[str]]:
    """Send the requests, at most WINDOW unanswered, and read one answer for each request sent.
    After KILL_AFTER outcomes, call ``interrupt`` and send nothing more. Returns the outcomes by
    id and the ids answered ``unavailable`` (nothing decided for them)."""
    outcomes: dict[str, Any] = {}
    unavailable: set[str] = set()
    window = asyncio.Semaphore(WINDOW)
    sent = 0
    async with connect(address, compression=None, max_size=2**22) as ws:
        await ws.send(json.dumps(hello_message(secret, events=[])))
        assert json.loads(await ws.recv())["type"] == "welcome"

        async def sender() -> None:
            nonlocal sent
            for n in numbers:
                await window.acquire()
                await ws.send(json.dumps(the_request(n)))
                sent += 1

        task = asyncio.create_task(sender())
        try:
            while task.done() is False or len(outcomes) + len(unavailable) < sent:
                reply = json.loads(await ws.recv())
                if reply["type"] == "error" and reply["code"] == "rate_limited":
                    # Too many resends of rows read back from the database at once (a world's
                    # cache holds the last rows only): nothing decided; sent again, the same id.
                    await asyncio.sleep(reply["retry_after"])
                    await ws.send(json.dumps(the_request(int(reply["id"].removeprefix("c-")))))
                    continue
                if reply["type"] == "error":
                    assert reply["code"] == "unavailable", reply
                    unavailable.add(reply["id"])
                else:
                    assert reply["type"] == "outcome", reply
                    outcomes[reply["outcome"]["id"]] = reply
                window.release()
                if interrupt is not None and len(outcomes) == KILL_AFTER:
                    task.cancel()  # what is sent by now is answered, one way or the other
                    await asyncio.gather(task, return_exceptions=True)
                    interrupt()
                    interrupt = None
        except ConnectionClosed:
            pass
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    assert not set(outcomes) & unavailable
    return outcomes, unavailable


def test_a_promoted_synchronous_standby_holds_every_acknowledged_roll_and_the_server_goes_on(
    replicated_postgres: Replicated, capsys: pytest.CaptureFixture[str]
) -> None:
    primary, standby = replicated_postgres.primary, replicated_postgres.standby
    on_primary = ["--store", url(primary, primary.dsn()), "--world", "w"]
    secret = subprocess.run(
        [ARBITER, "token", *on_primary], capture_output=True, text=True, check=True
    ).stdout.strip()
    server = ServeProcess([ARBITER, "serve"], None, *on_primary)
    try:
        run_apart(set_up(server.url, secret))
        # The primary crashes (no checkpoint, no goodbye to anyone) with requests in flight.
        before, _ = run_apart(
            stream(server.url, secret, list(range(TOTAL)), lambda: primary.stop("immediate"))
        )
    finally:
        server.kill()
        server.stop()
    assert KILL_AFTER <= len(before) < TOTAL, "the crash must land mid-run"
    assert not primary.running()
    standby.promote()

    log = logged(standby.dsn())
    for rid, reply in before.items():
        seq, outcome = log[rid]  # every acknowledged roll survived on the standby
        assert project(outcome, GM) == reply["outcome"] and seq == reply["seq"]
    # An id answered `unavailable` may be in the log all the same: its COMMIT reached the
    # standby, and the primary died before acknowledging it, so the server could not tell.
    # Its retry must then get the stored outcome, never a second decision (below).
    committed_unanswered = set(log) - set(before)

    on_standby = ["--store", url(standby, standby.dsn()), "--world", "w"]
    server = ServeProcess([ARBITER, "serve"], None, *on_standby)
    try:
        unanswered = [n for n in range(TOTAL) if f"c-{n}" not in before]
        after, refused_after = run_apart(stream(server.url, secret, unanswered, None))
        # Asked once more, every id of the run is answered from the log.
        again, _ = run_apart(stream(server.url, secret, list(range(0, TOTAL, 97)), None))
    finally:
        server.stop()
    assert not refused_after and len(after) == len(unanswered)
    for rid, reply in after.items():
        assert reply["replayed"] is (rid in committed_unanswered)
    assert all(reply["replayed"] is True for reply in again.values())
    final = logged(standby.dsn())  # asserts no id twice
    assert set(final) == {f"c-{n}" for n in range(TOTAL)} | {r["id"] for r in SETUP}
    for rid, reply in {**before, **after}.items():
        assert final[rid][0] == reply["seq"]

    capsys.readouterr()
    assert main(["log", "--verify", *on_standby]) == 0
    assert f"{TOTAL + len(SETUP)} rows, hash chain intact" in capsys.readouterr().out
    with psycopg.connect(standby.dsn()) as db:
        # The sessions of the server that served the crashed primary: the set-up's and the
        # run's (the one that logged c-0), ended when the new server opened the world.
        dead = db.execute(
            "SELECT s.id, s.ended, count(r.seq) FROM sessions s JOIN rolls r ON r.session = s.id"
            " WHERE s.id IN (SELECT session FROM rolls WHERE request_id IN"
            " ('setup-1', 'c-0')) GROUP BY s.id, s.ended ORDER BY count(r.seq)"
        ).fetchall()
    assert len(dead) == 2 and dead[0][2] == len(SETUP) and dead[1][2] >= KILL_AFTER
    for session, ended, rolls in dead:
        assert ended is not None
        assert main(["reveal", session, *on_standby]) == 0
        revealed = json.loads(capsys.readouterr().out)
        assert revealed["verified"] is True and revealed["rolls"] == rolls
