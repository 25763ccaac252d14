"""Many worlds per host (``bridge/hosting.py``, ``arbiter serve --host-id``) on a real PostgreSQL
and real websockets on loopback: two hosts contend for one world (one serves, the other closes
with 4010 naming it); one host serves two worlds with their own chains and secrets; a stale
writer stops one world and not the other; a host that cannot renew stops answering and the
world's next owner is named, and a listener reconnecting there with its last seq gets the gap; a
renewal naming a world lost closes it; an idle world is released; a clean shutdown releases, so
another host claims at once."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from arbiter.bridge.hosting import CLOSE_MOVED, WorldHost, moved_reason, world_of
from arbiter.bridge.server_config import Hosting, ServerConfig
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.world import PostgresWorld, postgres_secret
from tests.bridge.stores.test_ownership import wait_lease_over
from tests.bridge.support import bundled_config, bundled_request, hello_message, receive, send
from tests.support.apart import run_apart
from tests.support.rolls import new_roll


def secret_of(dsn: str, world: str) -> str:
    """The world's GM secret (the world's row and the schema made if missing)."""
    return str(run_apart(postgres_secret(PostgresWorld(dsn, world))))


@dataclass
class RunningHost:
    """A host running on a fresh event loop in a thread; ``call`` runs a coroutine there."""

    host: WorldHost
    loop: asyncio.AbstractEventLoop

    def call(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def connect(self, world: str | None) -> ClientConnection:
        path = "/" if world is None else f"/w/{world}"
        return connect(f"ws://127.0.0.1:{self.host.port}{path}", open_timeout=10, close_timeout=2)

    def hello(self, world: str, dsn: str) -> tuple[ClientConnection, dict[str, Any]]:
        """A GM connection to ``world`` (its secret read from the database) and its welcome."""
        secret = secret_of(dsn, world)
        ws = self.connect(world)
        send(ws, hello_message(secret, events=[]))
        return ws, receive(ws, timeout=15)


def host_config(tmp: Path, dsn: str, host_id: str, ttl: float = 30.0, **more: Any) -> ServerConfig:
    hosting = Hosting(dsn, host_id, f"ws://{host_id}.example:8765", ttl, **more)
    return replace(bundled_config(tmp), hosting=hosting)


@contextmanager
def hosting(config: ServerConfig) -> Iterator[RunningHost]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="arbiter-test-host", daemon=True)
    thread.start()

    async def start() -> WorldHost:
        host = WorldHost(config)
        try:
            await host.start()
        except BaseException:
            await host.close()
            raise
        return host

    run = RunningHost(asyncio.run_coroutine_threadsafe(start(), loop).result(30), loop)
    try:
        yield run
    finally:
        run.call(run.host.close())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def closed_with(ws: ClientConnection) -> tuple[int, str]:
    """Read until the server closes the connection: its close code and reason."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(30)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def owner(dsn: str, world: str) -> tuple[Any, ...]:
    with psycopg.connect(dsn) as db:
        row = db.execute("SELECT owner, epoch FROM worlds WHERE id = %s", (world,)).fetchone()
    assert row is not None
    return tuple(row)


def world_rows(dsn: str, world: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn) as db:
        found = db.execute(
            "SELECT seq, request_id FROM rolls WHERE world = %s ORDER BY seq", (world,)
        )
        return [(int(seq), str(rid)) for seq, rid in found.fetchall()]


def test_two_hosts_contend_for_one_world_one_serves_and_the_other_closes_4010_naming_it(
    postgres_database: str, tmp_path: Path
) -> None:
    with (
        hosting(host_config(tmp_path / "a", postgres_database, "a")) as a,
        hosting(host_config(tmp_path / "b", postgres_database, "b")) as b,
    ):
        ws, welcome = a.hello("table-7", postgres_database)
        assert welcome["type"] == "welcome"
        send(ws, bundled_request("r-1"))
        assert receive(ws)["type"] == "outcome"
        refused = b.connect("table-7")
        code, reason = closed_with(refused)
        assert code == CLOSE_MOVED == 4010
        assert json.loads(reason) == {"owner": "a", "url": "ws://a.example:8765"}
        assert b.host.moved == 1 and "table-7" not in b.host.worlds
        # The owner goes on serving; nothing of host b is in the world.
        send(ws, bundled_request("r-2"))
        assert receive(ws)["seq"] == 2
        ws.close()
    assert world_rows(postgres_database, "table-7") == [(1, "r-1"), (2, "r-2")]


