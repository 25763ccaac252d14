"""A killed ``arbiter serve --store postgresql://… --world ID`` loses no answered roll: the run of
tests/bridge/test_crash.py (5,000 pipelined requests, SIGKILL after 1,500 answers, a new server,
the unanswered ids sent again) on a world in a real PostgreSQL, then ``arbiter log --verify``
and ``arbiter reveal`` on the dead server's session, through the same ``--store``/``--world``;
and the command stopping (4009, exit status 3) once another writer moved its world."""

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
from tests.bridge.test_server_postgres import url
from tests.support.apart import run_apart

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


WINDOW = 200
"""Requests in flight at most: a PostgreSQL group commit answers hundreds at once, so without
a window the server would have answered all 5,000 before the client read 1,500 of them."""


async def fire(
    url: str, secret: str, numbers: list[int], server: ServeProcess | None
) -> dict[str, Any]:
    """Send the requests, at most WINDOW unanswered; kill ``server`` after KILL_AFTER
    answers. Returns the answers."""
    answers: dict[str, Any] = {}
    window = asyncio.Semaphore(WINDOW)
    async with connect(url, compression=None, max_size=2**22) as ws:
        await ws.send(json.dumps(hello_message(secret, events=[])))
        assert json.loads(await ws.recv())["type"] == "welcome"

        async def sender() -> None:
            for n in numbers:
                await window.acquire()
                await ws.send(json.dumps(the_request(n)))

        task = asyncio.create_task(sender())
        try:
            while len(answers) < len(numbers):
                reply = json.loads(await ws.recv())
                if reply["type"] == "error" and reply["code"] == "rate_limited":
                    # Too many resends of rows read back from the database at once (a world's
                    # cache holds the last rows only): nothing decided; sent again, the same id.
                    await asyncio.sleep(reply["retry_after"])
                    await ws.send(json.dumps(the_request(int(reply["id"].removeprefix("c-")))))
                    continue
                assert reply["type"] == "outcome", reply
                answers[reply["outcome"]["id"]] = reply
                window.release()
                if server is not None and len(answers) == KILL_AFTER:
                    server.kill()
        except ConnectionClosed:
            pass
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return answers


def logged(dsn: str) -> dict[str, tuple[int, dict[str, Any]]]:
    with psycopg.connect(dsn) as db:
        rows = db.execute("SELECT seq, request_id, outcome FROM rolls WHERE world = 'w'").fetchall()
    ids = [r[1] for r in rows]
    assert len(ids) == len(set(ids)), "an id appears twice in the log"
    return {r[1]: (r[0], json.loads(r[2])) for r in rows}


def test_a_killed_postgresql_server_loses_no_answered_roll_and_reveal_verifies_its_session(
    postgres: Cluster, postgres_database: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ["--store", url(postgres, postgres_database), "--world", "w"]
    secret = subprocess.run(
        [ARBITER, "token", *store], capture_output=True, text=True, check=True
    ).stdout.strip()
    server = ServeProcess([ARBITER, "serve"], None, *store)
    try:
        run_apart(set_up(server.url, secret))
        before = run_apart(fire(server.url, secret, list(range(TOTAL)), server))
    finally:
        server.stop()
    assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"
    # The dead server's last group commit, sent whole before the kill, may still be landing.
    postgres.wait_unused(postgres_database)
    log = logged(postgres_database)
    for rid, reply in before.items():
        seq, outcome = log[rid]
        assert project(outcome, GM) == reply["outcome"] and seq == reply["seq"]
    committed_unanswered = set(log) - set(before)

    server = ServeProcess([ARBITER, "serve"], None, *store)
    try:
        unanswered = [n for n in range(TOTAL) if f"c-{n}" not in before]
        after = run_apart(fire(server.url, secret, unanswered, None))
    finally:
        server.stop()
    assert len(after) == len(unanswered)
    for rid, reply in after.items():
        assert reply["replayed"] is (rid in committed_unanswered)
    assert set(logged(postgres_database)) == {f"c-{n}" for n in range(TOTAL)} | {
        r["id"] for r in SETUP
    }

    capsys.readouterr()
    assert main(["log", "--verify", *store]) == 0
    assert f"{TOTAL + len(SETUP)} rows, hash chain intact" in capsys.readouterr().out
    with psycopg.connect(postgres_database) as db:
        # The dead server's session (the restart ended it): the one that logged c-0.
        [(dead,)] = db.execute("SELECT session FROM rolls WHERE request_id = 'c-0'").fetchall()
        ended = db.execute("SELECT ended FROM sessions WHERE id = %s", (dead,)).fetchone()
    assert ended is not None and ended[0] is not None
    assert main(["reveal", dead, *store]) == 0
    revealed = json.loads(capsys.readouterr().out)
    assert revealed["verified"] is True and revealed["rolls"] >= KILL_AFTER


def test_arbiter_serve_exits_with_status_3_once_another_writer_moved_its_world(
    postgres: Cluster, postgres_database: str
) -> None:
    from arbiter.bridge.stores.postgres import PostgresStore
    from tests.support.rolls import new_roll

    store = ["--store", url(postgres, postgres_database), "--world", "w"]
    server = ServeProcess([ARBITER, "serve"], None, *store)

    async def another_writer() -> None:
        other = await PostgresStore.open(postgres_database, "w")
        other.stage(new_roll("theirs"))
        await other.flush()
        await other.close()

    async def ask(secret: str) -> int | None:
        async with connect(server.url) as ws:
            await ws.send(json.dumps(hello_message(secret, events=[])))
            assert json.loads(await ws.recv())["type"] == "welcome"
            run_apart(another_writer())
            await ws.send(json.dumps(the_request(1)))
            assert json.loads(await ws.recv())["code"] == "unavailable"
            with pytest.raises(ConnectionClosed) as closed:
                await ws.recv()
            return closed.value.rcvd.code if closed.value.rcvd else None

    try:
        secret = subprocess.run(
            [ARBITER, "token", *store], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert run_apart(ask(secret)) == 4009
        assert server.proc.wait(30) == 3
    finally:
        server.stop()
