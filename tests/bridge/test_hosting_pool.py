"""A host's worlds share its PostgreSQL connections and hear the player records other processes
write (``bridge/hosting.py``, ``bridge/stores/postgres_pool.py``), on the real PostgreSQL and
real websockets on loopback: forty worlds served and committing at once hold no more than the
pool's connections and the host's own; ``arbiter token --player`` written beside a running host
opens that player's connection to his world only, and its revocation closes his live
connection (4003) while the same name in another world keeps his; a record written while the
host's listener was down is read when it reconnects."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from websockets.sync.client import ClientConnection

from arbiter.bridge.cli import main
from arbiter.bridge.stores import postgres_pool
from tests.bridge.support import bundled_request, hello_message, receive, send
from tests.bridge.test_hosting import RunningHost, closed_with, host_config, hosting, secret_of
from tests.bridge.test_server_postgres import url

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


def connections(dsn: str) -> list[tuple[int, str]]:
    """Every client connection to the test's database but the one asking: (pid, name)."""
    with psycopg.connect(dsn, autocommit=True) as db:
        rows = db.execute(
            "SELECT pid, application_name FROM pg_stat_activity WHERE datname = "
            "current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchall()
    return [(int(pid), str(name)) for pid, name in rows]


def token(capsys: pytest.CaptureFixture[str], dsn: str, world: str, *args: str) -> str:
    """``arbiter token --store URL --world WORLD ARGS``, as the GM runs it beside the host
    (``dsn``: the database's ``postgresql://`` URL): what it prints on stdout (the token,
    when one is issued)."""
    code = main(["token", "--store", dsn, "--world", world, "--quiet", *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out.strip()


def player_hello(
    host: RunningHost, world: str, tok: str
) -> tuple[ClientConnection, dict[str, Any]]:
    ws = host.connect(world)
    send(ws, hello_message(tok, events=["outcome"]))
    return ws, receive(ws, timeout=15)


def welcome_within(
    host: RunningHost, world: str, tok: str
) -> tuple[ClientConnection, dict[str, Any]]:
    """The player's welcome, once the host has heard his record (the listener's bound: a
    notification's delivery and one read; polled, never timed)."""
    limit = time.monotonic() + 30
    while True:
        ws, answer = player_hello(host, world, tok)
        if answer["type"] == "welcome" or time.monotonic() > limit:
            return ws, answer
        ws.close()
        time.sleep(0.05)


def test_forty_worlds_committing_at_once_hold_the_pool_s_connections_and_the_host_s_own_only(
    postgres_database: str, tmp_path: Path
) -> None:
    worlds = [f"table-{i}" for i in range(40)]
    secrets = {world: secret_of(postgres_database, world) for world in worlds}
    config = host_config(tmp_path, postgres_database, "h", pool_size=4)
    with hosting(config) as host:
        gms = {}
        for world in worlds:
            ws = host.connect(world)
            send(ws, hello_message(secrets[world], events=[]))
            assert receive(ws, 15)["type"] == "welcome"
            gms[world] = ws
        for _ in range(3):
            for world, ws in gms.items():
                send(ws, bundled_request(f"{world}-r{_}"))  # every world's flush at once
            for world, ws in gms.items():
                assert receive(ws, 30)["outcome"]["id"] == f"{world}-r{_}"
        held = connections(postgres_database)
        assert len(host.host.worlds) == 40
        for ws in gms.values():
            ws.close()
    # Four pooled, and the host's own four: claims, renewals, the player records' listener,
    # the published rules' follower.
    assert len(held) <= 4 + 4, held
    assert {name for _, name in held} == {"arbiter host h"}


def test_a_player_issued_beside_a_running_host_connects_to_his_world_only_and_is_revoked_live(
    postgres: Cluster, postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for world in ("a", "b"):
        secret_of(postgres_database, world)
    with hosting(host_config(tmp_path, postgres_database, "h")) as host:
        gm_a, _ = host.hello("a", postgres_database)
        gm_b, _ = host.hello("b", postgres_database)
        store = url(postgres, postgres_database)
        ann_a = token(capsys, store, "a", "--player", "ann", "--participant", "devon")
        ann_b = token(capsys, store, "b", "--player", "ann", "--participant", "mule")
        in_a, welcome = welcome_within(host, "a", ann_a)
        assert welcome["you"] == {"player": "ann", "gm": False, "participants": ["devon"]}
        in_b, welcome_b = welcome_within(host, "b", ann_b)
        assert welcome_b["you"]["participants"] == ["mule"]
        # World a's token opens nothing in world b: its records are b's own.
        stray = host.connect("b")
        send(stray, hello_message(ann_a, events=[]))
        assert receive(stray, 15)["code"] == "unauthorized"
        assert closed_with(stray)[0] == 4001
        assert [p.name for p in host.host.worlds["b"].store.players()] == ["ann"]
        assert host.host.worlds["b"].store.player("ann").participants == ("mule",)  # type: ignore[union-attr]
        # Revoked in world a: his connection there is closed, his namesake's in b is not.
        token(capsys, store, "a", "--player", "ann", "--revoke")
        assert closed_with(in_a)[0] == 4003
        again = host.connect("a")
        send(again, hello_message(ann_a, events=[]))
        assert receive(again, 15)["code"] == "unauthorized"
        send(in_b, bundled_request("b-after", body={"skill": 50}))
        assert receive(in_b, 15)["type"] in ("outcome", "error")  # answered: still connected
        for ws in (gm_a, gm_b, in_b):
            ws.close()


def test_a_record_written_while_the_host_s_listener_is_down_is_read_when_it_reconnects(
    postgres: Cluster,
    postgres_database: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(postgres_pool, "RECONNECT_DELAY", 2.0)
    secret_of(postgres_database, "a")
    with hosting(host_config(tmp_path, postgres_database, "h")) as host:
        gm, _ = host.hello("a", postgres_database)
        feed = host.host.players.feed if host.host.players is not None else None
        assert feed is not None
        limit = time.monotonic() + 30
        while feed.backend_pid is None and time.monotonic() < limit:
            time.sleep(0.02)
        listener = feed.backend_pid
        assert listener is not None
        postgres.terminate(listener)
        while feed.backend_pid == listener and time.monotonic() < limit:
            time.sleep(0.01)
        assert feed.backend_pid is None  # down: its notification would be lost
        ann = token(
            capsys,
            url(postgres, postgres_database),
            "a",
            "--player",
            "ann",
            "--participant",
            "devon",
        )
        while feed.backend_pid is None and time.monotonic() < limit:
            time.sleep(0.02)
        assert feed.backend_pid not in (None, listener)
        # Back, it has read every world's records before it says so: the first hello works.
        ws, welcome = player_hello(host, "a", ann)
        assert welcome["type"] == "welcome" and welcome["you"]["player"] == "ann"
        for conn in (ws, gm):
            conn.close()


def test_a_token_rotated_beside_a_running_host_closes_the_old_connection_and_opens_the_new(
    postgres: Cluster, postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret_of(postgres_database, "a")
    with hosting(host_config(tmp_path, postgres_database, "h")) as host:
        ann = token(
            capsys,
            url(postgres, postgres_database),
            "a",
            "--player",
            "ann",
            "--participant",
            "devon",
        )
        ws, welcome = welcome_within(host, "a", ann)
        assert welcome["type"] == "welcome"
        rotated = token(
            capsys, url(postgres, postgres_database), "a", "--player", "ann", "--rotate"
        )
        assert rotated != ann
        code, _ = closed_with(ws)
        assert code == 4003
        new, welcome = welcome_within(host, "a", rotated)
        assert welcome["you"]["player"] == "ann"
        new.close()
