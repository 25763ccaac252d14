"""``arbiter serve --host-id`` as its operator runs it: two processes contend for ``--world w``
(the second closes a connection at the bare path with 4010 naming the first and its advertised
URL); the first, stopped by SIGTERM, releases the world and the second serves it at the next
connection; contradictory options are refused with a message naming them."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from arbiter.bridge.commands.serve import add_arguments, cache_rows, config_from
from arbiter.bridge.server_config import Hosting
from tests.bridge.serving import ServeProcess
from tests.bridge.support import bundled_request, hello_message, receive, send
from tests.bridge.test_server_postgres import url

if TYPE_CHECKING:
    from tests.support.postgres import Cluster

ARBITER = str(Path(sys.executable).parent / "arbiter")


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_two_serve_processes_contend_and_a_terminated_one_hands_the_world_over_at_once(
    postgres: Cluster, postgres_database: str
) -> None:
    store = ["--store", url(postgres, postgres_database), "--world", "w"]
    secret = subprocess.run(
        [ARBITER, "token", *store], capture_output=True, text=True, check=True
    ).stdout.strip()
    # Leases of 600 s: only the release lets the second host in during the test.
    lease = ["--lease-ttl", "600"]
    first = ServeProcess(
        [ARBITER, "serve"],
        None,
        *store,
        *lease,
        "--host-id",
        "a",
        "--advertise-url",
        "wss://a.example",
    )
    second = ServeProcess([ARBITER, "serve"], None, *store, *lease, "--host-id", "b")
    try:
        with connect(first.url, open_timeout=10) as ws:
            send(ws, hello_message(secret, events=[]))
            assert receive(ws, 15)["type"] == "welcome"
            send(ws, bundled_request("r-1"))
            assert receive(ws, 15)["seq"] == 1
        with (
            connect(second.url, open_timeout=10) as moved,
            pytest.raises(ConnectionClosed) as closed,
        ):
            moved.recv(15)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4010
        assert json.loads(closed.value.rcvd.reason) == {"owner": "a", "url": "wss://a.example"}
        first.stop()
        assert first.proc.returncode == 0
        with connect(f"{second.url}/w/w", open_timeout=10) as ws:
            send(ws, hello_message(secret, events=[]))
            assert receive(ws, 15)["type"] == "welcome"
            send(ws, bundled_request("r-1"))
            again = receive(ws, 15)
        assert again["replayed"] is True and again["seq"] == 1
    finally:
        first.stop()
        second.stop()


def test_host_options_make_a_hosting_config_and_contradictions_are_named() -> None:
    dsn = "postgresql://arbiter@db.example.com/arbiter"
    config = config_from(parse("--store", dsn, "--host-id", "h-1", "--lease-ttl", "5"))
    assert config.hosting == Hosting(dsn, "h-1", None, 5.0, None, 600.0)
    never = config_from(parse("--store", dsn, "--host-id", "h-1", "--idle-release", "0"))
    assert never.hosting is not None and never.hosting.idle_release is None
    assert config.hosting.pool_size == 10
    pooled = config_from(parse("--store", dsn, "--host-id", "h-1", "--pool-size", "40"))
    assert pooled.hosting is not None and pooled.hosting.pool_size == 40
    assert config.postgres is None
    bad = {
        ("--store", dsn, "--world", "w", "--advertise-url", "wss://x"): "give --host-id too",
        ("--store", dsn, "--world", "w", "--lease-ttl", "3"): "give --host-id too",
        ("--store", dsn, "--world", "w", "--idle-release", "3"): "give --host-id too",
        ("--store", dsn, "--world", "w", "--pool-size", "3"): "give --host-id too",
        ("--store", dsn, "--host-id", "h", "--pool-size", "0"): "at least one connection",
        ("--store", dsn, "--host-id", "h", "--idle-release", "-1"): "0 for never",
        ("--data", "d", "--host-id", "h"): "PostgreSQL --store",
        ("--store", dsn, "--host-id", "h", "--lease-ttl", "0"): "positive length",
        ("--store", dsn, "--host-id", "h", "--advertise-url", "ftp://x"): "ws:// or wss://",
        ("--store", dsn, "--host-id", "h" * 60, "--advertise-url", "wss://" + "x" * 60): (
            "too long together"
        ),
    }
    for argv, message in bad.items():
        with pytest.raises(ValueError, match=message):
            config_from(parse(*argv))


def test_cache_rows_sets_the_rows_each_postgresql_world_holds_whole_and_is_refused_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import arbiter.bridge.stores.postgres as postgres_store

    monkeypatch.setattr(postgres_store, "_default_cache_rows", postgres_store.DEFAULT_CACHE_ROWS)
    dsn = "postgresql://arbiter@db.example.com/arbiter"
    cache_rows(parse("--store", dsn, "--world", "w", "--cache-rows", "50"))
    assert postgres_store._default_cache_rows == 50
    with pytest.raises(ValueError, match="for worlds in PostgreSQL"):
        cache_rows(parse("--data", "d", "--cache-rows", "50"))
    with pytest.raises(ValueError, match="cannot be negative"):
        cache_rows(parse("--store", dsn, "--world", "w", "--cache-rows", "-1"))
