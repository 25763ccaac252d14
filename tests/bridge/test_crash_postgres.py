"""A killed ``arbiter serve --store postgresql://… --world ID`` loses no answered roll: the run of
tests/bridge/test_crash.py (5,000 pipelined requests, SIGKILL after 1,500 answers, a new server,
the unanswered ids sent again) on a world in a real PostgreSQL, then ``arbiter log --verify``
and ``arbiter reveal`` on the dead server's session, through the same ``--store``/``--world``."""

from __future__ import annotations

import json
import subprocess
from typing import TYPE_CHECKING, Any

import psycopg
import pytest

from arbiter.bridge.cli import main
from arbiter.bridge.views import GM, project
from tests.bridge.serving import ServeProcess
from tests.bridge.test_crash import ARBITER, KILL_AFTER, SETUP, TOTAL, fire, set_up
from tests.bridge.test_server_postgres import url
from tests.support.apart import run_apart

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


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
        before = run_apart(fire(server.url, secret, list(range(TOTAL)), server))  # type: ignore[arg-type]
    finally:
        server.stop()
    assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"
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
