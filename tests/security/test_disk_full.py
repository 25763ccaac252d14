"""The disk under the roll log fills up while clients keep playing.

Found: a new connection's hello was closed with 1011 and no message, and every failed commit
logged a full traceback (1,414 in 12 s). Now a hello or a request the store cannot write gets
an ``unavailable`` error saying nothing was decided, the connection stays up, and the log says
one line per failure (a traceback once per distinct error).

The stand-in for a full disk is SQLite's ``PRAGMA max_page_count`` on the server's own store
connection, set to the pages the database has: any write that needs a new page then fails with
SQLITE_FULL ("database or disk is full"), the very error a full disk gives, through the same
code paths, without mounting a tiny filesystem (which needs root) or filling a real disk.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.limits import Limits
from arbiter.bridge.server import ServerConfig
from arbiter.bridge.store import RollbackLostRows, Session, Store
from tests.bridge.support import (
    Running,
    bundled_config,
    bundled_request,
    hello_message,
    receive,
    running,
    send,
)
from tests.support.rolls import new_roll

ATTEMPTS = 300
"""More than the rows that fit in the pages left (a few dozen): the disk is full well before."""


def config(tmp_path: Path) -> ServerConfig:
    """A world of the bundled rules, with no rate limit in the way of the attempts."""
    return bundled_config(tmp_path, limits=Limits(rate_per_second=1e6, burst=10**6))


def store_pragma(srv: Running, pragma: str) -> Any:
    """Run ``PRAGMA ...`` on the server's own store connection, on the server's event loop."""

    async def run() -> Any:
        return srv.server.store._db.execute(f"PRAGMA {pragma}").fetchone()

    return srv.call(run())


@contextmanager
def disk_full(srv: Running) -> Iterator[None]:
    """No page may be added to the store until the block ends (room made again)."""
    [pages] = store_pragma(srv, "page_count")
    store_pragma(srv, f"max_page_count = {pages}")
    try:
        yield
    finally:
        store_pragma(srv, "max_page_count = 1073741823")


def test_a_hello_on_a_full_disk_is_told_why_and_may_say_hello_again(tmp_path: Path) -> None:
    with running(config(tmp_path)) as srv:
        with disk_full(srv):
            # Each welcomed hello logs a session row; sooner or later one finds no room.
            for _ in range(ATTEMPTS):
                ws = srv.connect()
                send(ws, hello_message(srv.server.secret))
                reply = receive(ws)
                if reply["type"] == "error":
                    break
                ws.close()
            send(ws, hello_message(srv.server.secret))
            again = receive(ws)
        send(ws, hello_message(srv.server.secret))
        welcome = receive(ws)
        send(ws, bundled_request("after-room", "check", {"skill": 50}))
        outcome = receive(ws)
        ws.close()
    assert reply == {
        "v": 1,
        "type": "error",
        "id": None,
        "code": "unavailable",
        "message": "the roll log cannot be written (disk full?), so no session could be "
        "opened; nothing was decided. Send hello again on this connection once the server has "
        "room",
        "retry_after": None,
    }
    assert again["code"] == "unavailable"
    assert welcome["type"] == "welcome"
    assert outcome["type"] == "outcome"


def test_a_request_on_a_full_disk_is_not_decided_and_its_id_is_decided_once_room_is_made(
    tmp_path: Path,
) -> None:
    with running(config(tmp_path)) as srv:
        ws, _ = srv.hello()
        with disk_full(srv):
            for n in range(ATTEMPTS):
                send(ws, bundled_request(f"r{n}", "check", {"skill": 50}))
                reply = receive(ws)
                if reply["type"] == "error":
                    break
            refused_id = f"r{n}"
            logged_while_full = srv.server.store.find(refused_id)
            send(ws, {"v": 1, "type": "ping", "id": "still-up"})
            pong = receive(ws)
        send(ws, bundled_request(refused_id, "check", {"skill": 50}))
        retried = receive(ws)
        ws.close()
    assert reply == {
        "v": 1,
        "type": "error",
        "id": refused_id,
        "code": "unavailable",
        "message": "the roll log cannot be written (disk full?); nothing was decided. Retry "
        "with the same id once the server has room",
        "retry_after": None,
    }
    assert logged_while_full is None
    assert pong == {"v": 1, "type": "pong", "id": "still-up"}
    assert retried["type"] == "outcome" and retried["replayed"] is False


def test_each_failure_on_a_full_disk_logs_one_line_and_one_traceback_in_all(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with running(config(tmp_path)) as srv:
        ws, _ = srv.hello()
        with disk_full(srv):
            failures = 0
            for n in range(ATTEMPTS):
                send(ws, bundled_request(f"r{n}", "check", {"skill": 50}))
                reply = receive(ws)
                if reply["type"] == "error":
                    assert reply["code"] == "unavailable"
                    failures += 1
        ws.close()
    records = [r for r in caplog.records if r.name.startswith("arbiter")]
    failed = [r for r in records if "roll log" in r.getMessage()]
    assert failures > 100
    assert len(failed) == failures
    assert all("database or disk is full" in r.getMessage() for r in failed)
    assert [r.exc_info is not None for r in records].count(True) == 1


def test_rows_staged_before_a_write_sqlite_rolls_back_whole_are_never_acknowledged(
    tmp_path: Path,
) -> None:
    # On SQLITE_FULL, SQLite rolls back the whole transaction for a statement without a
    # statement journal (a session's INSERT): the rows staged before it in the same group
    # commit go too. Their commit must fail (their senders hear "nothing was decided"), not
    # return as if they were durable, and the chain must go on from the last committed row.
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("kept"))
    [pages] = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    store.stage(new_roll("staged"))
    with pytest.raises(sqlite3.OperationalError, match="database or disk is full"):
        for n in range(ATTEMPTS):
            store.open_session(Session(f"s{n}", "ab" * 32, "cd" * 32, "u" * 64, "{}", 0.0, None))
    with pytest.raises(RollbackLostRows):
        store.commit()
    store._db.execute("PRAGMA max_page_count = 1073741823")
    after = store.append(new_roll("after"))
    assert store.find("staged") is None
    assert after.seq == 2
    assert [r.entry.request_id for r in store.rolls()] == ["kept", "after"]
    assert store.verify_chain() == []
    store.close()