def test_one_host_serves_two_worlds_each_with_its_own_chain_secret_and_sessions(
    postgres_database: str, tmp_path: Path
) -> None:
    with hosting(host_config(tmp_path, postgres_database, "a")) as a:
        one, _ = a.hello("one", postgres_database)
        two, _ = a.hello("two", postgres_database)
        for rid in ("x-1", "x-2"):
            send(one, bundled_request(rid))
            assert receive(one)["type"] == "outcome"
        send(two, bundled_request("x-1"))  # the same id in another world is another request
        decided = receive(two)
        assert decided["type"] == "outcome" and decided["seq"] == 1
        assert decided["replayed"] is False
        # One world's secret is nobody in the other.
        stranger = a.connect("two")
        send(stranger, hello_message(secret_of(postgres_database, "one")))
        assert receive(stranger)["code"] == "unauthorized"
        assert closed_with(stranger)[0] == 4001
        with urllib.request.urlopen(f"http://127.0.0.1:{a.host.port}/healthz", timeout=10) as r:
            health = json.load(r)
        assert health["host"] == "a" and health["worlds"] == 2 and health["connections"] == 2
        assert set(a.host.worlds) == {"one", "two"}
        # The host's rules serve both worlds: one snapshot, shared.
        assert a.host.worlds["one"].rules is a.host.worlds["two"].rules is a.host.rules
        one.close()
        two.close()
    assert world_rows(postgres_database, "one") == [(1, "x-1"), (2, "x-2")]
    assert world_rows(postgres_database, "two") == [(1, "x-1")]
    for world in ("one", "two"):
        store = run_apart(PostgresStore.snapshot(postgres_database, world))
        assert store.verify_chain() == []


def test_a_stale_writer_stops_its_world_only_and_the_host_serves_on(
    postgres_database: str, tmp_path: Path
) -> None:
    with hosting(host_config(tmp_path, postgres_database, "a")) as a:
        one, _ = a.hello("one", postgres_database)
        two, _ = a.hello("two", postgres_database)

        async def another_writer() -> None:
            other = await PostgresStore.open(postgres_database, "one")
            other.stage(new_roll("theirs"))
            await other.flush()
            await other.close()

        run_apart(another_writer())
        send(one, bundled_request("r-1"))
        assert receive(one)["code"] == "unavailable"
        assert closed_with(one)[0] == 4009
        send(two, bundled_request("r-1"))
        assert receive(two)["type"] == "outcome"
        two.close()
    assert world_rows(postgres_database, "one") == [(1, "theirs")]
    assert world_rows(postgres_database, "two") == [(1, "r-1")]


def test_a_host_that_cannot_renew_stops_answering_and_then_names_the_next_owner(
    postgres_database: str, tmp_path: Path
) -> None:
    # Host a's leases last 2 s on the database's clock; its renewals are held and its release
    # fails (as when the database no longer answers it), so its lease runs out on its own clock,
    # then on the database's, and host b claims the world.
    with (
        hosting(host_config(tmp_path / "a", postgres_database, "a", ttl=2.0)) as a,
        hosting(host_config(tmp_path / "b", postgres_database, "b")) as b,
    ):
        ws, _ = a.hello("w", postgres_database)
        send(ws, bundled_request("r-1"))
        assert receive(ws)["seq"] == 1
        a.call(hold_renewals(a))
        # No renewal: the world is closed at the lease's local deadline, before anyone asks.
        assert closed_with(ws)[0] == 4009
        assert "w" not in a.host.worlds
        wait_lease_over(postgres_database, "w")
        taken, _ = b.hello("w", postgres_database)
        send(taken, bundled_request("r-2"))
        assert receive(taken)["seq"] == 2
        assert owner(postgres_database, "w") == ("b", 2)
        # Asked again, host a claims in vain and sends the client to b.
        code, reason = closed_with(a.connect("w"))
        assert code == 4010 and json.loads(reason)["owner"] == "b"
        taken.close()
    assert world_rows(postgres_database, "w") == [(1, "r-1"), (2, "r-2")]


