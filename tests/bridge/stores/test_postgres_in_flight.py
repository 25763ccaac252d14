"""Writes staged while a PostgreSQL flush is in flight (the server keeps deciding while it
awaits the database): they wait for the next flush, and they are lost with a flush that fails,
since their rows chain on its rows. On a real PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import psycopg
import pytest

from arbiter.bridge.stores.postgres import LostWithFlush, PostgresStore
from tests.support.apart import run_apart
from tests.support.rolls import new_roll

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


def test_a_row_staged_while_a_flush_is_in_flight_is_read_at_once_and_committed_by_the_next(
    postgres_database: str,
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        store.stage(new_roll("a"))
        flushing = asyncio.create_task(store.flush())
        await asyncio.sleep(0)  # the flush has sent its transaction and awaits the answer
        assert not flushing.done()
        b = store.stage(new_roll("b"))
        assert b.seq == 2 and store.find("a") is not None and store.count() == 2
        await flushing
        assert store.pending and store.find("b") == b
        await store.flush()
        await store.close()
        check = await PostgresStore.snapshot(postgres_database, "w")
        assert [r.entry.request_id for r in check.rolls()] == ["a", "b"]
        assert check.verify_chain() == []

    run_apart(body())


def test_a_row_staged_while_a_failing_flush_is_in_flight_is_lost_with_it_and_its_flush_says_so(
    postgres: Cluster, postgres_database: str
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        assert store.backend_pid is not None
        postgres.terminate(store.backend_pid)
        store.stage(new_roll("a"))
        flushing = asyncio.create_task(store.flush())
        await asyncio.sleep(0)
        store.stage(new_roll("b"))  # chained on a, which is not going to land
        with pytest.raises(psycopg.OperationalError):
            await flushing
        assert store.find("a") is None and store.find("b") is None and store.pending
        # The flush b's sender waits for must fail: b was never committed.
        with pytest.raises(LostWithFlush):
            await store.flush()
        assert not store.pending
        # Retried, each id is decided anew and logged once.
        store.stage(new_roll("b"))
        store.stage(new_roll("a"))
        await store.flush()
        await store.close()
        check = await PostgresStore.snapshot(postgres_database, "w")
        assert [r.entry.request_id for r in check.rolls()] == ["b", "a"]
        assert check.verify_chain() == []

    run_apart(body())


def test_a_row_staged_while_the_store_reloads_after_a_landed_commit_is_lost_and_its_flush_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The race needs the reload to be answered at a chosen moment, which a real server cannot be
    # made to do: the connection and the reload are stand-ins here (the store's own logic runs).
    import arbiter.bridge.stores.postgres as postgres_store
    from arbiter.bridge.stores.postgres_cache import WorldRows

    class Broken:
        """A pipeline or transaction whose end reports a broken connection (COMMIT was sent:
        it may have landed)."""

        async def __aenter__(self) -> Broken:
            return self

        async def __aexit__(self, *exc: object) -> None:
            raise psycopg.OperationalError("terminating connection due to administrator command")

    class Connection:
        closed = False

        def pipeline(self) -> Broken:
            return Broken()

        def transaction(self) -> Broken:
            return Broken()

        async def close(self) -> None:
            return None

    landed: list[object] = []

    async def load_world(
        conn: object, world: str, limit: object = None
    ) -> tuple[WorldRows, int, tuple[int, str]]:
        await asyncio.sleep(0.01)  # the reload's round trips: the server keeps deciding
        rows = WorldRows()
        for row in landed:
            rows.rolls.append(row)  # type: ignore[arg-type]
            rows.by_request[row.entry.request_id] = row  # type: ignore[attr-defined]
        head = landed[-1]
        return rows, 1, (head.seq, head.hash)  # type: ignore[attr-defined]

    async def body() -> None:
        store = PostgresStore("postgresql://stand-in", "w", Connection())  # type: ignore[arg-type]
        store.epoch = 1

        async def connection() -> Connection:
            return Connection()

        monkeypatch.setattr(store, "_connection", connection)
        monkeypatch.setattr(postgres_store, "load_world", load_world)
        landed.append(store.stage(new_roll("a")))  # its COMMIT lands, unheard

        async def decide_meanwhile() -> None:
            await asyncio.sleep(0.005)
            store.stage(new_roll("b"))  # chained on the head before a, while the store reloads

        meanwhile = asyncio.create_task(decide_meanwhile())
        with pytest.raises(psycopg.OperationalError):
            await store.flush()
        await meanwhile
        assert store.find("a") is not None and store.find("b") is None
        # b's sender waits for the next flush: it must fail, never answer b as committed.
        with pytest.raises(LostWithFlush):
            await store.flush()

    run_apart(body())
