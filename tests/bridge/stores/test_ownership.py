"""Fenced ownership (bridge/stores/ownership.py) on a real PostgreSQL: leases on the database's
clock, claims that move the epoch on, and a former owner that commits nothing once claimed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg
import pytest

from arbiter.bridge.records import Session
from arbiter.bridge.stores import StaleWriter
from arbiter.bridge.stores.ownership import DRIFT, Claimed, Host, Lease, Owned, local_term
from arbiter.bridge.stores.postgres import PostgresStore
from tests.support.apart import run_apart
from tests.support.rolls import new_roll

if TYPE_CHECKING:
    from tests.support.postgres import Cluster

ROOT = Path(__file__).resolve().parents[3]
URL_A = "wss://a.example/w/w"
URL_B = "wss://b.example/w/w"


class StillClock:
    """A host clock that moves only when the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def wait_lease_over(dsn: str, world: str) -> None:
    """Until the world's lease has ended on the database's clock (polling the database; the
    limit is a guard against a hang, not a measure of speed)."""
    limit = time.monotonic() + 60
    with psycopg.connect(dsn, autocommit=True) as db:
        while time.monotonic() < limit:
            row = db.execute(
                "SELECT lease_until <= clock_timestamp() FROM worlds WHERE id = %s", (world,)
            ).fetchone()
            if row is not None and row[0]:
                return
            time.sleep(0.05)
    raise AssertionError(f"the lease on {world!r} never ended")


def wait_for_a_lock_wait(dsn: str) -> None:
    """Until a backend of this database waits for a lock (polling, as above)."""
    limit = time.monotonic() + 60
    with psycopg.connect(dsn, autocommit=True) as db:
        while time.monotonic() < limit:
            row = db.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).fetchone()
            if row is not None and row[0]:
                return
            time.sleep(0.05)
    raise AssertionError("nobody waited for a lock")


def session(sid: str, ended: float | None = None) -> Session:
    return Session(sid, "seed", "commitment", "gm", "foundry", 1.0, ended)


def claimed(result: Claimed | Owned) -> Claimed:
    assert isinstance(result, Claimed), result
    return result


def test_two_hosts_contend_for_one_world_one_owns_it_and_the_other_is_told_who_and_where(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=30)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        first = claimed(await a.claim("w"))
        assert (first.epoch, first.previous, first.ended_sessions) == (1, None, 0)
        assert first.lease.valid()
        assert await b.claim("w") == Owned("w", "host-a", URL_A)
        # Claiming again what it holds keeps the epoch (and the lease object).
        again = claimed(await a.claim("w"))
        assert again.epoch == 1 and again.lease is first.lease
        assert b.leases == {} and set(a.leases) == {"w"}
        await a.close()
        await b.close()

    run_apart(body())


def test_when_the_owners_lease_ends_on_the_database_clock_another_host_claims_the_world(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=1, margin=0.1)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        former = claimed(await a.claim("w")).lease
        await asyncio.to_thread(wait_lease_over, postgres_database, "w")
        taken = claimed(await b.claim("w"))
        assert (taken.epoch, taken.previous) == (2, "host-a")
        assert await a.claim("w") == Owned("w", "host-b", URL_B)
        # Told so, host a counts on its former lease no more.
        assert former.lost and not former.valid() and a.leases == {}
        await a.close()
        await b.close()

    run_apart(body())


def test_a_new_owner_moves_the_epoch_on_ends_the_open_sessions_and_fences_the_former_store(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=1, margin=0.1)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        mine = claimed(await a.claim("w"))
        old = await a.open_store(mine)
        assert old.epoch == 1
        old.open_session(session("open"))
        old.open_session(session("done", ended=5.0))
        old.stage(new_roll("a"))
        await old.flush()
        await asyncio.to_thread(wait_lease_over, postgres_database, "w")
        taken = claimed(await b.claim("w"))
        assert (taken.epoch, taken.ended_sessions) == (2, 1)
        new = await b.open_store(taken)
        assert [(s.id, s.ended is None) for s in new.sessions()] == [
            ("open", False),
            ("done", False),
        ]
        assert new.session("done") == session("done", ended=5.0)
        new.stage(new_roll("b"))
        await new.flush()
        # The former owner's next commit is refused by the epoch; nothing of it lands.
        old.stage(new_roll("c"))
        old.open_session(session("late"))
        with pytest.raises(StaleWriter, match="epoch past 1"):
            await old.flush()
        for store in (old, new):
            await store.close()
        check = await PostgresStore.open(postgres_database, "w")
        assert [r.entry.request_id for r in check.rolls()] == ["a", "b"]
        assert check.verify_chain() == [] and check.session("late") is None
        await check.close()
        await a.close()
        await b.close()

    run_apart(body())


