"""The ``backend`` fixture: each contract test runs once per store backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bridge.stores.backends import Backend, PostgresBackend, SqliteBackend


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    """A store backend with nothing stored: SQLite files in a new folder, or a new database
    on the session's real PostgreSQL."""
    if request.param == "sqlite":
        return SqliteBackend(tmp_path)
    return PostgresBackend(
        request.getfixturevalue("postgres"), request.getfixturevalue("postgres_database")
    )
