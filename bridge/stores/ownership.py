"""Fenced ownership of worlds in the PostgreSQL store: leases on the database's clock, and
claims that move a world's ``epoch`` on (docs/scaling.md, "Fenced ownership").

A :class:`Host` is one serving process. :meth:`Host.claim` makes it a world's owner when the
world is unowned, its owner's lease has run out, or the owner is an earlier run of this host
(same host id, another process); the new owner moves the world's ``epoch`` on and ends the open
sessions of the previous one, in the same transaction. Otherwise it answers :class:`Owned`,
naming the owner and the URL it advertises. :meth:`Host.renew` extends every lease the host
holds in one statement and names the worlds it lost; :meth:`Host.release` gives them up.

Safety does not rest on time. The store opened under a claim (:meth:`Host.open_store`) commits
only while the world's epoch is the one it was opened under (the compare-and-append of
:meth:`arbiter.bridge.stores.postgres.PostgresStore.flush`), so a former owner that paused
past its lease commits nothing once another host has claimed. Leases decide *when* another
host may claim, and :meth:`Lease.valid` tells the owner to stop answering before then:

- Leases are granted on the **database's clock** (``clock_timestamp()``), the one clock every
  host's claim is judged by; a host's wall clock plays no part.
- The host's own deadline runs on its **monotonic clock** (:func:`boot_clock`), from when the
  claim or renewal was *sent*: the database granted ``ttl`` from a moment after that, so the
  lease cannot end, on its clock, before ``ttl`` has passed on it since the send.
- The two clocks may run at different rates; each is assumed within :data:`DRIFT` of true
  time, so ``ttl`` on the database's clock is at least ``ttl * (1 - DRIFT) / (1 + DRIFT)`` on
  the host's. The host stops a further ``margin`` before that (:func:`local_term`): time for an
  answer checked valid to leave, and for small steps of the database's clock.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_pool import DEFAULT_POOL_SIZE, LoadSlots, open_pool
from arbiter.bridge.stores.postgres_schema import install

DRIFT = 0.001
"""How far each clock (the host's monotonic clock, the database's) may run from true time, as
a rate: 1,000 ppm, twice the fastest an NTP daemon slews a clock (500 ppm) and ten times a
free-running quartz's usual error."""

LOCK_WORLD = (
    "SELECT owner, owner_token, owner_url, lease_until > clock_timestamp(), epoch "
    "FROM worlds WHERE id = %s FOR UPDATE"
)
EXTEND_ONE = (
    "UPDATE worlds SET lease_until = clock_timestamp() + make_interval(secs => %s), "
    "owner_url = %s WHERE id = %s AND owner_token = %s"
)
TAKE = (
    "UPDATE worlds SET epoch = epoch + 1, owner = %s, owner_token = %s, owner_url = %s, "
    "lease_until = clock_timestamp() + make_interval(secs => %s) WHERE id = %s RETURNING epoch"
)
END_OPEN_SESSIONS = (
    "UPDATE sessions SET ended = extract(epoch FROM clock_timestamp()) "
    "WHERE world = %s AND ended IS NULL"
)
"""The previous owner's sessions end on the database's clock (seconds since 1970, as the
server's own ``time.time()`` ends them)."""
RENEW = (
    "UPDATE worlds SET lease_until = clock_timestamp() + make_interval(secs => %s) "
    "WHERE owner_token = %s AND id = ANY(%s) RETURNING id, epoch"
)
"""Only the worlds the host holds now: a world it gave up whose release failed (the database
was away) keeps its token, and must not be extended for as long as the host runs."""
LOCK_WAIT = 1.0
"""The default of how many seconds a claim waits for a world's row (held for one group commit by its owner's store)
before it looks at who holds it."""
END_STUCK_WRITER = (
    "SELECT pg_terminate_backend(l.pid) FROM worlds w JOIN pg_locks l "
    "ON l.locktype = 'transactionid' AND l.transactionid = w.xmax AND l.granted "
    "AND l.mode = 'ExclusiveLock' AND l.pid <> pg_backend_pid() "
    "WHERE w.id = %s "
    "AND (w.lease_until IS NULL OR w.lease_until <= clock_timestamp() OR w.owner = %s)"
)
"""End the backend whose open transaction holds the world's row (its ``xmax``) when the
world's lease has ended (or its owner is an earlier run of this host): a former owner stopped in the middle of a commit, whose backend waits
for the rest of it and would hold the row for as long as it is stopped."""
PEEK = (
    "SELECT owner, owner_token, owner_url, lease_until > clock_timestamp() "
    "FROM worlds WHERE id = %s"
)
RELEASE = (
    "UPDATE worlds SET owner = NULL, owner_token = NULL, owner_url = NULL, lease_until = NULL "
    "WHERE owner_token = %s AND id = ANY(%s)"
)


