"""The PostgreSQL store's bounded cache (docs/scaling.md, "A cache bounded in size"), on the
session's real PostgreSQL: a world opened with a 10-row cache after 200 rows holds 10 rows
whole and every request id; the window moves with the rows it commits; a snapshot (the offline
commands) holds no row whole and pages the whole log from the database."""

from __future__ import annotations

import asyncio

import pytest

import arbiter.bridge.stores.postgres as postgres_store
import arbiter.bridge.stores.postgres_recall as postgres_recall
import arbiter.bridge.stores.request_index as request_index
from arbiter.bridge.records import Roll
from arbiter.bridge.stores import RowNotCached
from arbiter.bridge.stores.postgres import PostgresStore
from tests.support.apart import run_apart
from tests.support.rolls import new_roll


async def two_hundred_rows(dsn: str) -> list[Roll]:
    store = await PostgresStore.open(dsn, "w", cache_rows=10)
    staged: list[Roll] = []
    for group in range(10):
        staged += [store.stage(new_roll(f"r{group * 20 + n}")) for n in range(20)]
        await store.flush()
        assert len(store._committed.rolls) == 10  # the window moves with each commit
        # Never reopened: at most 4 x 10 ids as strings, the rest folded into digests.
        assert store._committed.ids.strings <= 40
    assert store._committed.ids.loaded >= 160
    assert all(store.logged(f"r{n}") for n in range(200)) and not store.logged("r200")
    await store.close()
    return staged


def test_a_world_opened_with_a_10_row_cache_after_200_rows_holds_10_rows_whole_and_every_id(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_recall, "OLDER_PAGE", 7)  # the older rows come in many pages

    async def body() -> None:
        staged = await two_hundred_rows(postgres_database)
        store = await PostgresStore.open(postgres_database, "w", cache_rows=10)
        committed = store._committed
        assert committed.rolls == staged[190:] and len(committed.by_request) == 10
        assert len(committed.ids) == 200 and committed.ids.loaded == 190
        assert store.cached_from() == 191 and store.count() == 200
        with pytest.raises(RowNotCached) as missing:
            store.find("r0")
        assert missing.value.request_id == "r0"
        assert store.find("r195") == staged[195]
        assert await store.read_rolls(0, 190) == staged[:190]
        assert list(store.rolls()) == staged and store.verify_chain() == []
        assert list(store.rolls(100, session="s1")) == staged[100:]
        # A recalled row is held apart from the window; the window stays 10 rows.
        assert await store.recall("r0") == staged[0] and store.find("r0") == staged[0]
        new = store.stage(new_roll("r200"))
        await store.flush()
        assert store._committed.rolls == [*staged[191:], new] and store.cached_from() == 192
        await store.close()
        snapshot = await PostgresStore.snapshot(postgres_database, "w")
        assert snapshot._committed.rolls == [] and snapshot.count() == 201
        assert list(snapshot.rolls()) == [*staged, new] and snapshot.verify_chain() == []

    run_apart(body())


def test_an_id_whose_digest_matches_a_logged_one_is_read_for_once_then_decided_and_logged(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every digest the same (a collision, which a 64-bit keyed digest makes all but
    impossible): a new id is "maybe logged", so ``find`` raises; ``recall`` finds no row and says
    so, and from then on the id is new: staged, committed and found."""

    async def body() -> None:
        await two_hundred_rows(postgres_database)  # digests as they are (every id new)
        monkeypatch.setattr(request_index, "digest", lambda request_id: 0)
        store = await PostgresStore.open(postgres_database, "w", cache_rows=10)
        with pytest.raises(RowNotCached):
            store.find("fresh")
        assert await store.recall("fresh") is None and store.find("fresh") is None
        assert not store.logged("fresh")
        fresh = store.stage(new_roll("fresh"))
        await store.flush()
        assert store.find("fresh") == fresh and store.count() == 201
        assert await store.recall("r3") is not None  # a logged id is still read back
        await store.close()

    run_apart(body())


def test_a_pooled_store_reads_older_rows_on_a_borrowed_connection_while_a_flush_is_in_flight(
    postgres_database: str,
) -> None:
    """A host's store (a pool of 2): a resend's read and a gap's read borrow a connection of
    their own, beside a flush in flight, and read the rows the database holds."""
    from arbiter.bridge.stores.postgres_pool import open_pool

    async def body() -> None:
        staged = await two_hundred_rows(postgres_database)
        pool = await open_pool(postgres_database, 2, "arbiter-test")
        try:
            store = await PostgresStore.open(postgres_database, "w", pool=pool, cache_rows=10)
            new = store.stage(new_roll("new"))
            flushing = asyncio.create_task(store.flush())
            recalled, older = await asyncio.gather(store.recall("r0"), store.read_rolls(0, 190))
            await flushing
            assert recalled == staged[0] and older == staged[:190]
            assert store.find("new") == new and store.count() == 201
            await store.close()
        finally:
            await pool.close()

    run_apart(body())


def test_a_flush_whose_reload_fails_before_sending_keeps_the_doubt_of_the_flush_unheard(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A flush of 12 rows went unheard (the store must reload at least 12 rows to find them);
    the next flush's reload fails before it sends anything: the doubt stays 12, not its own 1
    row never sent (else the reload that succeeds holds too few rows to confirm them)."""
    import psycopg

    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w", cache_rows=3)
        store._unsure, store._doubt = True, 12  # as a 12-row flush whose COMMIT went unheard

        async def unreachable(*args: object, **kwargs: object) -> object:
            raise psycopg.OperationalError("the database went away")

        monkeypatch.setattr(postgres_store, "load_world", unreachable)
        store.stage(new_roll("after"))
        with pytest.raises(psycopg.OperationalError):
            await store.flush()
        assert store._unsure and store._doubt == 12
        monkeypatch.undo()
        await store.flush()  # the reload now answers, and loads 12 rows whole
        assert store._unsure is False
        await store.close()

    run_apart(body())
