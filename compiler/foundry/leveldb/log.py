"""LevelDB's log format: the framing of both the write-ahead log and the MANIFEST.

A log file is a sequence of 32 KiB blocks. Each logical record is cut into physical records
(fragments) that never cross a block boundary; each fragment has a 7-byte header: masked
CRC-32C (4 bytes, over the type byte and the fragment), fragment length (2 bytes), type
(1 byte: FULL, or FIRST / MIDDLE… / LAST for a record split over blocks). When fewer than 7
bytes remain in a block they are filled with zeros and the next fragment starts a new block;
exactly 7 remaining bytes hold a FIRST fragment with no data. This is the layout of
``doc/log_format.md`` in google/leveldb, written here from that description.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum

from .crc32c import crc32c, crc32c_many, mask, unmask
from .errors import LevelDBError

BLOCK_SIZE = 32768
HEADER_SIZE = 7


class RecordType(IntEnum):
    """The physical record types; 0 marks preallocated (zeroed) space."""

    ZERO = 0
    FULL = 1
    FIRST = 2
    MIDDLE = 3
    LAST = 4


# CRC of each type byte alone, extended by the fragment (as LevelDB precomputes them).
_TYPE_CRC: dict[int, int] = {t: crc32c(bytes((t,))) for t in RecordType}


class LogWriter:
    """Frames logical records into LevelDB log blocks, in memory.

    Promises: the bytes from :meth:`getvalue` are a log LevelDB reads back as exactly the
    records added, in order; the same records always give the same bytes.
    """

    def __init__(self) -> None:
        self._out = bytearray()
        self._block_offset = 0
        # (header offset, type) of fragments whose checksum is not yet filled in: checksums
        # are computed together in getvalue(), which is much faster than one at a time.
        self._unsummed: list[tuple[int, RecordType]] = []

    def add_record(self, payload: bytes) -> None:
        """Append one logical record (which may be empty)."""
        view = memoryview(payload)
        left = len(view)
        pos = 0
        begin = True
        while True:
            leftover = BLOCK_SIZE - self._block_offset
            if leftover < HEADER_SIZE:
                # Too small for a header: the block ends in zeros the reader skips.
                self._out += bytes(leftover)
                self._block_offset = 0
            available = BLOCK_SIZE - self._block_offset - HEADER_SIZE
            size = min(left, available)
            end = size == left
            if begin and end:
                kind = RecordType.FULL
            elif begin:
                kind = RecordType.FIRST
            elif end:
                kind = RecordType.LAST
            else:
                kind = RecordType.MIDDLE
            self._emit(kind, view[pos : pos + size])
            pos += size
            left -= size
            begin = False
            if left == 0:
                break

    def getvalue(self) -> bytes:
        """The log so far. Its last block is left short: LevelDB logs are not padded at the end."""
        out = self._out
        fragments = []
        for offset, kind in self._unsummed:
            start = offset + HEADER_SIZE
            size = int.from_bytes(out[offset + 4 : offset + 6], "little")
            fragments.append((out[start : start + size], _TYPE_CRC[kind]))
        for (offset, _), crc in zip(self._unsummed, crc32c_many(fragments), strict=True):
            out[offset : offset + 4] = mask(crc).to_bytes(4, "little")
        self._unsummed.clear()
        return bytes(out)

    def _emit(self, kind: RecordType, fragment: memoryview) -> None:
        out = self._out
        self._unsummed.append((len(out), kind))
        out += b"\0\0\0\0"  # the checksum, filled in by getvalue()
        out += len(fragment).to_bytes(2, "little")
        out.append(kind)
        out += fragment
        self._block_offset += HEADER_SIZE + len(fragment)


def read_records(data: bytes, name: str) -> Iterator[bytes]:
    """Yield the logical records of a log file's bytes, checking every checksum.

    Raises :class:`LevelDBError` naming ``name`` and the byte offset for a bad checksum, a
    fragment out of order, a fragment crossing its block, or a record cut off at the end.
    """
    pending: list[bytes] | None = None
    size = len(data)
    block_start = 0
    while block_start < size:
        block_end = min(block_start + BLOCK_SIZE, size)
        pos = block_start
        while block_end - pos >= HEADER_SIZE:
            header = data[pos : pos + HEADER_SIZE]
            length = int.from_bytes(header[4:6], "little")
            kind = header[6]
            if kind == RecordType.ZERO and length == 0:
                break  # preallocated space: the rest of the block is empty
            start = pos + HEADER_SIZE
            stop = start + length
            if stop > block_end:
                raise LevelDBError(
                    f"{name}: at byte {pos}: fragment of {length} bytes crosses its block"
                )
            fragment = data[start:stop]
            expected = unmask(int.from_bytes(header[:4], "little"))
            if kind not in _TYPE_CRC or crc32c(fragment, _TYPE_CRC[kind]) != expected:
                raise LevelDBError(f"{name}: at byte {pos}: checksum mismatch (corrupt record)")
            if kind == RecordType.FULL or kind == RecordType.FIRST:
                if pending is not None:
                    raise LevelDBError(
                        f"{name}: at byte {pos}: new record inside an unfinished one"
                    )
                if kind == RecordType.FULL:
                    yield fragment
                else:
                    pending = [fragment]
            else:
                if pending is None:
                    raise LevelDBError(
                        f"{name}: at byte {pos}: continuation without a first fragment"
                    )
                pending.append(fragment)
                if kind == RecordType.LAST:
                    yield b"".join(pending)
                    pending = None
            pos = stop
        block_start += BLOCK_SIZE
    if pending is not None:
        raise LevelDBError(f"{name}: record cut off at the end of the file")
