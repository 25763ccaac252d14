"""The host's listener of the player records (``bridge/stores/postgres_pool.py``,
``PlayerFeed``; ``bridge/host_players.py``) never goes deaf for long: a connection whose
server went silent without a word (a partition, a failover: no FIN, no RST) is probed and
replaced; a refresh read later is handed on later; a world's first read after its claim is
retried until it succeeds. On a real PostgreSQL, the listener reaching it through a loopback
relay that can go silent."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from arbiter.bridge import players
from arbiter.bridge.host_players import HostPlayers
from arbiter.bridge.records import Player
from arbiter.bridge.stores import postgres_pool
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_players import edit_players
from arbiter.bridge.stores.postgres_pool import PlayerFeed, fresh_connection
from tests.support.apart import run_apart


class Relay:
    """A TCP relay on loopback to the database: :meth:`silence` makes the connections relayed
    so far deliver nothing either way, open (a peer gone without a word); later ones relay."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.silent: set[asyncio.StreamWriter] = set()
        self.live: set[asyncio.StreamWriter] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    def silence(self) -> None:
        self.silent |= self.live
        self.live = set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        self.live.add(writer)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    if writer in self.silent:
                        continue  # swallowed: the bytes go nowhere, nobody says so
                    dst.write(data)
                    await dst.drain()

        for task in (
            asyncio.create_task(pipe(reader, up_writer)),
            asyncio.create_task(pipe(up_reader, writer)),
        ):
            self.tasks.add(task)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.server is not None:
            self.server.close()


@contextlib.asynccontextmanager
async def relayed(dsn: str) -> AsyncIterator[tuple[Relay, str]]:
    params = conninfo_to_dict(dsn)
    relay = Relay(str(params.get("host", "127.0.0.1")), int(str(params["port"])))
    port = await relay.start()
    try:
        yield relay, make_conninfo(dsn, host="127.0.0.1", port=port)
    finally:
        await relay.close()


def issue_ann(dsn: str) -> None:
    """Make world ``w`` (as its server's first start does) and issue ann's token."""

    async def issue() -> None:
        await (await PostgresStore.open(dsn, "w")).close()
        await edit_players(dsn, "w", lambda e: players.issue(e, "ann", ["devon"], False, 1.0)[1])

    asyncio.run(issue())


@pytest.mark.parametrize(
    ("probe", "backstop"),
    [(0.5, 3600.0), (3600.0, 0.5)],
    ids=["the-probe-finds-it-dead", "the-backstop-re-reads-anyway"],
)
def test_a_listener_whose_server_went_silent_still_brings_a_revocation(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch, probe: float, backstop: float
) -> None:
    monkeypatch.setattr(postgres_pool, "QUIET_PROBE", probe)
    monkeypatch.setattr(postgres_pool, "PROBE_TIMEOUT", 0.5)
    monkeypatch.setattr(postgres_pool, "RECONNECT_DELAY", 0.1)
    monkeypatch.setattr(postgres_pool, "BACKSTOP", backstop)
    issue_ann(postgres_database)

    async def body() -> None:
        seen: list[dict[str, Player]] = []
        revoked = asyncio.Event()

        async def changed(world: str, records: dict[str, Player]) -> None:
            seen.append(records)
            if not records["ann"].active:
                revoked.set()

        async with relayed(postgres_database) as (relay, through):
            feed = PlayerFeed(
                through,
                "arbiter test",
                lambda: ["w"],
                changed,
                lambda: fresh_connection(postgres_database, "arbiter test"),
            )
            running = asyncio.create_task(feed.run())
            await asyncio.wait_for(feed.listening.wait(), 30)
            relay.silence()  # the listener's server is gone without a word
            await edit_players(postgres_database, "w", lambda e: players.revoke(e, "ann", 2.0))
            # Read by a new connection's re-read, or by the backstop on the pool (the silent
            # connection would wait for ever).
            await asyncio.wait_for(revoked.wait(), 60)
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        assert seen[0]["ann"].active and not seen[-1]["ann"].active

    run_apart(body())


def test_a_refresh_read_later_is_handed_on_later(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    issue_ann(postgres_database)

    async def body() -> None:
        handed: list[bool] = []
        first_read = asyncio.Event()
        go = asyncio.Event()
        calls = 0
        real_read = postgres_pool.read_players

        async def read(conn: psycopg.AsyncConnection[Any], worlds: Any) -> Any:
            nonlocal calls
            calls += 1
            found = await real_read(conn, worlds)
            if calls == 1:  # the older read: read, then slow to hand on
                first_read.set()
                await go.wait()
            return found

        monkeypatch.setattr(postgres_pool, "read_players", read)

        async def changed(world: str, records: dict[str, Player]) -> None:
            handed.append(records["ann"].active)

        feed = PlayerFeed(
            postgres_database,
            "arbiter test",
            lambda: ["w"],
            changed,
            lambda: fresh_connection(postgres_database, "arbiter test"),
        )
        older = asyncio.create_task(feed.refresh(["w"]))
        await first_read.wait()  # read ann active
        await edit_players(postgres_database, "w", lambda e: players.revoke(e, "ann", 2.0))
        newer = asyncio.create_task(feed.refresh(["w"]))  # the revocation's notification
        await asyncio.wait([newer], timeout=1)
        go.set()
        await asyncio.gather(older, newer)
        assert handed == [True, False]  # the revocation is what the world holds last

    run_apart(body())


class _World:
    stale = None

    def __init__(self) -> None:
        self.records: dict[str, Player] | None = None

    def take_players(self, records: dict[str, Player]) -> None:
        self.records = records


class _FlakyPool:
    """A pool whose first lending fails (the database blinked as the world was claimed)."""

    def __init__(self, dsn: str) -> None:
        self.dsn, self.lent = dsn, 0

    def connection(self) -> contextlib.AbstractAsyncContextManager[Any]:
        self.lent += 1
        if self.lent == 1:
            raise psycopg.OperationalError("the database blinked")
        return fresh_connection(self.dsn, "arbiter test")


def test_a_world_s_first_read_of_its_records_is_retried_until_it_succeeds(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_pool, "RECONNECT_DELAY", 0.05)
    issue_ann(postgres_database)

    async def body() -> None:
        world = _World()
        pool = _FlakyPool(postgres_database)
        host = HostPlayers(postgres_database, "arbiter test", {"w": world}, pool)  # type: ignore[dict-item, arg-type]
        host.served("w")
        for _ in range(200):
            if world.records is not None:
                break
            await asyncio.sleep(0.05)
        await host.close()
        assert world.records is not None and world.records["ann"].active
        assert pool.lent == 2

    run_apart(body())