def test_a_listener_of_a_world_that_moved_reconnects_to_its_new_host_and_gets_the_gap(
    postgres_database: str, tmp_path: Path
) -> None:
    with (
        hosting(host_config(tmp_path / "a", postgres_database, "a", ttl=2.0)) as a,
        hosting(host_config(tmp_path / "b", postgres_database, "b")) as b,
    ):
        secret = secret_of(postgres_database, "w")
        gm, _ = a.hello("w", postgres_database)
        listener = a.connect("w")
        send(listener, hello_message(secret, events=["outcome"]))
        assert receive(listener)["type"] == "welcome"
        send(gm, bundled_request("r-1"))
        assert receive(gm)["seq"] == 1
        seen = receive(listener)
        assert seen["event"] == "outcome" and seen["seq"] == 1
        a.call(hold_renewals(a))
        assert closed_with(gm)[0] == 4009 and closed_with(listener)[0] == 4009
        wait_lease_over(postgres_database, "w")
        gm, _ = b.hello("w", postgres_database)
        decided = []
        for rid in ("r-2", "r-3"):
            send(gm, bundled_request(rid))
            decided.append(receive(gm))
        assert [d["seq"] for d in decided] == [2, 3]
        back = b.connect("w")
        send(back, {**hello_message(secret, events=["outcome"]), "since": seen["seq"]})
        assert receive(back)["type"] == "welcome"
        replayed = [receive(back) for _ in decided]
        assert [(e["seq"], e["replayed"]) for e in replayed] == [(2, True), (3, True)]
        assert [e["outcome"] for e in replayed] == [d["outcome"] for d in decided]
        gm.close()
        back.close()


async def hold_renewals(running: RunningHost) -> None:
    """From now on the host's renewals never answer and its releases fail, as when the
    database no longer answers it (its leases run out)."""
    owner = running.host.owner
    assert owner is not None

    async def never() -> list[str]:
        await asyncio.Event().wait()
        return []

    async def unreachable(worlds: Any = None) -> None:
        raise OSError("the database does not answer")

    owner.renew = never  # type: ignore[method-assign]
    owner.release = unreachable  # type: ignore[method-assign]


def test_a_world_a_renewal_names_lost_is_closed_at_once_without_a_request(
    postgres_database: str, tmp_path: Path
) -> None:
    # A restarted host (same host id, another run) takes its worlds back at once; the earlier
    # run learns it at its next renewal (every ttl/3 = 1 s here), before its lease ends.
    with hosting(host_config(tmp_path / "1", postgres_database, "a", ttl=3.0)) as first:
        ws, _ = first.hello("w", postgres_database)
        send(ws, bundled_request("r-1"))
        assert receive(ws)["seq"] == 1
        with hosting(host_config(tmp_path / "2", postgres_database, "a", ttl=3.0)) as second:
            taken, _ = second.hello("w", postgres_database)
            assert owner(postgres_database, "w") == ("a", 2)
            assert closed_with(ws)[0] == 4009
            send(taken, bundled_request("r-2"))
            assert receive(taken)["seq"] == 2
            taken.close()
    assert world_rows(postgres_database, "w") == [(1, "r-1"), (2, "r-2")]


def test_a_world_nobody_uses_is_released_and_another_host_claims_it_at_once(
    postgres_database: str, tmp_path: Path
) -> None:
    idle = host_config(tmp_path / "a", postgres_database, "a", ttl=3.0, idle_release=0.5)
    with hosting(idle) as a:
        ws, _ = a.hello("w", postgres_database)
        send(ws, bundled_request("r-1"))
        assert receive(ws)["seq"] == 1
        ws.close()
        wait_released(postgres_database, "w")
        assert "w" not in a.host.worlds
        with hosting(host_config(tmp_path / "b", postgres_database, "b")) as b:
            taken, _ = b.hello("w", postgres_database)
            send(taken, bundled_request("r-1"))
            assert receive(taken)["replayed"] is True
            assert owner(postgres_database, "w") == ("b", 2)
            taken.close()


