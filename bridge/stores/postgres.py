"""The PostgreSQL backend of :class:`arbiter.bridge.stores.WorldStore`: every world in one database.

Each table is keyed by its world, and a ``worlds`` row holds each world's chain head and its
ownership ``epoch`` (:mod:`arbiter.bridge.stores.postgres_schema`; docs/scaling.md).
:meth:`PostgresStore.open` loads one world into memory, bounded: every request id, and only the
most recent ``cache_rows`` rows whole (:mod:`arbiter.bridge.stores.postgres_cache`); its reads
are served from there, synchronously (an older row is read back with :meth:`PostgresStore.recall`
or :meth:`PostgresStore.read_rolls`, awaited off the decide path),
and its writes are staged there (an overlay on the committed cache) and queued as statements.
:meth:`PostgresStore.flush` sends the queue in one transaction, pipelined (psycopg 3, async),
ending with a compare-and-append on the world's ``(epoch, head)``: it moves the head only if
nobody moved it (or the epoch) since this store loaded it, else the transaction rolls back and
:class:`StaleWriter` is raised. On any failure the overlay is dropped: the store is back at its
last committed state and reconnects on the next flush. When the connection broke (COMMIT may
have landed: the classic ambiguous commit), it reloads the world from the database before it
says so, so the retry of a request id whose row landed finds it (and the next flush reloads
first if the database did not answer then).

A host opens a world under the epoch its claim gave it (:mod:`arbiter.bridge.stores.ownership`:
leases on the database's clock; a claim moves the epoch on), so a former owner is fenced.
A host's stores share one connection pool (:mod:`arbiter.bridge.stores.postgres_pool`): a
flush borrows a connection for its whole transaction and gives it back, a broken one is
discarded. A store opened without a pool (one world per process) keeps a connection of its own.

This module opens, loads and flushes a store; its writes are staged by
:mod:`.postgres_writes`, older rows read back by :mod:`.postgres_recall`, and the group commit's
transaction is :mod:`.postgres_commit`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from arbiter.bridge.records import GENESIS
from arbiter.bridge.stores.interface import StaleWriter, UnstorableText
from arbiter.bridge.stores.postgres_cache import WorldRows, load_world
from arbiter.bridge.stores.postgres_commit import commit
from arbiter.bridge.stores.postgres_pool import LoadSlots, check_soon
from arbiter.bridge.stores.postgres_recall import OLDER_PAGE, WorldRecall
from arbiter.bridge.stores.postgres_schema import (
    ROLL_KEYS,
    SCHEMA_VERSION,
    STALE_SQLSTATE,
    install,
)
from arbiter.bridge.stores.postgres_writes import WorldWrites

DEFAULT_CACHE_ROWS = 1000
"""How many of a world's most recent rows a store holds whole (``arbiter serve --cache-rows``):
twice a gap replay's 500 (``Limits.max_replay_rows``), so a reconnect is replayed from memory."""


class LostWithFlush(RuntimeError):
    """Writes staged while a flush was in flight were chained on its rows, and it failed:
    they were dropped with it, and the flush meant for them raises this instead."""


class CacheBehind(RuntimeError):
    """A commit reported as failed had landed, and writes were staged on the head before it:
    they are dropped (nothing of them was committed); the store is in step again."""