def test_a_store_cannot_be_opened_under_an_epoch_claimed_since(postgres_database: str) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=30)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        mine = claimed(await a.claim("w"))
        await a.release()
        assert not mine.lease.valid() and a.leases == {}
        # Released: the next host takes it at once, without waiting for the lease.
        taken = claimed(await b.claim("w"))
        assert (taken.epoch, taken.previous) == (2, None)
        with pytest.raises(StaleWriter, match="claimed again"):
            await a.open_store(mine)
        await a.close()
        await b.close()

    run_apart(body())


def test_a_restarted_host_takes_its_worlds_back_at_once_and_its_previous_run_is_fenced(
    postgres_database: str,
) -> None:
    async def body() -> None:
        before = Host(postgres_database, "host-a", URL_A, ttl=30)
        old = await before.open_store(claimed(await before.claim("w")))
        old.open_session(session("s-before"))
        old.stage(new_roll("a"))
        await old.flush()
        after = Host(postgres_database, "host-a", URL_A, ttl=30)
        back = claimed(await after.claim("w"))
        assert (back.epoch, back.previous, back.ended_sessions) == (2, "host-a", 1)
        old.stage(new_roll("b"))
        with pytest.raises(StaleWriter):
            await old.flush()
        assert await before.renew() == ["w"]
        await old.close()
        await before.close()
        await after.close()

    run_apart(body())


def test_renew_extends_every_lease_the_host_still_holds_and_names_the_worlds_it_lost(
    postgres_database: str,
) -> None:
    async def body() -> None:
        clock = StillClock()
        a = Host(postgres_database, "host-a", URL_A, ttl=1, margin=0.1, clock=clock)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        kept = claimed(await a.claim("w1")).lease
        lost = claimed(await a.claim("w2")).lease
        for world in ("w1", "w2"):
            await asyncio.to_thread(wait_lease_over, postgres_database, world)
        claimed(await b.claim("w2"))
        clock.now += 0.95  # past the local term of the claims (0.798 s)
        assert not kept.valid() and not lost.valid()
        assert await a.renew() == ["w2"]
        # Nobody took w1: the renewal extends it (its epoch never moved), on both clocks.
        assert kept.valid() and not lost.valid() and lost.lost
        assert set(a.leases) == {"w1"}
        with psycopg.connect(postgres_database, autocommit=True) as db:
            rows = db.execute(
                "SELECT id, owner, lease_until > clock_timestamp() FROM worlds ORDER BY id"
            ).fetchall()
        assert rows == [("w1", "host-a", True), ("w2", "host-b", True)]
        assert await a.renew() == []
        await a.close()
        await b.close()

    run_apart(body())


def test_a_renewal_answered_late_counts_from_when_it_was_sent(postgres_database: str) -> None:
    async def body() -> None:
        clock = StillClock()
        a = Host(postgres_database, "host-a", URL_A, ttl=10, margin=1, clock=clock)
        lease = claimed(await a.claim("w")).lease
        sent = clock.now
        assert lease.deadline == sent + local_term(10, 1)
        with psycopg.connect(postgres_database) as blocker:
            # Another transaction holds the world's row: the renewal waits for it.
            blocker.execute("SELECT 1 FROM worlds WHERE id = 'w' FOR UPDATE")
            renewing = asyncio.create_task(a.renew())
            await asyncio.to_thread(wait_for_a_lock_wait, postgres_database)
            clock.now += 100  # the answer comes 100 s (on the host's clock) after the send
            blocker.commit()
        assert await renewing == []
        assert lease.deadline == sent + local_term(10, 1)
        assert not lease.valid()
        await a.close()

    run_apart(body())


