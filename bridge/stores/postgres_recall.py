"""The PostgreSQL store's reads from the database (:class:`WorldRecall`): rows not held whole.

The committed rows are bounded (:mod:`arbiter.bridge.stores.postgres_cache`): a row older than
the cache is read back by its request id (:meth:`WorldRecall.recall`) or in pages of
:data:`OLDER_PAGE` (:meth:`WorldRecall.read_rolls`, awaited off the decide path;
:meth:`WorldRecall._older`, blocking, for offline commands). Each read runs on a pooled
connection or the store's own, never inside a flush's transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from arbiter.bridge.records import Roll
from arbiter.bridge.stores.interface import RowNotCached
from arbiter.bridge.stores.postgres_cache import roll_of
from arbiter.bridge.stores.postgres_reads import WorldReads
from arbiter.bridge.stores.postgres_schema import ROLL_COLUMNS

OLDER_PAGE = 1000
"""Rows read per round trip when older rows are read from the database."""


class WorldRecall(WorldReads):
    """One world's reads of older rows from the database (the store sets the fields and
    lends the connections)."""

    dsn: str
    world: str
    _io: asyncio.Lock
    _closed: bool
    _pool: AsyncConnectionPool[Any] | None

    # The store's: a connection for one transaction (``load``: one of the host's load slots).
    _borrow: Callable[..., contextlib.AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]]

    # --- the roll log ---

    async def recall(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id``; one not held whole is read from the database (by
        the unique index on the id) and held where :meth:`find` sees it (None, and remembered as
        not logged, when an id's digest matched but no row has it). Raises psycopg's
        error when the database does not answer (nothing is decided then)."""
        try:
            return self.find(request_id)
        except RowNotCached:
            pass
        rows = await self._read(
            f"SELECT {ROLL_COLUMNS} FROM rolls WHERE world = %s AND request_id = %s",
            (self.world, request_id),
        )
        if not rows:
            # Another id's digest (request_index): not logged, and now known not to be.
            self._committed.ids.absent(request_id)
            return None
        roll = roll_of(rows[0])
        self._committed.recall(roll)
        return roll

    async def read_rolls(self, after: int, upto: int) -> list[Roll]:
        """The committed rows ``after < seq <= upto``, from the database (no more than the
        caller asks: it bounds them)."""
        found: list[Roll] = []
        while after < upto:
            rows = await self._read(
                f"SELECT {ROLL_COLUMNS} FROM rolls WHERE world = %s AND seq > %s AND seq <= %s "
                "ORDER BY seq LIMIT %s",
                (self.world, after, upto, OLDER_PAGE),
            )
            if not rows:
                break
            found.extend(roll_of(row) for row in rows)
            after = found[-1].seq
        return found

    async def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One read, on a pooled connection or the store's own (never inside a flush's
        transaction); a broken connection is closed (the pool discards it, the store's own
        is made anew by the next flush or read). On a pool it takes one of the host's load
        slots, as a load does: however many resends of old ids the players of a host's worlds
        send at once, their reads never hold more than half the pool, and the other half
        serves the group commits."""
        async with self._own_connection():
            if self._closed:
                raise RuntimeError(f"the store of world {self.world!r} is closed")
            async with self._borrow(load=True) as conn:
                try:
                    cur = await conn.execute(sql, args)
                    return await cur.fetchall()
                except psycopg.OperationalError:
                    await conn.close()
                    raise

    def _own_connection(self) -> contextlib.AbstractAsyncContextManager[object]:
        """The lock on the store's own connection (nothing for a pooled store)."""
        if self._pool is None:
            return self._io
        return contextlib.nullcontext()

    def _older(self, after: int, upto: int, session: str | None) -> Iterator[Roll]:
        """The committed rows not held whole, paged from the database on a connection of its
        own (blocking: :meth:`rolls` is synchronous; the server awaits :meth:`read_rolls`)."""
        where = "world = %s AND seq > %s AND seq <= %s"
        if session is not None:
            where += " AND session = %s"
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while after < upto:
                args: tuple[Any, ...] = (self.world, after, upto)
                if session is not None:
                    args += (session,)
                rows = conn.execute(
                    f"SELECT {ROLL_COLUMNS} FROM rolls WHERE {where} ORDER BY seq LIMIT %s",
                    (*args, OLDER_PAGE),
                ).fetchall()
                if not rows:
                    return
                for row in rows:
                    yield roll_of(row)
                after = rows[-1][0]


__all__ = ["OLDER_PAGE", "WorldRecall"]
