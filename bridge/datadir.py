"""The data directory of one world: its secret and its store.

``world.secret`` is created on first use (random, file mode 0600) and never changes unless the GM
deletes it; clients authenticate with it. ``arbiter.sqlite3`` is the store (see ``store.py``).

Everything in it is the owner's alone: the store holds every live session's dice seed, from
which the session's next rolls follow. :func:`secure` makes the folder 0700 and every file in it
0600 whatever existed before (``arbiter serve`` and ``arbiter token`` call it), and refuses,
naming the file, when it cannot. The store file is created 0600 before SQLite opens it, and
SQLite gives its ``-wal`` and ``-shm`` files the mode of the database file.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat
from pathlib import Path
from typing import IO

SECRET_FILE = "world.secret"
STORE_FILE = "arbiter.sqlite3"
LOCK_FILE = "serve.lock"
DEFAULT_DATA = Path(".arbiter-data")


FOLDER_MODE = 0o700
FILE_MODE = 0o600


class DataDirNotPrivate(OSError):
    """The data directory, or a file in it, cannot be made owner-only (another user owns it)."""


def prepare(folder: Path) -> Path:
    """Create the data directory (owner-only) if needed; returns it resolved."""
    folder = folder.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    return folder


def secure(folder: Path) -> Path:
    """Create the data directory if needed and make it owner-only; returns it resolved.

    The folder becomes 0700 and every regular file in it 0600 (symbolic links are left alone:
    their targets are not the world's). Raises :class:`DataDirNotPrivate` naming the first
    entry whose mode cannot be changed, with why and what to do.
    """
    folder = prepare(folder)
    _restrict(folder, FOLDER_MODE)
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                _restrict(Path(entry.path), FILE_MODE)
    return folder


def _restrict(path: Path, mode: int) -> None:
    info = os.lstat(path)
    if stat.S_IMODE(info.st_mode) == mode:
        return
    try:
        os.chmod(path, mode)
    except PermissionError:
        raise DataDirNotPrivate(
            f"cannot make {path} private (mode {mode:04o}, now {stat.S_IMODE(info.st_mode):04o}): "
            f"it belongs to uid {info.st_uid} and this process runs as uid {os.geteuid()}. "
            "The world's secret and dice seeds must be readable by their owner only: chown the "
            "data directory to this user, or use another --data"
        ) from None


def create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (SQLite then keeps that mode for
    the database and its -wal and -shm files)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))


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
    path = prepare(folder) / LOCK_FILE
    create_private(path)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115
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
