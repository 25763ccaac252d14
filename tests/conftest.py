"""Fixtures every test folder may use: a real PostgreSQL (``tests/support/postgres.py``).

Each is started only when a test asks for it, and imported only then: a missing driver or server
fails those tests (never skips them) with a message naming what to install, and no other."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.support.postgres import Cluster, Replicated


def _postgres_support() -> ModuleType:
    try:
        from tests.support import postgres
    except ModuleNotFoundError as missing:
        pytest.fail(
            f"{missing.name} is needed (the `postgresql` extra, part of `dev`): "
            "run scripts/setup --test, or pip install -e '.[dev]'",
            pytrace=False,
        )
    return postgres


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """One PostgreSQL for the whole session (durable: fsync on), deleted at its end. Tests that
    write should take their own database (``postgres_database``)."""
    support = _postgres_support()
    try:
        with support.running_cluster() as cluster:
            yield cluster
    except support.PostgresMissing as missing:
        pytest.fail(str(missing), pytrace=False)


@pytest.fixture
def postgres_database(postgres: Cluster) -> Iterator[str]:
    """A new empty database on the session's PostgreSQL, dropped after the test: its libpq
    connection string."""
    name = f"test_{uuid.uuid4().hex}"
    dsn = postgres.create_database(name)
    yield dsn
    postgres.drop_database(name)


@pytest.fixture
def replicated_postgres() -> Iterator[Replicated]:
    """A primary with a synchronous standby, this test's alone (a failover ends it)."""
    support = _postgres_support()
    try:
        with support.replicated() as pair:
            yield pair
    except support.PostgresMissing as missing:
        pytest.fail(str(missing), pytrace=False)
