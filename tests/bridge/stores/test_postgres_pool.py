"""A host's worlds share one connection pool (``bridge/stores/postgres_pool.py``,
``Host.pool``), on the real PostgreSQL: a flush whose pooled backend was ended loses only its
own group and the next flush runs on another connection; a claim that ends the backend of a
former owner stuck mid-commit ends that connection only, and the host's other worlds go on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import psycopg
import pytest

from arbiter.bridge.records import GENESIS
from arbiter.bridge.stores import postgres_pool
from arbiter.bridge.stores.ownership import Host, Owned
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_schema import ADVANCE_HEAD
from tests.bridge.stores.test_ownership import URL_A, URL_B, claimed, wait_lease_over
from tests.support.apart import run_apart
from tests.support.rolls import new_roll

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


def backends(dsn: str, application_name: str) -> set[int]:
    """The server processes of the connections named ``application_name``."""
    with psycopg.connect(dsn, autocommit=True) as db:
        rows = db.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (application_name,)
        ).fetchall()
    return {row[0] for row in rows}


def test_a_flush_whose_pooled_backend_was_ended_loses_its_group_only_and_the_next_runs_on_another(
    postgres: Cluster, postgres_database: str
) -> None:
    async def body() -> None:
        host = Host(postgres_database, "host-a", URL_A, ttl=30, pool_size=1)
        one = await host.open_store(claimed(await host.claim("one")))
        two = await host.open_store(claimed(await host.claim("two")))
        one.stage(new_roll("a"))
        await one.flush()
        ended = one.backend_pid
        assert ended is not None and two.backend_pid == ended  # one connection for both
        postgres.terminate(ended)
        one.stage(new_roll("b"))
        with pytest.raises(psycopg.OperationalError):
            await one.flush()  # its group is lost ...
        assert one.find("a") is not None and one.find("b") is None
        two.stage(new_roll("x"))
        await two.flush()  # ... the other world's next flush runs on a new connection
        assert two.backend_pid not in (None, ended)
        one.stage(new_roll("b"))
        await one.flush()
        assert backends(postgres_database, host.application_name) == {
            two.backend_pid,
            one.backend_pid,
            *([host._conn.info.backend_pid] if host._conn is not None else []),
        }
        await one.close()
        await two.close()
        await host.close()
        for world, ids in (("one", ["a", "b"]), ("two", ["x"])):
            check = await PostgresStore.snapshot(postgres_database, world)
            assert [r.entry.request_id for r in check.rolls()] == ids
            assert check.verify_chain() == []

    run_apart(body())


def test_a_claim_ends_the_pooled_connection_stuck_mid_commit_and_no_other(
    postgres_database: str,
) -> None:
    async def body() -> None:
        a = Host(postgres_database, "host-a", URL_A, ttl=2, margin=0.2, pool_size=3)
        b = Host(postgres_database, "host-b", URL_B, ttl=30, lock_wait=0.2)
        claimed(await a.claim("w"))
        other = await a.open_store(claimed(await a.claim("other")))
        pool = await a.pool()
        # What a pooled store's flush has done when its host stops half-way through it
        # (postgres_commit.commit's shape: BEGIN, the compare-and-append, pipelined, no COMMIT
        # nor Sync yet): the pooled backend holds the world's row.
        async with pool.connection() as stuck, pool.connection() as idle:
            kept = idle.info.backend_pid
            with pytest.raises(psycopg.OperationalError):
                async with stuck.pipeline():
                    await stuck.execute("BEGIN")
                    head = await stuck.execute(ADVANCE_HEAD, ("w", 1, 0, GENESIS, 99, "f" * 64))
                    assert await head.fetchone() == ("",)  # void: it moved the head
                    assert await b.claim("w") == Owned("w", "host-a", URL_A)
                    await asyncio.to_thread(wait_lease_over, postgres_database, "w")
                    taken = claimed(await asyncio.wait_for(b.claim("w"), timeout=60))
                    assert (taken.epoch, taken.previous) == (2, "host-a")
                    await stuck.execute("COMMIT")
            # The claim ended that backend only: the host's other pooled connection is alive.
            assert await (await idle.execute("SELECT pg_backend_pid()")).fetchone() == (kept,)
        assert stuck.closed
        # The host's other world goes on committing through the pool (the broken connection
        # was discarded, not lent again).
        for rid in ("o-1", "o-2", "o-3"):
            other.stage(new_roll(rid))
            await other.flush()
        await other.close()
        with psycopg.connect(postgres_database, autocommit=True) as db:
            assert db.execute(
                "SELECT epoch, head_seq, owner FROM worlds WHERE id = 'w'"
            ).fetchall() == [(2, 0, "host-b")]
            assert db.execute("SELECT head_seq FROM worlds WHERE id = 'other'").fetchone() == (3,)
        await a.close()
        await b.close()

    run_apart(body())


def test_a_host_s_pool_is_bounded_and_its_stores_wait_for_a_connection(
    postgres_database: str,
) -> None:
    async def body() -> None:
        host = Host(postgres_database, "host-a", URL_A, ttl=30, pool_size=2)
        stores = [await host.open_store(claimed(await host.claim(f"w{i}"))) for i in range(12)]
        for round_ in range(3):
            for i, store in enumerate(stores):
                store.stage(new_roll(f"r{round_}-{i}"))
            # Twelve worlds flush at once on two connections.
            await asyncio.gather(*(store.flush() for store in stores))
        pooled = backends(postgres_database, host.application_name)
        claims = {host._conn.info.backend_pid} if host._conn is not None else set()
        assert len(pooled - claims) <= 2
        assert all(store.count() == 3 for store in stores)
        for store in stores:
            await store.close()
        await host.close()
        # Every connection closed: their backends leave pg_stat_activity as they exit (a
        # closed client's backend may still be listed a moment, more so on a busy machine).
        await asyncio.wait_for(
            _until(lambda: backends(postgres_database, host.application_name) == set()), 30
        )

    run_apart(body())


def test_worlds_opened_at_once_leave_pooled_connections_to_the_others_flushes(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arbiter.bridge.stores.postgres as postgres_store

    async def body() -> None:
        host = Host(postgres_database, "host-a", URL_A, ttl=30, pool_size=2)
        busy = await host.open_store(claimed(await host.claim("busy")))
        real_load = postgres_store.load_world
        loading: set[str] = set()
        go = asyncio.Event()

        async def slow_load(conn: Any, world: str, *args: Any) -> Any:
            # A load holding its pooled connection (many worlds opened at once, a blip making
            # every world resync): it waits here until the test lets it go.
            loading.add(world)
            await go.wait()
            return await real_load(conn, world, *args)

        monkeypatch.setattr(postgres_store, "load_world", slow_load)
        claims = [claimed(await host.claim(f"idle{i}")) for i in range(4)]
        opening = [asyncio.create_task(host.open_store(claim)) for claim in claims]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_until(lambda: len(loading) >= 2), 2)
        assert len(loading) == 1  # a pool of two: one load at a time
        busy.stage(new_roll("a"))
        await busy.flush()  # on the connection the loads leave free
        go.set()
        stores = await asyncio.gather(*opening)
        assert loading == {f"idle{i}" for i in range(4)}
        for store in (busy, *stores):
            await store.close()
        await host.close()

    run_apart(body())


async def _until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_a_pooled_connection_found_broken_has_the_pool_check_its_idle_ones(
    postgres: Cluster, postgres_database: str
) -> None:
    async def body() -> None:
        host = Host(postgres_database, "host-a", URL_A, ttl=30, pool_size=3)
        stores = [await host.open_store(claimed(await host.claim(f"w{i}"))) for i in range(3)]
        pool = await host.pool()
        await pool.resize(3, 3)  # three idle connections, as after a busy minute
        await pool.wait()
        for store in stores:
            store.stage(new_roll("a"))
        await asyncio.gather(*(store.flush() for store in stores))
        claims = {host._conn.info.backend_pid} if host._conn is not None else set()
        pooled = backends(postgres_database, host.application_name) - claims
        assert len(pooled) == 3
        for pid in pooled:  # a failover: every pooled backend gone at once
            postgres.terminate(pid)
        stores[0].stage(new_roll("b"))
        with pytest.raises(psycopg.OperationalError):
            await stores[0].flush()
        await _until(lambda: not postgres_pool._checks)
        # The pool checked its idle connections: the next world's flush gets a live one.
        stores[1].stage(new_roll("b"))
        await stores[1].flush()
        for store in stores:
            await store.close()
        await host.close()

    run_apart(body())


def test_reads_of_old_rows_wait_for_a_load_slot_and_leave_the_pool_to_the_others_flushes(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arbiter.bridge.stores.postgres as postgres_store

    monkeypatch.setattr(postgres_store, "_default_cache_rows", 2)

    async def body() -> None:
        host = Host(postgres_database, "host-a", URL_A, ttl=30, pool_size=2)  # one load slot
        reader = await host.open_store(claimed(await host.claim("reader")))
        for n in range(6):
            reader.stage(new_roll(f"r-{n}"))
            await reader.flush()
        busy = await host.open_store(claimed(await host.claim("busy")))
        async with host.loads.slot():  # the one slot taken, as by a load or another read
            reads = [asyncio.create_task(reader.recall(f"r-{n}")) for n in range(3)]
            busy.stage(new_roll("a"))
            await busy.flush()  # on the connection the reads leave free
            # The reads wait for the slot: none has taken a connection.
            assert not any(read.done() for read in reads)
        found = await asyncio.gather(*reads)
        assert [roll.entry.request_id for roll in found if roll is not None] == [
            "r-0",
            "r-1",
            "r-2",
        ]
        for store in (reader, busy):
            await store.close()
        await host.close()

    run_apart(body())
