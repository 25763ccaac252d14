"""LevelDB's ``LOCK`` file: one process at a time may have a database open.

LevelDB on POSIX takes an fcntl (``F_SETLK``) write lock on ``LOCK``; ``fcntl.lockf`` takes the
same kind of lock, so a running Foundry world (or any LevelDB user) and this writer exclude each
other. On Windows LevelDB locks the file with ``LockFileEx``; ``msvcrt.locking`` locks the same
file region.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import DatabaseLockedError

LOCK_NAME = "LOCK"


@contextmanager
def hold_lock(directory: Path) -> Iterator[None]:
    """Hold the database's ``LOCK`` (creating it) for the duration of the block.

    Raises :class:`DatabaseLockedError`, naming the directory, if another process holds it.
    """
    path = directory / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            _lock(fd)
        except OSError as exc:
            raise DatabaseLockedError(
                f"{directory}: the LevelDB database is in use by another process (its LOCK is "
                "held, e.g. by a running Foundry world); close it and try again"
            ) from exc
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.lockf(fd, fcntl.LOCK_UN)
