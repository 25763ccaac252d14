"""``arbiter token --player`` on a world in PostgreSQL, run beside ``arbiter serve`` as its GM
runs it: the player's token opens his connection to the running server (a host of many worlds,
and one world alone in its process), and ``--revoke`` closes it (4003); ``--players`` lists the
records; a GM's bind decided on a record before its revocation does not bring the token back."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from arbiter.bridge import players
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_players import edit_players
from arbiter.bridge.stores.postgres_schema import SCHEMA_VERSION
from tests.bridge.serving import ServeProcess
from tests.bridge.support import hello_message, receive, send
from tests.bridge.test_server_postgres import url
from tests.support.apart import run_apart

if TYPE_CHECKING:
    from tests.support.postgres import Cluster

ARBITER = str(Path(sys.executable).parent / "arbiter")


def arbiter_token(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARBITER, "token", *args], capture_output=True, text=True, timeout=60)


def welcome_within(address: str, token: str) -> tuple[ClientConnection, dict[str, Any]]:
    """The player's welcome once the server has heard his record (polled, never timed)."""
    limit = time.monotonic() + 30
    while True:
        ws = connect(address, open_timeout=10, close_timeout=2)
        send(ws, hello_message(token, events=[]))
        answer = receive(ws, 15)
        if answer["type"] == "welcome" or time.monotonic() > limit:
            return ws, answer
        ws.close()
        time.sleep(0.05)


def closed_code(ws: ClientConnection) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(30)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


@pytest.mark.parametrize("hosted", [True, False], ids=["host-id", "one-world"])
def test_a_player_issued_beside_a_running_server_connects_and_his_revocation_closes_him(
    postgres: Cluster, postgres_database: str, hosted: bool
) -> None:
    store = ["--store", url(postgres, postgres_database), "--world", "w"]
    assert arbiter_token(*store).returncode == 0  # the GM's secret: the world is made
    serve = ServeProcess([ARBITER, "serve"], None, *store, *(["--host-id", "a"] if hosted else []))
    try:
        issued = arbiter_token(*store, "--player", "ann", "--participant", "devon", "--quiet")
        assert issued.returncode == 0, issued.stderr
        ws, welcome = welcome_within(serve.url, issued.stdout.strip())
        assert welcome["you"] == {"player": "ann", "gm": False, "participants": ["devon"]}
        listed = arbiter_token(*store, "--players")
        assert (
            listed.stdout.startswith("ann\tdevon\tcreated ") and "\tactive\ttoken" in listed.stdout
        )
        revoked = arbiter_token(*store, "--player", "ann", "--revoke")
        assert revoked.returncode == 0 and "revoked" in revoked.stderr
        assert closed_code(ws) == 4003
    finally:
        serve.stop()


def test_a_bind_decided_on_a_record_before_its_revocation_leaves_the_revoked_token_void(
    postgres_database: str,
) -> None:
    async def body() -> None:
        def issue(edit: Any) -> str | None:
            return players.issue(edit, "ann", ["devon"], False, 1.0)[1]

        await (await PostgresStore.open(postgres_database, "w")).close()  # the world made
        token = await edit_players(postgres_database, "w", issue)
        assert token is not None
        store = await PostgresStore.open(postgres_database, "w")
        # Revoked from another process; this store has not heard of it yet ...
        await edit_players(postgres_database, "w", lambda e: players.revoke(e, "ann", 2.0))
        assert players.by_token(store, token) is not None
        # ... and the GM binds him anew on the record it holds: the token must stay void.
        players.bind(store, "ann", ["devon", "mule"], 3.0)
        await store.flush()
        await store.close()
        with psycopg.connect(postgres_database) as db:
            row = db.execute(
                "SELECT participants, token_hash, revoked FROM players WHERE name = 'ann'"
            ).fetchone()
        assert row is not None and row[1] is None and row[2] is None
        fresh = await PostgresStore.open(postgres_database, "w")
        assert players.by_token(fresh, token) is None
        assert fresh.player("ann") is not None and fresh.player("ann").participants == (  # type: ignore[union-attr]
            "devon",
            "mule",
        )
        await fresh.close()

    run_apart(body())


def test_player_options_on_a_mistyped_world_are_refused_and_make_nothing(
    postgres: Cluster, postgres_database: str
) -> None:
    store = url(postgres, postgres_database)
    assert arbiter_token("--store", store, "--world", "w", "--quiet").returncode == 0  # made
    for args in (["--players"], ["--player", "ann", "--participant", "devon"]):
        done = arbiter_token("--store", store, "--world", "ww", *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert "no world 'ww'" in done.stderr and done.stdout == ""
    with psycopg.connect(postgres_database) as db:
        assert db.execute("SELECT id FROM worlds ORDER BY id").fetchall() == [("w",)]
    # The world made by `arbiter token` alone takes its players.
    done = arbiter_token("--store", store, "--world", "w", "--player", "ann", "--participant", "x")
    assert done.returncode == 0 and done.stdout.strip()


def test_player_options_on_a_database_without_a_world_create_no_schema(
    postgres: Cluster, postgres_database: str
) -> None:
    done = arbiter_token("--store", url(postgres, postgres_database), "--world", "w", "--players")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no arbiter schema" in done.stderr
    with psycopg.connect(postgres_database) as db:
        assert db.execute("SELECT to_regclass('worlds')").fetchone() == (None,)


def test_another_arbiter_s_schema_is_an_error_line_naming_both_versions(
    postgres: Cluster, postgres_database: str
) -> None:
    store = url(postgres, postgres_database)
    assert arbiter_token("--store", store, "--world", "w", "--quiet").returncode == 0
    with psycopg.connect(postgres_database) as db:
        db.execute("UPDATE arbiter_meta SET value = '99' WHERE key = 'schema'")
    for args in ([], ["--players"]):
        done = arbiter_token("--store", store, "--world", "w", *args)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert f"store schema 99, this arbiter reads {SCHEMA_VERSION}" in done.stderr
