"""Two ``arbiter serve --host-id`` processes for one world in a real PostgreSQL, with short
leases: one serves, the other answers 4010 ("moved") naming it. The owner SIGKILLed after 1,500
of 5,000 pipelined requests: once its lease has ended on the database's clock (polled there),
the other host takes the world over at the client's next connection; every answered roll is
logged once, the retries get the stored outcome or are decided once, the chain verifies and
``arbiter reveal`` verifies the dead owner's session. The owner SIGSTOPped while a request
waits in its socket, the other host claiming and committing, then SIGCONT: no answer leaves the
former owner, its commit lands nowhere (refused by the epoch when even its clock is fooled) and
the chain does not fork."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from arbiter.bridge.cli import main
from arbiter.bridge.stores.ownership import host_application_name
from arbiter.bridge.views import GM, project
from tests.bridge.serving import ServeProcess
from tests.bridge.support import hello_message, receive, send
from tests.bridge.test_crash import ARBITER, KILL_AFTER, SETUP, TOTAL, set_up, the_request
from tests.bridge.test_crash_postgres import fire, logged
from tests.bridge.test_server_postgres import url
from tests.support.apart import run_apart

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.support.postgres import Cluster

LEASE = "2"
"""Seconds of lease when the owner serves a handful of requests."""
LEASE_UNDER_LOAD = "5"
"""Seconds of lease while the owner decides 5,000 pipelined requests: its renewals run on the
event loop that decides them, and on this shared machine a 2 s lease (renewed every 0.67 s,
valid 1.6 s by the host's clock) ran out under that load, the world then retired by its owner
before the kill."""
UNFENCED = [sys.executable, "-m", "tests.bridge.unfenced_serve"]


def host(command: list[str], store: list[str], host_id: str, lease: str = LEASE) -> ServeProcess:
    """A host of many worlds on ``store``: with ``--world w``, it claims ``w`` at its start (if
    free); else at the first connection to ``/w/w``."""
    return ServeProcess(command, None, *store, "--lease-ttl", lease, "--host-id", host_id)


def moved(address: str) -> dict[str, str]:
    """The reason of the 4010 ("moved") close a connection to ``address`` gets."""
    with connect(address, open_timeout=15) as ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(15)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4010
    return dict(json.loads(closed.value.rcvd.reason))


def lease_ended(dsn: str, timeout: float = 60) -> None:
    """Wait until the lease on world ``w`` has ended on the database's clock."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(dsn, autocommit=True) as db:
        while True:
            row = db.execute(
                "SELECT coalesce(lease_until < clock_timestamp(), true) FROM worlds WHERE id = 'w'"
            ).fetchone()
            if row == (True,):
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the lease on world 'w' did not end")
            time.sleep(0.05)


def owner(dsn: str) -> tuple[str | None, int]:
    with psycopg.connect(dsn) as db:
        row = db.execute("SELECT owner, epoch FROM worlds WHERE id = 'w'").fetchone()
    assert row is not None
    return row[0], int(row[1])


def gm(address: str, secret: str) -> ClientConnection:
    ws = connect(address, open_timeout=15, max_size=2**22)
    send(ws, hello_message(secret, events=[]))
    assert receive(ws, 15)["type"] == "welcome"
    return ws


@pytest.fixture
def world(postgres: Cluster, postgres_database: str) -> Iterator[tuple[list[str], str]]:
    """``--store URL --world w`` of a new world, and its GM's secret."""
    store = ["--store", url(postgres, postgres_database), "--world", "w"]
    secret = subprocess.run(
        [ARBITER, "token", *store], capture_output=True, text=True, check=True
    ).stdout.strip()
    yield store, secret


def test_the_owner_killed_mid_run_hands_the_world_to_the_other_host_after_its_lease(
    world: tuple[list[str], str],
    postgres: Cluster,
    postgres_database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, secret = world
    a = host([ARBITER, "serve"], store, "a", LEASE_UNDER_LOAD)
    b = host([ARBITER, "serve"], store, "b", LEASE_UNDER_LOAD)
    try:
        # One serves; the other sends the client there.
        assert moved(f"{b.url}/w/w") == {"owner": "a", "url": a.url}
        assert owner(postgres_database) == ("a", 1)
        there = f"{a.url}/w/w"
        run_apart(set_up(there, secret))
        before = run_apart(fire(there, secret, list(range(TOTAL)), a))
        assert a.proc.returncode == -signal.SIGKILL
        assert KILL_AFTER <= len(before) < TOTAL, "the kill must land mid-run"
        # The dead owner's last group commit, sent whole before the kill, may still be landing.
        postgres.wait_unused(postgres_database, host_application_name("a"))
        log = logged(postgres_database)
        for rid, reply in before.items():
            seq, outcome = log[rid]
            assert project(outcome, GM) == reply["outcome"] and seq == reply["seq"]
        committed_unanswered = set(log) - set(before)

        # Once the dead owner's lease has ended on the database's clock, the other host claims.
        lease_ended(postgres_database)
        unanswered = [n for n in range(TOTAL) if f"c-{n}" not in before]
        after = run_apart(fire(f"{b.url}/w/w", secret, unanswered, None))
        assert owner(postgres_database) == ("b", 2)
        assert len(after) == len(unanswered)
        for rid, reply in after.items():
            assert reply["replayed"] is (rid in committed_unanswered)
        # The answered ids asked again at the new owner: the stored outcomes.
        asked = list(range(0, TOTAL, 50))
        again = run_apart(fire(f"{b.url}/w/w", secret, asked, None))
        for rid, reply in again.items():
            first = before.get(rid) or after[rid]
            assert reply["replayed"] is True and reply["seq"] == first["seq"]
            assert reply["outcome"] == first["outcome"]
    finally:
        a.stop()
        b.stop()
    final = logged(postgres_database)  # asserts no id twice
    assert set(final) == {f"c-{n}" for n in range(TOTAL)} | {r["id"] for r in SETUP}

    capsys.readouterr()
    assert main(["log", "--verify", *store]) == 0
    assert f"{TOTAL + len(SETUP)} rows, hash chain intact" in capsys.readouterr().out
    with psycopg.connect(postgres_database) as db:
        # The dead owner's sessions: the set-up's and the run's (the one that logged c-0).
        dead = db.execute(
            "SELECT s.id, s.ended, count(r.seq) FROM sessions s JOIN rolls r ON r.session = s.id"
            " WHERE s.id IN (SELECT session FROM rolls WHERE request_id IN"
            " ('setup-1', 'c-0')) GROUP BY s.id, s.ended ORDER BY count(r.seq)"
        ).fetchall()
    assert len(dead) == 2 and dead[0][2] == len(SETUP) and dead[1][2] >= KILL_AFTER
    for session, ended, rolls in dead:
        assert ended is not None  # ended by the new owner's claim
        assert main(["reveal", session, *store]) == 0
        revealed = json.loads(capsys.readouterr().out)
        assert revealed["verified"] is True and revealed["rolls"] == rolls


def request(n: int) -> dict[str, Any]:
    """A check (``the_request`` of a number not divisible by 3): no encounter needed."""
    assert n % 3
    return the_request(n)


@pytest.mark.parametrize(
    "former",
    [pytest.param([ARBITER, "serve"], id="fenced"), pytest.param(UNFENCED, id="clock-fooled")],
)
def test_a_paused_owner_resumed_after_another_host_claimed_answers_nothing_and_forks_nothing(
    former: list[str],
    world: tuple[list[str], str],
    postgres_database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store, secret = world
    a = host(former, store, "a")
    # Claiming only when asked: the fooled owner renews nothing, so its lease ends on the
    # database's clock 2 s after its start, and a host started with `--world w` might claim
    # then, before the test pauses the owner.
    b = host([ARBITER, "serve"], store[:2], "b")
    try:
        first = gm(f"{a.url}/w/w", secret)
        first.send(json.dumps(request(1)))
        assert receive(first, 15)["seq"] == 1
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            # Waiting in the paused owner's socket: decided (or not) only once it resumes.
            first.send(json.dumps(request(2)))
            lease_ended(postgres_database)
            second = gm(f"{b.url}/w/w", secret)  # the claim: epoch 2, a's sessions ended
            assert owner(postgres_database) == ("b", 2)
            second.send(json.dumps(request(4)))
            assert receive(second, 15)["seq"] == 2
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        # The former owner decides the waiting request, if it decides anything, and its
        # commit is refused (by its lease's fence or, fooled, by the epoch): no outcome
        # leaves, only `unavailable`, then the close "no longer owns the world".
        heard = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                heard.append(receive(first, 15))
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4009
        assert all(m["type"] == "error" and m["code"] == "unavailable" for m in heard), heard
        if former == UNFENCED:
            # Fooled, it decided the request and tried to commit it: only the epoch in the
            # database's compare-and-append refused it.
            assert [m["id"] for m in heard] == ["c-2"]
        assert owner(postgres_database) == ("b", 2)
        # Its retry at the owner is decided there, once, after the owner's row.
        second.send(json.dumps(request(2)))
        retried = receive(second, 15)
        assert retried["replayed"] is False and retried["seq"] == 3
        second.close()
    finally:
        a.stop()
        b.stop()
    with psycopg.connect(postgres_database) as db:
        rows = db.execute("SELECT seq, request_id FROM rolls WHERE world = 'w' ORDER BY seq")
        assert rows.fetchall() == [(1, "c-1"), (2, "c-4"), (3, "c-2")]
    capsys.readouterr()
    assert main(["log", "--verify", *store]) == 0
    assert "3 rows, hash chain intact" in capsys.readouterr().out
