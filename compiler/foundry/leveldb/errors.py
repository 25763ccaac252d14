"""Errors of the LevelDB writer and reader."""

from __future__ import annotations


class LevelDBError(Exception):
    """A LevelDB directory or file is not what this package can write or read.

    The message names the file and, for corrupt data, the byte offset.
    """


class DatabaseLockedError(LevelDBError):
    """Another process holds the database's ``LOCK`` (for example a running Foundry world)."""
