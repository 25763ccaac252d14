"""The MANIFEST's VersionEdit records: which comparator, log and table files make the database.

A MANIFEST is a log-format file (see :mod:`.log`) whose records are VersionEdits. Each edit is
a list of tagged fields (tags from google/leveldb ``db/version_edit.cc``); a varint tag is
followed by its value: a length-prefixed name for the comparator, varint64 numbers for the log
number, previous log number, next file number and last sequence; level + internal key for a
compaction pointer; level + file number for a deleted table; level + number + size + smallest
and largest internal keys for a new table.
"""

from __future__ import annotations

from dataclasses import dataclass

from .coding import Cursor, length_prefixed, varint
from .errors import LevelDBError

BYTEWISE_COMPARATOR = "leveldb.BytewiseComparator"

TAG_COMPARATOR = 1
TAG_LOG_NUMBER = 2
TAG_NEXT_FILE_NUMBER = 3
TAG_LAST_SEQUENCE = 4
TAG_COMPACT_POINTER = 5
TAG_DELETED_FILE = 6
TAG_NEW_FILE = 7
TAG_PREV_LOG_NUMBER = 9

_NUMBER_TAGS = frozenset(
    {TAG_LOG_NUMBER, TAG_PREV_LOG_NUMBER, TAG_NEXT_FILE_NUMBER, TAG_LAST_SEQUENCE}
)


@dataclass(frozen=True)
class TableFile:
    """A sorted table file a VersionEdit adds to a level."""

    level: int
    number: int
    size: int


@dataclass(frozen=True)
class VersionEdit:
    """The fields of one VersionEdit; None means 'not set by this edit'."""

    comparator: str | None = None
    log_number: int | None = None
    prev_log_number: int | None = None
    next_file_number: int | None = None
    last_sequence: int | None = None
    deleted_files: tuple[tuple[int, int], ...] = ()
    new_files: tuple[TableFile, ...] = ()

    def encode(self) -> bytes:
        """Encode in LevelDB's field order. Table files are only read, never written here."""
        if self.deleted_files or self.new_files:
            raise ValueError("this writer makes log-only databases; it encodes no table files")
        out = bytearray()
        if self.comparator is not None:
            out += varint(TAG_COMPARATOR) + length_prefixed(self.comparator.encode())
        for tag, value in (
            (TAG_LOG_NUMBER, self.log_number),
            (TAG_PREV_LOG_NUMBER, self.prev_log_number),
            (TAG_NEXT_FILE_NUMBER, self.next_file_number),
            (TAG_LAST_SEQUENCE, self.last_sequence),
        ):
            if value is not None:
                out += varint(tag) + varint(value)
        return bytes(out)


def decode_version_edit(data: bytes, name: str) -> VersionEdit:
    """Decode one VersionEdit record; raise :class:`LevelDBError` on an unknown tag or overrun."""
    cursor = Cursor(data, f"{name}: version edit")
    comparator: str | None = None
    numbers: dict[int, int] = {}
    deleted: list[tuple[int, int]] = []
    new: list[TableFile] = []
    while not cursor.done:
        tag = cursor.varint()
        if tag == TAG_COMPARATOR:
            try:
                comparator = cursor.length_prefixed().decode()
            except UnicodeDecodeError as exc:
                raise LevelDBError(f"{name}: comparator name is not UTF-8") from exc
        elif tag in _NUMBER_TAGS:
            numbers[tag] = cursor.varint()
        elif tag == TAG_COMPACT_POINTER:
            cursor.varint()
            cursor.length_prefixed()
        elif tag == TAG_DELETED_FILE:
            deleted.append((cursor.varint(), cursor.varint()))
        elif tag == TAG_NEW_FILE:
            level, number, size = cursor.varint(), cursor.varint(), cursor.varint()
            cursor.length_prefixed()  # smallest internal key
            cursor.length_prefixed()  # largest internal key
            new.append(TableFile(level, number, size))
        else:
            raise LevelDBError(f"{name}: version edit: unknown tag {tag}")
    return VersionEdit(
        comparator=comparator,
        log_number=numbers.get(TAG_LOG_NUMBER),
        prev_log_number=numbers.get(TAG_PREV_LOG_NUMBER),
        next_file_number=numbers.get(TAG_NEXT_FILE_NUMBER),
        last_sequence=numbers.get(TAG_LAST_SEQUENCE),
        deleted_files=tuple(deleted),
        new_files=tuple(new),
    )
