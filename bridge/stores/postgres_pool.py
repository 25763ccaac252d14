"""What a host's worlds share of PostgreSQL: one connection pool, and one listener for the
player records other processes write (docs/scaling.md, "Connections of a host").

:func:`open_pool` makes the pool every :class:`~arbiter.bridge.stores.postgres.PostgresStore`
of a host borrows from: a group commit takes a connection for its whole transaction and gives
it back; a connection left broken or in doubt is closed by the store and discarded by the pool
(``psycopg_pool``, kept by psycopg's author), which opens another in its place.

:class:`PlayerFeed` holds one connection of its own that ``LISTEN``\\s on
:data:`~arbiter.bridge.stores.postgres_schema.PLAYERS_CHANNEL`: every write of ``players``
(``arbiter token --player`` from another process, a store's own flush) notifies it with the
world's id, and the feed hands the world's records, read anew, to its owner. Notifications
sent while the listening connection is down are lost: each time it (re)connects, it re-reads
every world it is told to watch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from arbiter.bridge.records import Player
from arbiter.bridge.stores.postgres_schema import PLAYERS_CHANNEL, READ_PLAYERS

log = logging.getLogger("arbiter.players")

DEFAULT_POOL_SIZE = 10
"""Connections a host's worlds share at most (``--pool-size``): a connection is held for one
group commit (its round trips and the WAL flush, a few milliseconds), so ten carry ten worlds
committing at the same instant; the others wait for a connection (at most ``POOL_WAIT``)."""
POOL_WAIT = 10.0
"""Seconds a flush waits for a pooled connection before it fails (its replies
``unavailable``; nothing was sent)."""
RECONNECT_DELAY = 1.0
"""Seconds between the listener's attempts to reconnect."""

PlayerRecords = dict[str, dict[str, Player]]
"""Player records by world, then by name."""


async def open_pool(dsn: str, size: int, application_name: str) -> AsyncConnectionPool[Any]:
    """A pool of at most ``size`` autocommit connections (one kept open while idle), named
    ``application_name`` in ``pg_stat_activity``; opened, waiting for its first connection
    (so a database that does not answer is an error now)."""
    if size < 1:
        raise ValueError(f"a pool needs at least one connection, not {size}")
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        dsn,
        min_size=1,
        max_size=size,
        kwargs={"autocommit": True, "application_name": application_name},
        open=False,
        timeout=POOL_WAIT,
        name=application_name,
    )
    await pool.open(wait=True, timeout=POOL_WAIT)
    return pool


async def read_players(conn: psycopg.AsyncConnection[Any], worlds: Iterable[str]) -> PlayerRecords:
    """The player records of ``worlds`` as committed, by world (a world without any maps to
    an empty dict)."""
    wanted = list(worlds)
    found: PlayerRecords = {world: {} for world in wanted}
    cursor = await conn.execute(READ_PLAYERS, (wanted,))
    for world, *row in await cursor.fetchall():
        found[world][row[0]] = Player.from_row(tuple(row))
    return found


@contextlib.asynccontextmanager
async def fresh_connection(
    dsn: str, application_name: str
) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A connection of its own for one read, closed after it (a process without a pool)."""
    async with await psycopg.AsyncConnection.connect(
        dsn, autocommit=True, application_name=application_name
    ) as conn:
        yield conn


class PlayerFeed:
    """Hears the writes of ``players`` and hands each watched world's records, re-read, to
    ``changed(world, records)``.

    ``watched()`` names the worlds to re-read when the listener (re)connects (notifications
    sent while it was down are lost); a notification for a world it does not name is ignored.
    ``read`` borrows a connection to read them with (the host's pool)."""

    def __init__(
        self,
        dsn: str,
        application_name: str,
        watched: Callable[[], Collection[str]],
        changed: Callable[[str, dict[str, Player]], Awaitable[None]],
        read: Callable[[], contextlib.AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]],
    ) -> None:
        self.dsn = dsn
        self.application_name = application_name
        self.watched = watched
        self.changed = changed
        self.read = read
        self.listening = asyncio.Event()
        """Set while the listener is connected and every watched world was re-read since."""
        self.backend_pid: int | None = None

    async def run(self) -> None:
        """Listen until cancelled, reconnecting (and re-reading every watched world) after
        each loss of the connection."""
        while True:
            try:
                await self._listen()
            except (psycopg.Error, OSError) as err:
                log.warning("the player records' listener lost its connection: %s", err)
            except Exception:
                log.exception("the player records' listener failed (will reconnect)")
            self.listening.clear()
            self.backend_pid = None
            await asyncio.sleep(RECONNECT_DELAY)

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self.dsn, autocommit=True, application_name=self.application_name
        ) as conn:
            await conn.execute(f"LISTEN {PLAYERS_CHANNEL}")
            # Listening before the re-read: a write after it is read, or heard, or both.
            await self.refresh(self.watched())
            self.backend_pid = conn.info.backend_pid
            self.listening.set()
            async for note in conn.notifies():
                if note.payload in self.watched():
                    await self.refresh([note.payload])

    async def refresh(self, worlds: Iterable[str]) -> None:
        """Read ``worlds``' records and hand each to ``changed``."""
        wanted = list(worlds)
        if not wanted:
            return
        async with self.read() as conn:
            found = await read_players(conn, wanted)
        for world, records in found.items():
            await self.changed(world, records)


__all__ = [
    "DEFAULT_POOL_SIZE",
    "POOL_WAIT",
    "PlayerFeed",
    "PlayerRecords",
    "fresh_connection",
    "open_pool",
    "read_players",
]
