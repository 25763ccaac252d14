"""WAL checkpoints of the SQLite store (:class:`arbiter.bridge.store.Store`) off the writer's
path: a :class:`Checkpointer` copies the write-ahead log back into the database from its own
connection, so a store opened with ``autocheckpoint=False`` never stalls on a checkpoint's fsync.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Literal


class Checkpointer:
    """Copies the WAL back into the database from its own connection (run it in a thread).

    With autocheckpoint off, the writer never stalls on a checkpoint's fsync; this keeps the WAL
    from growing without bound. PASSIVE: it never blocks the writer.
    """

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout=5000")
        # One user of the connection at a time: a cancelled ``asyncio.to_thread`` leaves its
        # checkpoint running in the thread while the server's shutdown checkpoints and closes
        # from the loop's thread, and sqlite3 crashes the process (SIGSEGV) on a connection
        # closed under a running statement.
        self._lock = threading.Lock()
        self._closed = False

    def checkpoint(self, mode: Literal["PASSIVE", "TRUNCATE"] = "PASSIVE") -> None:
        """Checkpoint now, after any checkpoint already running; nothing once closed."""
        with self._lock:
            if not self._closed:
                self._db.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()

    def close(self) -> None:
        """Close the connection, after any checkpoint already running (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()


__all__ = ["Checkpointer"]
