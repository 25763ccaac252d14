"""A flush that fails before its COMMIT was queued lands nothing: psycopg sends the pipeline's
Sync even when the block raised, so the transaction is opened and committed by statements, not
by the Sync (bridge/stores/postgres.py, ``_commit``). On a real PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from arbiter.bridge.stores.postgres import PostgresStore
from tests.support.apart import run_apart
from tests.support.rolls import new_roll


def _database(dsn: str) -> tuple[int, int]:
    """The world's head seq and its number of rows, as committed."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        head = conn.execute("SELECT head_seq FROM worlds WHERE id = 'w'").fetchone()
        rows = conn.execute("SELECT count(*) FROM rolls WHERE world = 'w'").fetchone()
    assert head is not None and rows is not None
    return head[0], rows[0]


async def _then_flush_and_verify(store: PostgresStore, dsn: str) -> None:
    """The next flush commits, and the chain in the database verifies."""
    store.stage(new_roll("c"))
    await store.flush()
    await store.close()
    check = await PostgresStore.snapshot(dsn, "w")
    assert [r.entry.request_id for r in check.rolls()] == ["c"]
    assert check.verify_chain() == []
    assert _database(dsn) == (1, 1)


def test_a_flush_failing_in_the_client_mid_pipeline_lands_nothing_and_the_next_one_works(
    postgres_database: str,
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        store.stage(new_roll("a"))
        store.stage(new_roll("b"))
        # A parameter psycopg cannot adapt: it raises in the client, after the compare-and-
        # append and the inserts were queued, before COMMIT.
        store._ops.append(("SELECT %s", (object(),)))
        with pytest.raises(psycopg.ProgrammingError):
            await store.flush()
        assert _database(postgres_database) == (0, 0)
        assert store.find("a") is None and store.count() == 0 and not store.pending
        await _then_flush_and_verify(store, postgres_database)

    run_apart(body())


def test_a_pooled_flush_failing_in_the_client_gives_back_an_idle_connection(
    postgres_database: str,
) -> None:
    async def body() -> None:
        from psycopg_pool import AsyncConnectionPool

        pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
            postgres_database, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False
        )
        await pool.open()
        store = await PostgresStore.open(postgres_database, "w", pool=pool)
        store.stage(new_roll("a"))
        store._ops.append(("SELECT %s", (object(),)))
        with pytest.raises(psycopg.ProgrammingError):
            await store.flush()
        async with pool.connection() as conn:
            assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert _database(postgres_database) == (0, 0)
        await _then_flush_and_verify(store, postgres_database)
        await pool.close()

    run_apart(body())


def test_a_flush_cancelled_after_the_compare_and_append_lands_nothing_and_the_next_one_works(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        store.stage(new_roll("a"))
        store.stage(new_roll("b"))
        original = psycopg.AsyncCursor.executemany
        started = asyncio.Event()

        async def slow_executemany(self: Any, *args: Any, **kwargs: Any) -> None:
            # Queued after the compare-and-append, before the inserts: a send that waits (a
            # full socket buffer), during which the flush is cancelled.
            started.set()
            await asyncio.sleep(3600)
            await original(self, *args, **kwargs)

        monkeypatch.setattr(psycopg.AsyncCursor, "executemany", slow_executemany)
        flushing = asyncio.create_task(store.flush())
        await started.wait()
        flushing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await flushing
        monkeypatch.setattr(psycopg.AsyncCursor, "executemany", original)
        assert _database(postgres_database) == (0, 0)
        assert store.find("a") is None and store.count() == 0
        await _then_flush_and_verify(store, postgres_database)

    run_apart(body())