def host_application_name(host_id: str) -> str:
    """What ``pg_stat_activity`` names every connection of host ``host_id`` (63 bytes at most,
    PostgreSQL's limit)."""
    return f"arbiter host {host_id}".encode()[:63].decode(errors="ignore")


def boot_clock() -> float:
    """Seconds on a clock that never goes back and keeps counting while the machine is
    suspended (``CLOCK_BOOTTIME`` on Linux; ``time.monotonic`` elsewhere): the database's
    clock, and so every lease, runs on while this machine sleeps or the process is stopped."""
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    if boottime is None:
        return time.monotonic()
    return time.clock_gettime(boottime)


def local_term(ttl: float, margin: float) -> float:
    """How long after sending a claim or renewal the host may serve on its lease, on its own
    clock: the least ``ttl`` on the database's clock can last on the host's, less ``margin``."""
    return ttl * (1 - DRIFT) / (1 + DRIFT) - margin


@dataclass
class Lease:
    """This host's lease on one world, under one epoch. :meth:`valid` is what the server asks
    before each answer and each commit."""

    world: str
    epoch: int
    deadline: float
    """On the host's clock: serve only before it."""
    clock: Callable[[], float] = field(repr=False)
    lost: bool = False
    """Another host claimed the world, or this host released it: never valid again."""

    def valid(self) -> bool:
        """True while this host may answer for the world: the lease held at the last renewal
        and, by this host's clock, cannot have ended on the database's yet."""
        return not self.lost and self.clock() < self.deadline

    def remaining(self) -> float:
        """Seconds left to serve on this lease (0 when it is not valid)."""
        return max(0.0, self.deadline - self.clock()) if not self.lost else 0.0


@dataclass(frozen=True)
class Claimed:
    """This host owns the world: open its store under ``epoch`` (:meth:`Host.open_store`)."""

    world: str
    epoch: int
    lease: Lease
    previous: str | None
    """The host id of the owner it was taken from (None: it was unowned or already ours)."""
    ended_sessions: int
    """How many sessions of the previous owner the claim ended."""


@dataclass(frozen=True)
class Owned:
    """Another host holds a live lease on the world: its clients belong there."""

    world: str
    host_id: str
    url: str


class UnknownWorld(LookupError):
    """A claim that may not create the world (``claim(world, create=False)``) found none: a
    world exists once its GM's ``arbiter token --store … --world`` (or a host's ``--world``)
    made it, never because a URL named it."""


