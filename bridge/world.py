"""Where a world lives, and opening it: a data directory (SQLite) or a PostgreSQL database.

``--store sqlite:DIR`` (the default: ``--data DIR``, ``./.arbiter-data``) is one world in a
data directory: its secret in ``world.secret``, its store in ``arbiter.sqlite3``, one server at a
time by the directory's lock (:mod:`arbiter.bridge.datadir`). ``--store postgresql://…`` with
``--world ID`` is one world among many in a PostgreSQL database (docs/scaling.md): its store is
:class:`~arbiter.bridge.stores.postgres.PostgresStore`, its secret a row of ``world_secrets``
(made on first use, as ``world.secret`` is).
"""

from __future__ import annotations

import argparse
import asyncio
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from arbiter.bridge import datadir
from arbiter.bridge.store import Checkpointer, Store, StoreUnreadable
from arbiter.bridge.stores import WorldStore

POSTGRES_SCHEMES = ("postgresql", "postgres")


@dataclass(frozen=True)
class PostgresWorld:
    """One world of a PostgreSQL database: its libpq URL and its id."""

    dsn: str
    world: str

    def shown(self) -> str:
        """The URL without its password, to print."""
        return redact(self.dsn)


def redact(dsn: str) -> str:
    """``dsn`` with the password of its URL replaced by ``***`` (a URL's query may hold one
    too: ``password=`` there is masked as well)."""
    parts = urllib.parse.urlsplit(dsn)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}:***@{host}"
    query = "&".join(
        "password=***" if item.startswith("password=") else item
        for item in parts.query.split("&")
        if item
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


Where = Path | str
"""What ``--store`` says: a data directory, or a PostgreSQL URL."""


def store_argument(text: str) -> Where:
    """``--store``: ``sqlite:DIR`` (a data directory) or ``postgresql://…`` (a URL)."""
    if text.startswith("sqlite:"):
        folder = text.removeprefix("sqlite:")
        if not folder:
            raise argparse.ArgumentTypeError("sqlite: needs a folder, e.g. sqlite:.arbiter-data")
        return Path(folder)
    if urllib.parse.urlsplit(text).scheme in POSTGRES_SCHEMES:
        return text
    raise argparse.ArgumentTypeError(
        f"{text!r}: give sqlite:DIR (a data directory) or a postgresql:// URL "
        "(e.g. postgresql://arbiter@db.example.com/arbiter)"
    )


def add_store_arguments(parser: argparse.ArgumentParser, data_help: str) -> None:
    """``--data``, ``--store`` and ``--world``, as every command reading a world takes them."""
    parser.add_argument("--data", type=Path, default=None, help=data_help)
    parser.add_argument(
        "--store",
        type=store_argument,
        default=None,
        metavar="sqlite:DIR|postgresql://…",
        help="where the world lives: sqlite:DIR is --data DIR (the default, ./.arbiter-data); "
        "postgresql://… a PostgreSQL database holding many worlds (needs --world)",
    )
    parser.add_argument(
        "--world",
        default=None,
        metavar="ID",
        help="the world's id in a PostgreSQL --store (required there; a data directory holds "
        "one world)",
    )


def where_from(args: argparse.Namespace) -> Path | PostgresWorld:
    """The world the options name; raises ValueError saying what is wrong with them."""
    store, data, world = args.store, args.data, args.world
    if isinstance(store, str):
        if data is not None:
            raise ValueError("--data is for a data directory: drop it with a PostgreSQL --store")
        if not world:
            raise ValueError("a PostgreSQL --store holds many worlds: say which with --world ID")
        return PostgresWorld(store, world)
    if world is not None:
        raise ValueError("--world is for a PostgreSQL --store (a data directory holds one world)")
    if store is not None and data is not None and store != data:
        raise ValueError(f"--store sqlite:{store} and --data {data} name two folders: give one")
    found: Path = store or data or datadir.DEFAULT_DATA
    return found


@dataclass
class OpenWorld:
    """What a server holds of its world: the store, the GM's secret, and its backend's own."""

    store: WorldStore
    secret: str
    checkpointer: Checkpointer | None = None
    """SQLite's WAL checkpoints, off the writer's path (None: PostgreSQL)."""
    lock: IO[str] | None = None
    """The data directory's lock (None: PostgreSQL)."""

    async def close(self) -> None:
        """Checkpoint (SQLite), close the store, release the lock."""
        if self.checkpointer is not None:
            self.checkpointer.checkpoint("TRUNCATE")
            self.checkpointer.close()
        closing = self.store.close()  # type: ignore[attr-defined]
        if asyncio.iscoroutine(closing):
            await closing
        if self.lock is not None:
            self.lock.close()


def open_data_dir(data: Path, synchronous: Literal["NORMAL", "FULL"]) -> OpenWorld:
    """Take the data directory (its lock: one server per world) and open its store."""
    # Owner-only before anything is read or written there (raises, saying why, if it cannot
    # be made so).
    datadir.secure(data)
    lock = datadir.lock(data)
    try:
        secret = datadir.world_secret(data)
        path = datadir.store_path(data)
        datadir.create_private(path)
        store = Store(path, synchronous, autocheckpoint=False)
        return OpenWorld(store, secret, Checkpointer(path, store.catch_up_soon), lock)
    except BaseException:
        lock.close()
        raise


async def open_postgres(where: PostgresWorld) -> OpenWorld:
    """Open (creating if new) the world in its PostgreSQL database, with its secret."""
    from arbiter.bridge.stores.postgres import PostgresStore
    from arbiter.bridge.stores.postgres_schema import world_secret

    store = await PostgresStore.open(where.dsn, where.world)
    try:
        secret = await world_secret(where.dsn, where.world)
    except BaseException:
        await store.close()
        raise
    return OpenWorld(store, secret)


async def postgres_secret(where: PostgresWorld) -> str:
    """The world's secret (made with the schema and the world's row if missing), without
    loading the world."""
    import psycopg

    from arbiter.bridge.stores.postgres_schema import install, world_secret

    async with await psycopg.AsyncConnection.connect(where.dsn, autocommit=True) as conn:
        await install(conn, where.world)
    return await world_secret(where.dsn, where.world)


def read_world(where: Path | PostgresWorld) -> WorldStore:
    """The world's store to read only (``arbiter log``, ``reveal``, ``replay --from-log``):
    SQLite opened read-only (works on a read-only copy), PostgreSQL read in one snapshot.
    Raises StoreUnreadable saying why when it cannot; close it with :func:`close_read`."""
    if isinstance(where, Path):
        return Store(where.expanduser() / datadir.STORE_FILE, read_only=True)
    import psycopg

    from arbiter.bridge.stores.postgres import PostgresStore

    try:
        return asyncio.run(PostgresStore.snapshot(where.dsn, where.world))
    except (LookupError, psycopg.Error) as err:
        raise StoreUnreadable(f"{where.shown()}: {err}") from None


def close_read(store: WorldStore) -> None:
    """Close a store :func:`read_world` opened (a PostgreSQL snapshot holds no connection)."""
    if isinstance(store, Store):
        store.close()


__all__ = [
    "OpenWorld",
    "PostgresWorld",
    "add_store_arguments",
    "close_read",
    "open_data_dir",
    "open_postgres",
    "postgres_secret",
    "read_world",
    "redact",
    "store_argument",
    "where_from",
]
