"""The data directory of one world: its secret and its store.

``world.secret`` is created on first use (random, file mode 0600) and never changes unless the GM
deletes it; clients authenticate with it. ``arbiter.sqlite3`` is the store (see ``store.py``).
"""

from __future__ import annotations

import fcntl
import os
import secrets
from pathlib import Path
from typing import IO

SECRET_FILE = "world.secret"
STORE_FILE = "arbiter.sqlite3"
LOCK_FILE = "serve.lock"
DEFAULT_DATA = Path(".arbiter-data")


def prepare(folder: Path) -> Path:
    """Create the data directory (owner-only) if needed; returns it resolved."""
    folder = folder.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def world_secret(folder: Path) -> str:
    """The world secret, created on first call. Raises OSError when it cannot be read or made."""
    path = prepare(folder) / SECRET_FILE
    if not path.exists():
        token = secrets.token_urlsafe(32)
        # O_EXCL: two servers starting at once must not overwrite each other's secret.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(token + "\n")
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        raise OSError(f"{path} is empty; delete it to create a new world secret")
    return text


def store_path(folder: Path) -> Path:
    return prepare(folder) / STORE_FILE


class DataDirBusy(OSError):
    """Another ``arbiter serve`` already owns this data directory."""


def lock(folder: Path) -> IO[str]:
    """Take the data directory for this process (one server per world: single writer).

    Returns the open lock file; the lock lasts until it is closed or the process dies (so a
    killed server never leaves a stale lock). Raises DataDirBusy when another process holds it.
    """
    handle = open(prepare(folder) / LOCK_FILE, "a+", encoding="utf-8")  # noqa: SIM115
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        owner = handle.read().strip() or "another process"
        handle.close()
        raise DataDirBusy(
            f"{folder} is in use by {owner}: one `arbiter serve` per world (stop it, or use "
            "another --data)"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"arbiter serve (pid {os.getpid()})\n")
    handle.flush()
    return handle