def test_a_renewal_does_not_wait_for_a_claim_held_up_by_another_hosts_commit(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=30, lock_wait=60)
        b = Host(postgres_database, "host-b", URL_B, ttl=30)
        mine = claimed(await a.claim("mine")).lease
        claimed(await b.claim("theirs"))
        with psycopg.connect(postgres_database) as blocker:
            # Host b's commit holds its world's row: host a's claim of it waits (lock_wait 60 s).
            blocker.execute("SELECT 1 FROM worlds WHERE id = 'theirs' FOR UPDATE")
            claiming = asyncio.create_task(a.claim("theirs"))
            await asyncio.to_thread(wait_for_a_lock_wait, postgres_database)
            before = mine.deadline
            assert await asyncio.wait_for(a.renew(), timeout=30) == []  # a guard, as below
            assert not claiming.done() and mine.deadline > before
            blocker.commit()
        assert isinstance(await claiming, Owned)
        await a.close()
        await b.close()

    run_apart(body())


def test_a_world_claimed_while_a_renewal_runs_is_not_named_lost_by_it(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=30)
        claimed(await a.claim("old"))
        with psycopg.connect(postgres_database) as blocker:
            # The renewal waits for the row of "old"; meanwhile "new" is claimed.
            blocker.execute("SELECT 1 FROM worlds WHERE id = 'old' FOR UPDATE")
            renewing = asyncio.create_task(a.renew())
            await asyncio.to_thread(wait_for_a_lock_wait, postgres_database)
            # (A guard against a hang, not a measure: a claim queued behind the renewal would
            # wait for ever, the renewal waiting for the row this test holds.)
            new = claimed(await asyncio.wait_for(a.claim("new"), timeout=60)).lease
            blocker.commit()
        assert await renewing == []
        assert new.valid() and a.leases["new"] is new
        assert await a.renew() == []  # the next renewal judges it, and keeps it
        await a.close()

    run_apart(body())


def test_the_local_term_is_the_least_the_lease_lasts_on_the_hosts_clock_less_the_margin() -> None:
    assert DRIFT == 0.001
    assert local_term(10, 2) == pytest.approx(10 * 0.999 / 1.001 - 2, abs=1e-12)
    assert local_term(10, 2) == pytest.approx(7.98002, abs=1e-5)
    clock = StillClock()
    lease = Lease("w", 1, deadline=clock.now + 7.98, clock=clock)
    clock.now += 7.97
    assert lease.valid() and lease.remaining() == pytest.approx(0.01)
    clock.now += 0.01
    assert not lease.valid() and lease.remaining() == 0.0
    with pytest.raises(ValueError, match="leaves no time to serve"):
        Host("dbname=x", "host-a", URL_A, ttl=1, margin=1)
    with pytest.raises(ValueError, match="host id"):
        Host("dbname=x", "", URL_A, ttl=1)


