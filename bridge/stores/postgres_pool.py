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
every world it is told to watch. It notices a dead connection by TCP keepalives and by a probe
after :data:`QUIET_PROBE` seconds of silence, and re-reads every watched world every
:data:`BACKSTOP` seconds on the pool, whatever it hears.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout

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
"""Seconds between the listener's attempts to reconnect (and a failed re-read's retries)."""
QUIET_PROBE = 15.0
"""Seconds of silence after which the listener asks its connection ``SELECT 1``: a socket to
a server gone without a word (a failover, a partition) delivers nothing and raises nothing."""
PROBE_TIMEOUT = 10.0
"""Seconds the listener's probe may take before its connection counts as dead (reconnect)."""
BACKSTOP = 60.0
"""Seconds between re-reads of every watched world, on the pool, whatever the listener hears:
the bound of a change missed by a listener that does not know it is deaf."""
CONNECT_TIMEOUT = 10
"""Seconds the listener waits to connect (a partition would otherwise hold it for minutes)."""
REFRESH_TIMEOUT = 30.0
"""Seconds one re-read of records may take (it holds every other refresh meanwhile)."""
KEEPALIVES: dict[str, Any] = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}
"""libpq's TCP keepalives on the listener's connection and the pool's: the kernel declares a silent peer dead
after about 25 s (10 + 3 × 5), and unacknowledged sends after 30 s, so the connection raises
instead of waiting on a dead socket for the system's default (hours)."""


def load_cap(pool_size: int) -> int:
    """How many loads (a world's at its claim, its secret, the reload after a failed flush) a
    host runs at once on a pool of ``pool_size``: half of it (at least one), so the other half
    always serves group commits, whatever many opens or resyncs at once."""
    return max(1, pool_size // 2)


class LoadSlots:
    """The loads a host's worlds run at once on its pool, at most :func:`load_cap` of its
    size: many worlds opened at once (connections to idle world ids) or resyncing at once
    (after a blip) never hold every pooled connection, so other worlds' flushes go on."""

    def __init__(self, pool_size: int) -> None:
        self.size = load_cap(pool_size)
        self._slots = asyncio.Semaphore(self.size)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one load slot; waits :data:`POOL_WAIT` at most (then ``PoolTimeout``, as a
        pool that lends nothing in time: nothing was sent)."""
        try:
            async with asyncio.timeout(POOL_WAIT):
                await self._slots.acquire()
        except TimeoutError:
            raise PoolTimeout(
                f"no load slot came free in {POOL_WAIT:.0f} s ({self.size} loads at once)"
            ) from None
        try:
            yield
        finally:
            self._slots.release()


_checks: set[asyncio.Task[None]] = set()


def check_soon(pool: AsyncConnectionPool[Any]) -> None:
    """Check the pool's idle connections in the background (``AsyncConnectionPool.check``: one
    round trip each, a broken one discarded and replaced), after a pooled connection was found
    broken: after a failover every idle connection is, and each would otherwise fail the next
    flush that borrows it. Only then: checking on every borrow (the pool's ``check=``) would
    cost every flush a second round trip."""

    async def check() -> None:
        with contextlib.suppress(Exception):
            await pool.check()

    task = asyncio.get_running_loop().create_task(check(), name="pool-check")
    _checks.add(task)
    task.add_done_callback(_checks.discard)


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
        kwargs={"autocommit": True, "application_name": application_name, **KEEPALIVES},
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


async def _probe(conn: psycopg.AsyncConnection[Any]) -> None:
    """Quiet: is anyone there? Raises TimeoutError (the connection closed) when ``SELECT 1``
    is not answered within :data:`PROBE_TIMEOUT`. The connection is closed before the query
    is cancelled: cancelling psycopg mid-query would first try a cancel request and a rollback
    on the dead socket (seconds more, or until the keepalives give up)."""
    probe = asyncio.ensure_future(conn.execute("SELECT 1"))
    done, _ = await asyncio.wait([probe], timeout=PROBE_TIMEOUT)
    if probe in done:
        probe.result()
        return
    await conn.close()
    probe.add_done_callback(lambda ended: ended.cancelled() or ended.exception())
    probe.cancel()
    await asyncio.wait([probe])  # ended at once: its socket is closed
    raise TimeoutError(f"the listener's connection did not answer in {PROBE_TIMEOUT:.0f} s")


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
        self._refreshing = asyncio.Lock()
        """Held from a read's start to its records handed on: a read begun later is handed on
        later, so an older read cannot undo a newer one (a revocation briefly undone)."""

    async def run(self) -> None:
        """Listen until cancelled, reconnecting (and re-reading every watched world) after
        each loss of the connection, one noticed by keepalives or by a probe of a quiet
        connection; and re-read every watched world every :data:`BACKSTOP` seconds."""
        backstop = asyncio.create_task(self._backstop(), name="player-records-backstop")
        try:
            while True:
                try:
                    await self._listen()
                except (psycopg.Error, OSError, TimeoutError) as err:
                    log.warning("the player records' listener lost its connection: %s", err)
                except Exception:
                    log.exception("the player records' listener failed (will reconnect)")
                self.listening.clear()
                self.backend_pid = None
                await asyncio.sleep(RECONNECT_DELAY)
        finally:
            backstop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await backstop

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(
            self.dsn,
            autocommit=True,
            application_name=self.application_name,
            connect_timeout=CONNECT_TIMEOUT,
            **KEEPALIVES,
        ) as conn:
            await conn.execute(f"LISTEN {PLAYERS_CHANNEL}")
            # Listening before the re-read: a write after it is read, or heard, or both.
            await self.refresh(self.watched())
            self.backend_pid = conn.info.backend_pid
            self.listening.set()
            while True:
                heard = False
                async for note in conn.notifies(timeout=QUIET_PROBE):
                    heard = True
                    if note.payload in self.watched():
                        await self.refresh([note.payload])
                if not heard:
                    await _probe(conn)

    async def _backstop(self) -> None:
        while True:
            await asyncio.sleep(BACKSTOP)
            try:
                await self.refresh(self.watched())
            except Exception as err:
                log.warning("re-reading every world's player records failed: %s", err)

    async def refresh(self, worlds: Iterable[str]) -> None:
        """Read ``worlds``' records and hand each to ``changed``; one refresh at a time, so
        the records handed on last are those read last."""
        wanted = list(worlds)
        if not wanted:
            return
        async with self._refreshing:
            async with self.read() as conn:
                # Bounded: a read hung on a dead connection would hold every refresh.
                async with asyncio.timeout(REFRESH_TIMEOUT):
                    found = await read_players(conn, wanted)
            for world, records in found.items():
                await self.changed(world, records)


__all__ = [
    "BACKSTOP",
    "CONNECT_TIMEOUT",
    "DEFAULT_POOL_SIZE",
    "KEEPALIVES",
    "POOL_WAIT",
    "PROBE_TIMEOUT",
    "QUIET_PROBE",
    "REFRESH_TIMEOUT",
    "LoadSlots",
    "PlayerFeed",
    "PlayerRecords",
    "check_soon",
    "fresh_connection",
    "load_cap",
    "open_pool",
    "read_players",
]
