"""Whole LevelDB databases: write one from key/value pairs; read one back.

The writer produces what LevelDB itself leaves behind after creating a database, writing one
batch and closing: ``CURRENT`` naming ``MANIFEST-000002``, a manifest with one VersionEdit
(bytewise comparator, log file 3, next file 4, last sequence 0 — nothing is in table files
yet), and ``000003.log`` holding a single WriteBatch of every pair, keys in bytewise order,
sequence numbers from 1. LevelDB replays that log when it opens the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from .batch import decode_batch, encode_batch
from .errors import LevelDBError
from .lock import LOCK_NAME, hold_lock
from .log import LogWriter, read_records
from .manifest import BYTEWISE_COMPARATOR, VersionEdit, decode_version_edit
from .table import read_table

MANIFEST_NUMBER = 2
LOG_NUMBER = 3
CURRENT_NAME = "CURRENT"

_LEVELDB_FILE = re.compile(r"(CURRENT|LOCK|LOG|LOG\.old|MANIFEST-\d+|\d+\.(log|ldb|sst|dbtmp))")
_LOG_FILE = re.compile(r"(\d+)\.log")
_MANIFEST_FILE = re.compile(r"MANIFEST-(\d+)")


def write_database(directory: Path, entries: Mapping[bytes, bytes]) -> None:
    """Write ``entries`` as a new LevelDB database in ``directory``.

    The directory is created if missing. If it already holds a LevelDB database, that database
    is replaced, under its lock. Promises: the same entries give byte-identical files; nothing
    is written if the directory holds files that are not LevelDB's (they are named in the
    :class:`LevelDBError`) or if another process holds the lock
    (:class:`~.errors.DatabaseLockedError`).
    """
    if directory.exists() and not directory.is_dir():
        raise LevelDBError(f"{directory}: exists and is not a directory")
    directory.mkdir(parents=True, exist_ok=True)
    foreign = sorted(p.name for p in directory.iterdir() if not _LEVELDB_FILE.fullmatch(p.name))
    if foreign:
        raise LevelDBError(
            f"{directory}: holds files that are not part of a LevelDB database "
            f"({', '.join(foreign)}); refusing to write a pack there"
        )
    log = LogWriter()
    log.add_record(encode_batch(1, sorted(entries.items())))
    edit = VersionEdit(
        comparator=BYTEWISE_COMPARATOR,
        log_number=LOG_NUMBER,
        prev_log_number=0,
        next_file_number=LOG_NUMBER + 1,
        last_sequence=0,
    )
    manifest = LogWriter()
    manifest.add_record(edit.encode())
    manifest_name = f"MANIFEST-{MANIFEST_NUMBER:06d}"
    with hold_lock(directory):
        for old in directory.iterdir():
            if old.name != LOCK_NAME and _LEVELDB_FILE.fullmatch(old.name):
                old.unlink()
        (directory / f"{LOG_NUMBER:06d}.log").write_bytes(log.getvalue())
        (directory / manifest_name).write_bytes(manifest.getvalue())
        # CURRENT last: until it exists the directory is not a database LevelDB would open.
        (directory / CURRENT_NAME).write_bytes(f"{manifest_name}\n".encode())


def read_database(directory: Path) -> dict[bytes, bytes]:
    """Read a LevelDB database into a dict: what LevelDB itself would see.

    Follows ``CURRENT`` to the manifest, reads the live table files it lists (those LevelDB
    wrote when it compacted), replays every live log, and keeps each key's entry with the
    highest sequence number (dropping deletions). Raises :class:`LevelDBError` naming the file
    for anything missing or malformed, or a comparator other than the bytewise one.
    """
    current = directory / CURRENT_NAME
    try:
        pointer = current.read_bytes()
    except FileNotFoundError as exc:
        raise LevelDBError(f"{current}: missing; {directory} is not a LevelDB database") from exc
    name = pointer.decode("ascii", "replace").removesuffix("\n")
    if not pointer.endswith(b"\n") or not _MANIFEST_FILE.fullmatch(name):
        raise LevelDBError(f"{current}: does not name a manifest: {pointer!r}")
    manifest_path = directory / name
    try:
        manifest_data = manifest_path.read_bytes()
    except FileNotFoundError as exc:
        raise LevelDBError(f"{manifest_path}: missing (named by CURRENT)") from exc
    log_number = prev_log_number = 0
    tables: set[tuple[int, int]] = set()
    for record in read_records(manifest_data, str(manifest_path)):
        edit = decode_version_edit(record, str(manifest_path))
        if edit.comparator is not None and edit.comparator != BYTEWISE_COMPARATOR:
            raise LevelDBError(f"{manifest_path}: unsupported comparator {edit.comparator!r}")
        log_number = edit.log_number if edit.log_number is not None else log_number
        if edit.prev_log_number is not None:
            prev_log_number = edit.prev_log_number
        tables.difference_update(edit.deleted_files)
        tables.update((f.level, f.number) for f in edit.new_files)
    latest: dict[bytes, tuple[int, bytes | None]] = {}

    def see(key: bytes, sequence: int, value: bytes | None) -> None:
        if key not in latest or latest[key][0] < sequence:
            latest[key] = (sequence, value)

    for _, number in sorted(tables):
        path = _table_path(directory, number)
        for key, sequence, value in read_table(path):
            see(key, sequence, value)
    logs = sorted(
        (int(m.group(1)), p)
        for p in directory.iterdir()
        if (m := _LOG_FILE.fullmatch(p.name))
        and (int(m.group(1)) >= log_number or int(m.group(1)) == prev_log_number)
    )
    for _, path in logs:
        for record in read_records(path.read_bytes(), str(path)):
            batch = decode_batch(record, str(path))
            for offset, (key, value) in enumerate(batch.operations):
                see(key, batch.sequence + offset, value)
    return {key: value for key, (_, value) in sorted(latest.items()) if value is not None}


def _table_path(directory: Path, number: int) -> Path:
    for suffix in (".ldb", ".sst"):
        path = directory / f"{number:06d}{suffix}"
        if path.exists():
            return path
    raise LevelDBError(
        f"{directory}: table file {number:06d}.ldb listed in the manifest is missing"
    )
