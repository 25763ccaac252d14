"""Fixtures every test folder may use: a real PostgreSQL (``tests/support/postgres.py``).

Each is started only when a test asks for it. Without PostgreSQL's server programs the tests
that ask fail (never skip) with a message naming what to install."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.support.postgres import Cluster, PostgresMissing, Replicated, replicated, running_cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """One PostgreSQL for the whole session (durable: fsync on), deleted at its end. Tests that
    write should take their own database (``postgres_database``)."""
    try:
        with running_cluster() as cluster:
            yield cluster
    except PostgresMissing as missing:
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
    try:
        with replicated() as pair:
            yield pair
    except PostgresMissing as missing:
        pytest.fail(str(missing), pytrace=False)