class Host:
    """One serving process's claims on worlds of one PostgreSQL database.

    ``host_id`` names the host to the others (and to clients sent elsewhere, with
    ``advertise_url``); ``ttl`` is each lease's length on the database's clock. Every run of
    the process is told apart by a random token, so a restarted host takes its worlds back at
    once (moving their epochs on: its previous run, if alive, is fenced).
    """

    def __init__(
        self,
        dsn: str,
        host_id: str,
        advertise_url: str,
        ttl: float,
        margin: float | None = None,
        clock: Callable[[], float] = boot_clock,
        lock_wait: float = LOCK_WAIT,
        pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        margin = ttl / 5 if margin is None else margin
        if not host_id:
            raise ValueError("a host id must not be empty")
        if ttl <= 0 or margin < 0 or local_term(ttl, margin) <= 0:
            raise ValueError(
                f"a lease of {ttl} s with a safety margin of {margin} s leaves no time to serve"
            )
        self.dsn = dsn
        self.host_id = host_id
        self.advertise_url = advertise_url
        self.ttl = ttl
        self.margin = margin
        self.clock = clock
        self.lock_wait = lock_wait
        self.token = secrets.token_hex(16)
        self.application_name = host_application_name(host_id)
        """What ``pg_stat_activity`` names every connection of this host (its claims', its
        renewals', its pool's, its player listener's)."""
        if pool_size < 1:
            raise ValueError(f"a pool needs at least one connection, not {pool_size}")
        self.pool_size = pool_size
        self.loads = LoadSlots(pool_size)
        """The cap on loads at once on the pool (a world's at its claim, its secret, a resync):
        the rest of the pool always serves group commits."""
        self._pool: AsyncConnectionPool[Any] | None = None
        self._pooling = asyncio.Lock()
        self.leases: dict[str, Lease] = {}
        """The worlds this host holds, by id."""
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._busy = asyncio.Lock()
        """One claim or release at a time on the connection."""
        self._renew_conn: psycopg.AsyncConnection[Any] | None = None
        self._renewing = asyncio.Lock()
        """One renewal at a time, on a connection of its own: a renewal never waits for a claim
        (held up to five ``lock_wait`` by a writer stuck mid-commit), nor runs inside a claim's
        transaction (which would undo it while its lease counted as extended)."""

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        # Its own connection: a claim never waits behind a store's group commit.
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(
                self.dsn, autocommit=True, application_name=self.application_name
            )
        return self._conn

    async def _renewal_connection(self) -> psycopg.AsyncConnection[Any]:
        if self._renew_conn is None or self._renew_conn.closed:
            self._renew_conn = await psycopg.AsyncConnection.connect(
                self.dsn, autocommit=True, application_name=self.application_name
            )
        return self._renew_conn

    async def pool(self) -> AsyncConnectionPool[Any]:
        """The pool every store of this host borrows from (``pool_size`` connections at
        most), opened on first use."""
        async with self._pooling:
            if self._pool is None:
                self._pool = await open_pool(self.dsn, self.pool_size, self.application_name)
            return self._pool

    async def close(self) -> None:
        """Close the connections and the pool, after the stores using it (the leases run out
        unless released first)."""
        await self._close_claims()
        await self.close_renewals()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.close()

    async def _close_claims(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    async def close_renewals(self) -> None:
        """Drop the renewals' connection (a renewal cut off mid-statement leaves it unusable);
        the next renewal connects anew."""
        conn, self._renew_conn = self._renew_conn, None
        if conn is not None:
            await conn.close()

    async def claim(self, world: str, create: bool = True) -> Claimed | Owned:
        """Own ``world`` (creating it if new, unless ``create`` is false: then
        :class:`UnknownWorld` is raised for a world nobody made) when it is unowned, its lease
        ended, or it is this host's; a new owner moves its epoch on and ends the open sessions
        in the same transaction. Otherwise :class:`Owned` names the owner and its advertised
        URL."""
        async with self._busy:
            return await self._claim_world(world, create)

    async def _claim_world(self, world: str, create: bool) -> Claimed | Owned:
        conn = await self._connection()
        try:
            await install(conn, world if create else None)
            if not create:
                found = await conn.execute("SELECT 1 FROM worlds WHERE id = %s", (world,))
                if await found.fetchone() is None:
                    raise UnknownWorld(world)
            for _ in range(5):
                sent = self.clock()
                try:
                    return await self._claim(conn, world, sent)
                except psycopg.errors.LockNotAvailable:
                    held = await self._held_up(conn, world)
                    if held is not None:
                        return held
        except psycopg.OperationalError:
            await self._close_claims()
            raise
        raise RuntimeError(f"world {world!r} stayed locked by a writer that could not be ended")

    async def _claim(
        self, conn: psycopg.AsyncConnection[Any], world: str, sent: float
    ) -> Claimed | Owned:
        async with conn.transaction():
            await conn.execute(
                "SELECT set_config('lock_timeout', %s, true)", (f"{int(self.lock_wait * 1000)}ms",)
            )
            row = await (await conn.execute(LOCK_WORLD, (world,))).fetchone()
            assert row is not None  # install created it
            owner, token, url, live, epoch = row
            previous: str | None = None
            ended = 0
            if token == self.token:
                await conn.execute(EXTEND_ONE, (self.ttl, self.advertise_url, world, token))
            elif owner is None or not live or owner == self.host_id:
                taken = await conn.execute(
                    TAKE, (self.host_id, self.token, self.advertise_url, self.ttl, world)
                )
                epoch = _one(await taken.fetchone())
                ended = (await conn.execute(END_OPEN_SESSIONS, (world,))).rowcount
                previous = owner
            else:
                return self._owned(Owned(world, owner, url))
        lease = self.leases.get(world)
        if lease is None or lease.epoch != epoch:
            if lease is not None:
                lease.lost = True
            lease = Lease(world, epoch, sent + local_term(self.ttl, self.margin), self.clock)
            self.leases[world] = lease
        else:
            lease.deadline = max(lease.deadline, sent + local_term(self.ttl, self.margin))
        return Claimed(world, epoch, lease, previous, ended)

    async def _held_up(self, conn: psycopg.AsyncConnection[Any], world: str) -> Owned | None:
        """After a claim found the world's row locked: :class:`Owned` when another host's
        lease is live (its store is committing), else None once the writer holding the row
        (a former owner stopped mid-commit) is ended, to try again."""
        row = await (await conn.execute(PEEK, (world,))).fetchone()
        if row is not None and row[3] and row[1] != self.token and row[0] != self.host_id:
            return self._owned(Owned(world, row[0], row[2]))
        await conn.execute(END_STUCK_WRITER, (world, self.host_id))
        return None

    def _owned(self, owned: Owned) -> Owned:
        # Another host owns it: whatever lease this host still counted on there is over.
        lease = self.leases.pop(owned.world, None)
        if lease is not None:
            lease.lost = True
        return owned

    async def open_store(self, claimed: Claimed) -> PostgresStore:
        """The claimed world's store, fenced by the claim's epoch: it commits nothing once the
        world is claimed again (:class:`arbiter.bridge.stores.StaleWriter`). It borrows its
        connections from the host's pool (:meth:`pool`)."""
        return await PostgresStore.open(
            self.dsn, claimed.world, epoch=claimed.epoch, pool=await self.pool(), loads=self.loads
        )

    async def renew(self) -> list[str]:
        """Extend every lease this host holds, in one statement, and name the worlds it lost
        (claimed by another host since); their :class:`Lease` is never valid again. Raises
        when the database does not answer: the leases then run out on their own deadlines."""
        async with self._renewing:
            conn = await self._renewal_connection()
            # Only the leases held when it is sent are judged by it: a world claimed while it
            # runs is not in its answer, yet not lost.
            judged = dict(self.leases)
            sent = self.clock()
            try:
                cursor = await conn.execute(RENEW, (self.ttl, self.token, list(judged)))
                kept = dict(await cursor.fetchall())
            except psycopg.OperationalError:
                await self.close_renewals()
                raise
        lost: list[str] = []
        deadline = sent + local_term(self.ttl, self.margin)
        for world, lease in judged.items():
            if self.leases.get(world) is not lease:
                continue  # released, or claimed anew under another epoch, meanwhile
            if kept.get(world) == lease.epoch:
                lease.deadline = max(lease.deadline, deadline)
            else:
                lease.lost = True
                del self.leases[world]
                lost.append(world)
        return sorted(lost)

    async def release(self, worlds: Iterable[str] | None = None) -> None:
        """Give up ``worlds`` (every world held, by default) so another host may claim them at
        once; call it on a clean shutdown, after the last flush of their stores."""
        names = sorted(self.leases if worlds is None else worlds)
        for world in names:
            lease = self.leases.pop(world, None)
            if lease is not None:
                lease.lost = True
        async with self._busy:
            conn = await self._connection()
            await conn.execute(RELEASE, (self.token, names))


def _one(row: tuple[Any, ...] | None) -> Any:
    if row is None:
        raise RuntimeError("the world's row is missing")
    return row[0]


__all__ = [
    "DRIFT",
    "Claimed",
    "Host",
    "Lease",
    "Owned",
    "UnknownWorld",
    "boot_clock",
    "host_application_name",
    "local_term",
]