class PostgresStore(WorldRecall, WorldWrites):
    """One world's store in a PostgreSQL database shared by many worlds. Open it with
    :meth:`open` (under a claim's epoch: :meth:`arbiter.bridge.stores.ownership.Host.open_store`);
    one writer per world, fenced by the epoch (docs/scaling.md). Its reads are
    :class:`~arbiter.bridge.stores.postgres_reads.WorldReads`', older rows
    :class:`~arbiter.bridge.stores.postgres_recall.WorldRecall`'s, its writes
    :class:`~arbiter.bridge.stores.postgres_writes.WorldWrites`'; its commit is
    :func:`~arbiter.bridge.stores.postgres_commit.commit`."""

    flush_now: None = None
    """Its flush is a round trip: awaited, never a plain call."""

    def __init__(
        self,
        dsn: str,
        world: str,
        conn: psycopg.AsyncConnection[Any] | None,
        pool: AsyncConnectionPool[Any] | None = None,
        cache_rows: int | None = DEFAULT_CACHE_ROWS,
        loads: LoadSlots | None = None,
    ) -> None:
        super().__init__()
        self.dsn = dsn
        self.world = world
        self.cache_rows = cache_rows
        """At most this many committed rows held whole (None: every row)."""
        self._io = asyncio.Lock()
        """A store with a connection of its own: held by a flush and by a read of older rows,
        one statement stream on the connection (a pooled store's reads borrow their own)."""
        self._closed = False
        """:meth:`close` was called: a read must not connect again."""
        self._conn: psycopg.AsyncConnection[Any] | None = conn
        self._pool = pool
        """The host's pool (None: the store keeps a connection of its own in ``_conn``)."""
        self._loads = loads
        """The host's cap on loads at once on its pool (None: no cap)."""
        self._pooled_pid: int | None = None
        """The server process of the pooled connection the store used last."""
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._rows: list[tuple[Any, ...]] = []
        self.epoch = 0
        self._head = (0, GENESIS)
        """The committed head (seq, hash), as the ``worlds`` row holds it."""
        self._last = self._head
        """The head with the staged rows."""
        self._unsure = False
        """A flush failed without saying whether it committed: reload before the next."""
        self._doubt = 0
        """How many rows that flush held: the reload holds at least as many whole, so the
        replies made from them find their very rows (more than ``cache_rows`` may have landed)."""
        self._lost = False
        """Writes staged while a flush was in flight were chained on it, and it failed: they
        are dropped, and the next flush raises :class:`LostWithFlush` for them."""

    @classmethod
    async def open(
        cls,
        dsn: str,
        world: str,
        epoch: int | None = None,
        pool: AsyncConnectionPool[Any] | None = None,
        cache_rows: int | None = None,
        loads: LoadSlots | None = None,
    ) -> PostgresStore:
        """Connect, create the schema and the world's row if missing, and load the world:
        every request id, and the last ``cache_rows`` rows whole (None:
        :data:`DEFAULT_CACHE_ROWS`, or what :func:`set_default_cache_rows` set).
        ``epoch``: the one this host's claim gave it (:mod:`arbiter.bridge.stores.ownership`);
        raises :class:`StaleWriter` when the world is already under another (claimed again
        since). None takes the world's current epoch: for one writer with no claims.
        ``pool``: the host's, which every flush borrows from (None: a connection of its own);
        ``loads``: the host's cap on loads at once on it (this load and every resync)."""
        if cache_rows is None:
            cache_rows = _default_cache_rows
        store = cls(dsn, world, None, pool, cache_rows, loads)
        try:
            async with store._borrow(load=True) as conn:
                await install(conn, world)
                store._committed, store.epoch, store._head = await load_world(
                    conn, world, cache_rows
                )
            store._last = store._head
            if epoch is not None and store.epoch != epoch:
                raise StaleWriter(
                    f"world {world!r} was claimed again (epoch {store.epoch}) after the claim "
                    f"of epoch {epoch} this store was to be opened under"
                )
        except BaseException:
            await store.close()
            raise
        return store

    @classmethod
    async def snapshot(cls, dsn: str, world: str) -> PostgresStore:
        """The world as committed now, read in one snapshot, creating nothing (``arbiter log``,
        ``reveal``, ``replay --from-log``): a store to read, whose connection is closed. It holds
        no row whole: :meth:`rolls` pages them from the database, up to the head of the
        snapshot (the log is append-only, so those rows are the snapshot's).
        Raises LookupError when the database holds no such world."""
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            found = await conn.execute(
                "SELECT 1 FROM pg_tables WHERE tablename = 'worlds' "
                "AND schemaname = current_schema()"
            )
            if await found.fetchone() is None:
                raise LookupError("the database holds no arbiter world (no `worlds` table)")
            exists = await conn.execute("SELECT 1 FROM worlds WHERE id = %s", (world,))
            if await exists.fetchone() is None:
                raise LookupError(f"the database holds no world {world!r}")
            store = cls(dsn, world, conn, cache_rows=0)
            store._committed, store.epoch, store._head = await load_world(conn, world, 0)
            store._last = store._head
        store._conn = None
        return store

    async def _resync(self, in_flight: bool = False) -> None:
        """Reload the committed world after a flush whose outcome is unknown (the connection
        broke, or the flush was cancelled, maybe after COMMIT was sent): the database says
        whether it landed. Raises :class:`StaleWriter` when the epoch moved meanwhile, and
        :class:`CacheBehind` (dropping them) when writes were in flight (``in_flight``) or
        staged on a head that did; those staged while this awaited the database are lost
        with them (the next flush raises :class:`LostWithFlush`)."""
        async with self._borrow(load=True) as conn:
            limit = None if self.cache_rows is None else max(self.cache_rows, self._doubt)
            world, epoch, head = await load_world(conn, self.world, limit)
        world.limit = self.cache_rows  # the next commit trims back to it
        if epoch != self.epoch:
            raise self._stale()
        moved = head != self._head
        self._committed, self._head, self._unsure = world, head, False
        if moved and (in_flight or self._rows or self._ops):
            # Whatever was staged meanwhile chained on the head before the landed commit:
            # its senders wait for the next flush, which must fail (never answer it).
            lost = bool(self._rows or self._ops)
            self._drop_staged()
            self._lost = self._lost or lost
            raise CacheBehind(
                f"the last commit of world {self.world!r} landed although it reported a "
                "failure: the writes staged since were chained on the row before it and are "
                "dropped (retry them: their ids may now be logged)"
            )
        if moved:
            self._last = head

    async def close(self) -> None:
        """Close the store's own connection (a pool is its host's); whatever is staged is
        dropped."""
        self._closed = True
        self._drop_staged()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    async def flush(self) -> None:
        """Commit every staged write in one pipelined transaction that first compares and
        moves the world's head; raises (:class:`StaleWriter` when the head or epoch moved)
        with nothing staged kept."""
        async with self._own_connection():
            await self._flush()

    async def _flush(self) -> None:
        if self._lost:
            self._lost = False
            raise LostWithFlush(
                f"world {self.world!r}: the writes staged while the last flush was in flight "
                "were chained on it, and it failed: they are dropped"
            )
        if not self.pending and not self._unsure:
            return
        # Writes staged from now on (the caller keeps deciding while this awaits) go to the
        # next flush; reads see them, these in flight, then the committed rows.
        rows, ops = self._rows, self._ops
        self._flying, self._staged, self._rows, self._ops = self._staged, WorldRows(), [], []
        sent = 0  # the rows a failure leaves in doubt: none until the commit is sent
        try:
            if self._unsure:
                await self._resync(in_flight=bool(rows or ops))
            if not rows and not ops:
                self._flying = WorldRows()
                return
            last = (
                (self._flying.rolls[-1].seq, self._flying.rolls[-1].hash)
                if self._flying.rolls
                else self._head
            )
            async with self._borrow() as conn:
                sent = len(rows)
                await commit(conn, self.world, self.epoch, self._head, rows, ops, last)
        except PoolTimeout:
            # No connection came free in time: nothing was sent, nothing landed.
            self._drop_flight()
            raise
        except psycopg.errors.UniqueViolation as err:
            self._drop_flight()
            if err.diag.constraint_name in ROLL_KEYS:
                # Our cache holds neither the seq nor the request id: another writer logged it.
                raise self._stale() from err
            raise
        except psycopg.OperationalError:
            # The connection broke: COMMIT may have landed. Ask the database now (if it
            # answers; else before the next flush), so a retry finds a row that landed.
            self._drop_flight()
            await self._disconnect()
            # A resync that failed before the commit was sent leaves the earlier doubt.
            self._unsure, self._doubt = True, sent or self._doubt
            if self._pool is not None:
                check_soon(self._pool)  # its other idle connections may be broken alike
            with contextlib.suppress(psycopg.Error, StaleWriter, CacheBehind):
                await self._resync()
            raise
        except (CacheBehind, StaleWriter):
            # Raised by the resync before anything was sent (it dropped what was in flight
            # when the head moved; the epoch moved: nothing may be sent).
            self._drop_flight()
            raise
        except psycopg.Error as err:
            # The server refused a statement: the transaction rolled back, nothing landed.
            self._drop_flight()
            if err.sqlstate == STALE_SQLSTATE:
                raise self._stale() from err
            raise
        except BaseException:
            # Cancelled: the connection may be mid-pipeline, COMMIT sent or not.
            self._drop_flight()
            await self._disconnect()
            # A resync that failed before the commit was sent leaves the earlier doubt.
            self._unsure, self._doubt = True, sent or self._doubt
            raise
        self._merge_flight(last)

    @contextlib.asynccontextmanager
    async def _borrow(self, load: bool = False) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A connection for one transaction: the pool's (given back after it; a closed one
        is discarded by the pool) or the store's own. A ``load`` (the world's, a resync)
        first takes one of the host's load slots, so loads never hold the whole pool."""
        if self._pool is None:
            yield await self._connection()
            return
        async with contextlib.AsyncExitStack() as stack:
            if load and self._loads is not None:
                await stack.enter_async_context(self._loads.slot())
            conn = await stack.enter_async_context(self._pool.connection())
            self._pooled_pid = conn.info.backend_pid
            yield conn

    @property
    def backend_pid(self) -> int | None:
        """The server process of the store's own connection, or of the pooled one it used
        last (None when it has none)."""
        if self._pool is not None:
            return self._pooled_pid
        return None if self._conn is None else self._conn.info.backend_pid

    def _stale(self) -> StaleWriter:
        return StaleWriter(
            f"world {self.world!r} moved past row {self._head[0]} (or its epoch past "
            f"{self.epoch}) since this store loaded it: nothing was committed"
        )

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
        return self._conn

    async def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    def _drop_flight(self) -> None:
        """A flush failed: drop its writes and those staged while it was in flight (chained
        on its rows); the next flush raises :class:`LostWithFlush` for the latter."""
        if self._rows or self._ops:
            self._lost = True
        self._drop_staged()

    def _drop_staged(self) -> None:
        self._flying, self._staged, self._rows, self._ops = WorldRows(), WorldRows(), [], []
        self._last = self._head

    def _merge_flight(self, last: tuple[int, str]) -> None:
        """The flush in flight committed: its writes join the committed rows, ``last`` is the
        head; what was staged meanwhile stays staged for the next flush."""
        self._committed.merge(self._flying)
        self._flying = WorldRows()
        self._head = last

    def connection(self) -> contextlib.AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]:
        """A connection for one short read beside the store's writes: the pool's, or, for a
        store with a connection of its own (which a flush may hold mid-transaction), a new one."""
        if self._pool is not None:
            return self._pool.connection()
        from arbiter.bridge.stores.postgres_pool import fresh_connection

        return fresh_connection(self.dsn, "arbiter")


_default_cache_rows = DEFAULT_CACHE_ROWS


def set_default_cache_rows(rows: int) -> None:
    """The ``cache_rows`` of every store :meth:`PostgresStore.open` opens from now on without
    one (``arbiter serve --cache-rows``)."""
    global _default_cache_rows
    if rows < 0:
        raise ValueError(f"--cache-rows {rows}: a count of rows cannot be negative")
    _default_cache_rows = rows


__all__ = [
    "DEFAULT_CACHE_ROWS",
    "OLDER_PAGE",
    "SCHEMA_VERSION",
    "CacheBehind",
    "LostWithFlush",
    "PostgresStore",
    "UnstorableText",
    "set_default_cache_rows",
]
