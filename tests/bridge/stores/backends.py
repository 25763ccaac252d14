"""The two backends of the world store, as the contract suite drives them: open a world,
close it, make its next commit fail for real, and edit its log behind its back."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import psycopg

from arbiter.bridge.store import Store
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.stores.postgres import PostgresStore

if TYPE_CHECKING:
    from tests.support.postgres import Cluster


CACHE_ROWS = 3
"""The PostgreSQL store holds only its 3 most recent rows whole in every contract test: each
promise holds with older rows read back from the database (docs/scaling.md)."""


class Backend(Protocol):
    name: str

    async def open(self, world: str = "w") -> WorldStore:
        """The store of ``world`` (created empty the first time), as a server opens it."""
        ...

    async def close(self, store: WorldStore) -> None: ...

    def fail_next_commit(self, store: WorldStore) -> None:
        """Make the next COMMIT of ``store`` fail (nothing of it lands)."""
        ...

    def rewrite(self, world: str, seq: int, dice: str, behind_guards: bool) -> None:
        """Set row ``seq``'s dice in the database, as somebody with its files or a superuser
        would: through the append-only guards (which must refuse) or around them."""
        ...


class FailingCommit:
    """A SQLite connection whose next commit (a COMMIT, or a lone row's INSERT outside a
    transaction) fails like a full disk (the SQLite store's
    other tests use the same stand-in; a real full disk is tests/security/test_disk_full.py)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.armed = True

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        # The statement that commits: a COMMIT, or a lone row's INSERT outside a transaction
        # (the store writes a row alone in its group as its own transaction).
        commits = sql == "COMMIT" or (
            sql.startswith("INSERT INTO rolls") and not self.db.in_transaction
        )
        if commits and self.armed:
            self.armed = False
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)


class SqliteBackend:
    """One file per world in a test's folder."""

    name = "sqlite"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, world: str) -> Path:
        return self.folder / f"{world}.sqlite3"

    async def open(self, world: str = "w") -> WorldStore:
        return Store(self._path(world))

    async def close(self, store: WorldStore) -> None:
        assert isinstance(store, Store)
        store.close()

    def fail_next_commit(self, store: WorldStore) -> None:
        assert isinstance(store, Store)
        store._db = FailingCommit(store._db)  # type: ignore[assignment]

    def rewrite(self, world: str, seq: int, dice: str, behind_guards: bool) -> None:
        with sqlite3.connect(self._path(world)) as db:
            if behind_guards:
                db.execute("DROP TRIGGER rolls_append_only_update")
            db.execute("UPDATE rolls SET dice = ? WHERE seq = ?", (dice, seq))


class PostgresBackend:
    """Every world in one database of the session's PostgreSQL."""

    name = "postgresql"

    def __init__(self, cluster: Cluster, dsn: str) -> None:
        self.cluster = cluster
        self.dsn = dsn

    async def open(self, world: str = "w") -> WorldStore:
        return await PostgresStore.open(self.dsn, world, cache_rows=CACHE_ROWS)

    async def close(self, store: WorldStore) -> None:
        assert isinstance(store, PostgresStore)
        await store.close()

    def fail_next_commit(self, store: WorldStore) -> None:
        # A real failure: the server ends the store's backend, as an administrator (or a
        # crashed backend) would; the next flush finds its connection gone.
        assert isinstance(store, PostgresStore) and store.backend_pid is not None
        self.cluster.terminate(store.backend_pid)

    def rewrite(self, world: str, seq: int, dice: str, behind_guards: bool) -> None:
        with psycopg.connect(self.dsn, autocommit=True) as db:
            if behind_guards:
                db.execute("ALTER TABLE rolls DISABLE TRIGGER rolls_append_only")
            db.execute(
                "UPDATE rolls SET dice = %s WHERE world = %s AND seq = %s", (dice, world, seq)
            )
