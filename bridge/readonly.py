"""Opening a world's store to read it only: ``arbiter log``, ``arbiter reveal``, ``replay --from-log``.

Those commands must work on a read-only copy of a data directory (an archive, a backup, a
folder a player was given to audit), so they write nothing: no pragma, no schema. SQLite in WAL
mode still needs, to read with its usual locking, a ``-shm`` file it can map: present, or
creatable because the folder is writable. So:

1. ``mode=ro``: read-only with the usual locking. Works when the folder is writable (SQLite may
   then create empty ``-wal``/``-shm`` files, mode of the database file) or when ``-shm`` and
   ``-wal`` were copied along, and on the live data directory of a running server.
2. Otherwise, when there is no write-ahead log with content (a copy of a store that was closed
   cleanly: the server folds its log into the database file when it stops), the database
   file is the whole log: ``immutable=1`` reads it with no lock and no shared memory.
3. Otherwise the rows in the ``-wal`` file cannot be read here: :class:`StoreUnreadable` says
   what to copy along or change.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote


class StoreUnreadable(OSError):
    """The store cannot be read read-only where it is; the message says what to do."""


def _uri(path: Path, query: str) -> str:
    return f"file:{quote(str(path.resolve()))}?{query}"


def _probe(db: sqlite3.Connection) -> None:
    # Opening is lazy: the first read is what opens the WAL index (and fails without one).
    db.execute("SELECT count(*) FROM sqlite_master").fetchone()


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that reads the store at ``path`` and can write nothing (see module doc).

    Raises StoreUnreadable when the file is missing or its write-ahead log cannot be read.
    """
    if not path.is_file():
        raise StoreUnreadable(f"no roll log at {path}")
    db = sqlite3.connect(_uri(path, "mode=ro"), uri=True, check_same_thread=False)
    try:
        _probe(db)
        return db
    except sqlite3.OperationalError as err:
        db.close()
        first = err
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        shm = path.with_name(path.name + "-shm")
        raise StoreUnreadable(
            f"cannot read {path} read-only ({first}): its write-ahead log {wal.name} holds rows "
            f"not yet in the database file, and SQLite needs {shm.name} beside it to read them "
            f"in a folder it cannot write. Copy {shm.name} along with the store, or make the "
            "folder writable"
        )
    db = sqlite3.connect(_uri(path, "mode=ro&immutable=1"), uri=True, check_same_thread=False)
    try:
        _probe(db)
    except sqlite3.Error as err:
        db.close()
        raise StoreUnreadable(f"cannot read {path}: {err}") from None
    return db