def wait_released(dsn: str, world: str) -> None:
    """Until the world has no owner (polling the database; the limit guards against a hang)."""
    limit = time.monotonic() + 60
    while owner(dsn, world)[0] is not None:
        assert time.monotonic() < limit, f"{world!r} was never released"
        time.sleep(0.05)


def test_a_clean_shutdown_releases_the_worlds_so_another_host_claims_at_once(
    postgres_database: str, tmp_path: Path
) -> None:
    # A 600 s lease: only the release lets host b in before the end of the test.
    with hosting(host_config(tmp_path / "a", postgres_database, "a", ttl=600.0)) as a:
        ws, _ = a.hello("w", postgres_database)
        send(ws, bundled_request("r-1"))
        assert receive(ws)["seq"] == 1
    assert closed_with(ws)[0] == 1001  # going away
    assert owner(postgres_database, "w") == (None, 1)
    with hosting(host_config(tmp_path / "b", postgres_database, "b", ttl=600.0)) as b:
        ws, _ = b.hello("w", postgres_database)
        send(ws, bundled_request("r-1"))
        again = receive(ws)
        assert again["replayed"] is True and again["seq"] == 1
        assert owner(postgres_database, "w") == ("b", 2)
        ws.close()


def test_the_world_named_by_world_is_claimed_at_start_and_served_at_the_bare_path(
    postgres_database: str, tmp_path: Path
) -> None:
    with hosting(host_config(tmp_path, postgres_database, "a", world="table-1")) as a:
        assert owner(postgres_database, "table-1") == ("a", 1)
        ws = a.connect(None)
        send(ws, hello_message(secret_of(postgres_database, "table-1"), events=[]))
        assert receive(ws)["type"] == "welcome"
        ws.close()
        with pytest.raises(InvalidStatus) as refused:
            connect(f"ws://127.0.0.1:{a.host.port}/x/y", open_timeout=10)
        assert refused.value.response.status_code == 404


def test_world_paths_and_moved_reasons() -> None:
    assert world_of("/w/table-7", None) == "table-7"
    assert world_of("/w/table%207/?x=1", None) == "table 7"
    assert world_of("/", "d") == "d" and world_of("/", None) is None
    assert world_of("/w/", None) is None and world_of("/w/a/b", None) is None
    assert world_of("/w/%00", None) is None and world_of("/w/" + "x" * 101, None) is None
    assert moved_reason("b", "wss://b.example") == '{"owner":"b","url":"wss://b.example"}'
    long_url = "wss://" + "u" * 120
    assert moved_reason("b", long_url) == '{"owner":"b"}'
    assert len(moved_reason("h" * 300, long_url).encode()) <= 123
    escaped = moved_reason('"' * 100 + "é" * 50, long_url)
    assert len(escaped.encode()) <= 123 and json.loads(escaped)["owner"].startswith('""')


def test_a_url_naming_a_world_nobody_made_is_closed_and_creates_nothing(
    tmp_path: Path, postgres_database: str
) -> None:
    with hosting(host_config(tmp_path, postgres_database, "a")) as a:
        a.hello("made", postgres_database)  # the GM's `arbiter token` made this one
        code, reason = closed_with(a.connect("nobody-made-this"))
        assert (code, reason) == (1008, "no such world on this service")
        assert set(a.host.worlds) == {"made"} and a.host.unknown == 1
    with psycopg.connect(postgres_database) as db:
        worlds = [row[0] for row in db.execute("SELECT id FROM worlds ORDER BY id")]
        secrets = [row[0] for row in db.execute("SELECT world FROM world_secrets ORDER BY world")]
    assert worlds == ["made"] and secrets == ["made"]
