"""LevelDB's WriteBatch: the payload of each write-ahead-log record.

Layout (google/leveldb ``db/write_batch.cc``): sequence number (fixed 64-bit), count
(fixed 32-bit), then per operation a tag byte — 1 for a put followed by the length-prefixed key
and value, 0 for a delete followed by the length-prefixed key. The operations take the sequence
numbers ``sequence``, ``sequence + 1``, … in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .coding import Cursor, varint
from .errors import LevelDBError

TAG_DELETE = 0
TAG_PUT = 1

_SHORT_LENGTH = [bytes((n,)) for n in range(128)]
_PUT_SHORT_KEY = [bytes((TAG_PUT, n)) for n in range(128)]


@dataclass(frozen=True)
class Batch:
    """A decoded batch: its first sequence number and its operations (value None = delete)."""

    sequence: int
    operations: tuple[tuple[bytes, bytes | None], ...]


def encode_batch(sequence: int, puts: Sequence[tuple[bytes, bytes]]) -> bytes:
    """Encode a batch of puts, in the given order, starting at ``sequence``."""
    parts = [sequence.to_bytes(8, "little"), len(puts).to_bytes(4, "little")]
    append = parts.append
    for key, value in puts:
        # Tag and key length in one piece: keys are almost always shorter than 128 bytes.
        k = len(key)
        append(_PUT_SHORT_KEY[k] if k < 128 else b"\x01" + varint(k))
        append(key)
        v = len(value)
        if v < 128:
            append(_SHORT_LENGTH[v])
        elif v < 16384:
            append(bytes(((v & 0x7F) | 0x80, v >> 7)))
        else:
            append(varint(v))
        append(value)
    return b"".join(parts)


def decode_batch(data: bytes, name: str) -> Batch:
    """Decode a batch; raise :class:`LevelDBError` if it is malformed or its count is wrong."""
    if len(data) < 12:
        raise LevelDBError(f"{name}: write batch of {len(data)} bytes is shorter than its header")
    cursor = Cursor(data, f"{name}: write batch")
    sequence = cursor.fixed(8)
    count = cursor.fixed(4)
    operations: list[tuple[bytes, bytes | None]] = []
    while not cursor.done:
        tag = cursor.fixed(1)
        if tag == TAG_PUT:
            key = cursor.length_prefixed()
            operations.append((key, cursor.length_prefixed()))
        elif tag == TAG_DELETE:
            operations.append((cursor.length_prefixed(), None))
        else:
            raise LevelDBError(f"{name}: write batch: unknown operation tag {tag}")
    if len(operations) != count:
        raise LevelDBError(
            f"{name}: write batch says {count} operations but holds {len(operations)}"
        )
    return Batch(sequence, tuple(operations))
