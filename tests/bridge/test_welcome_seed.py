"""The session's seed row (its seed and the commitment ``welcome`` carries) is committed before
``welcome`` is sent, on either store: another reader of the store sees it the moment the client
holds its welcome, so ``arbiter reveal`` can verify the session even if the server dies next."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from arbiter.bridge.world import PostgresWorld
from tests.bridge.support import bundled_config, running


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_session_s_seed_row_is_committed_before_its_welcome_is_sent(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if backend == "sqlite":
        config = bundled_config(tmp_path)
    else:
        dsn = request.getfixturevalue("postgres_database")
        config = bundled_config(tmp_path, postgres=PostgresWorld(dsn, "w"))
    with running(config) as srv:
        ws, welcome = srv.hello(events=[])
        query = "SELECT commitment, ended FROM sessions WHERE id = "
        if backend == "sqlite":
            with sqlite3.connect(config.data / "arbiter.sqlite3") as db:
                row = db.execute(f"{query}?", (welcome["session"],)).fetchone()
        else:
            with psycopg.connect(dsn) as pg:
                row = pg.execute(f"{query}%s", (welcome["session"],)).fetchone()
        ws.close()
    assert tuple(row) == (welcome["commitment"], None)