def test_a_stopped_owner_resumed_after_another_host_claimed_and_committed_commits_nothing(
    postgres_database: str,
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.bridge.stores.paused_owner", postgres_database],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        assert child.stdout.readline() == "staged\n"
        os.kill(child.pid, signal.SIGSTOP)
        try:
            wait_lease_over(postgres_database, "w")

            async def take_over() -> Claimed:
                b = Host(postgres_database, "host-b", URL_B, ttl=30)
                taken = claimed(await b.claim("w"))
                store = await b.open_store(taken)
                store.stage(new_roll("b"))
                await store.flush()
                await store.close()
                await b.close()
                return taken

            taken = run_apart(take_over())
            assert (taken.epoch, taken.previous, taken.ended_sessions) == (2, "host-a", 1)
        finally:
            os.kill(child.pid, signal.SIGCONT)
        child.stdin.write("go\n")
        child.stdin.flush()
        said = json.loads(child.stdout.readline())
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # Resumed, it knew its lease was over, its commit was refused and its renewal lost w.
    assert said == {"valid": False, "flush": "StaleWriter", "lost": ["w"]}
    with psycopg.connect(postgres_database, autocommit=True) as db:
        rolls = db.execute("SELECT seq, request_id FROM rolls ORDER BY seq").fetchall()
        sessions = db.execute("SELECT id, ended IS NOT NULL FROM sessions").fetchall()
        world = db.execute("SELECT epoch, head_seq, owner FROM worlds").fetchall()
    assert rolls == [(1, "a"), (2, "b")]
    assert sessions == [("s-a", True)]
    assert world == [(2, 2, "host-b")]

    async def verify() -> list[str]:
        store = await PostgresStore.open(postgres_database, "w")
        problems = store.verify_chain()
        await store.close()
        return problems

    assert run_apart(verify()) == []


def test_a_former_owner_stopped_in_the_middle_of_a_commit_does_not_hold_the_world_from_a_claim(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=10)
        b = Host(postgres_database, "host-b", URL_B, ttl=30, lock_wait=0.2)
        claimed(await a.claim("w"))
        # What the owner's store has done when it stops half-way through a group commit (here
        # pipelined with no Sync, where no idle-in-transaction timeout applies): its backend
        # holds the world's row, waiting for the client.
        stopped = await psycopg.AsyncConnection.connect(postgres_database, autocommit=True)
        # Resumed at last, its COMMIT finds its backend ended: nothing of it lands.
        with pytest.raises(psycopg.OperationalError):
            async with stopped.pipeline():
                await stopped.execute("BEGIN")
                head = await stopped.execute(
                    "UPDATE worlds SET head_seq = 99 WHERE id = 'w' RETURNING id"
                )
                assert await head.fetchone() == ("w",)
                # Its lease is live: the claim waits a moment for the row, then names the owner.
                assert await b.claim("w") == Owned("w", "host-a", URL_A)
                await asyncio.to_thread(wait_lease_over, postgres_database, "w")
                taken = claimed(await asyncio.wait_for(b.claim("w"), timeout=60))
                assert (taken.epoch, taken.previous) == (2, "host-a")
                await stopped.execute("COMMIT")
        with psycopg.connect(postgres_database, autocommit=True) as db:
            assert db.execute("SELECT epoch, head_seq, owner FROM worlds").fetchall() == [
                (2, 0, "host-b")
            ]
        await a.close()
        await b.close()

    run_apart(body())


def test_a_host_that_cannot_renew_keeps_no_lease_past_its_deadline(
    postgres: Cluster, postgres_database: str
) -> None:
    async def body() -> None:
        clock = StillClock()
        a = Host(postgres_database, "host-a", URL_A, ttl=10, margin=1, clock=clock)
        lease = claimed(await a.claim("w")).lease
        assert await a.renew() == []  # renewals have a connection of their own
        deadline = lease.deadline
        assert a._renew_conn is not None
        # The database ends the host's renewal connection: the renewal fails, extends nothing.
        postgres.terminate(a._renew_conn.info.backend_pid)
        clock.now += 5
        with pytest.raises(psycopg.OperationalError):
            await a.renew()
        assert lease.deadline == deadline and lease.valid()
        clock.now = deadline
        assert not lease.valid() and not lease.lost
        # Reachable again, the host renews what nobody took, and serves again.
        assert await a.renew() == []
        assert lease.valid() and lease.deadline == clock.now + local_term(10, 1)
        await a.close()

    run_apart(body())


def test_a_renewal_does_not_extend_a_world_the_host_gave_up_whose_release_failed(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=30)
        claimed(await a.claim("w1"))
        claimed(await a.claim("w2"))
        # a gave w2 up but its release never reached the database (it was away): the row keeps
        # a's token, and a holds no lease on it any more.
        del a.leases["w2"]
        query = "SELECT id, lease_until FROM worlds ORDER BY id"
        with psycopg.connect(postgres_database, autocommit=True) as db:
            before = dict(db.execute(query).fetchall())
        assert await a.renew() == []
        with psycopg.connect(postgres_database, autocommit=True) as db:
            after = dict(db.execute(query).fetchall())
        assert after["w1"] > before["w1"] and after["w2"] == before["w2"]
        await a.close()

    run_apart(body())
