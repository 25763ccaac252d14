"""Reading LevelDB table files (``NNNNNN.ldb``), which LevelDB writes when it compacts a log.

Layout (google/leveldb ``doc/table_format.md``): data blocks, meta blocks, a metaindex block, an
index block, and a 48-byte footer (two block handles, padding, magic number). Every block is
followed by a compression-type byte (0 none, 1 Snappy) and a masked CRC-32C. A block holds
prefix-compressed entries (shared key bytes, unshared bytes, value length, key suffix, value)
then its restart offsets. Keys in data blocks are internal keys: the user key followed by
8 bytes packing sequence number and type (1 put, 0 delete).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .coding import Cursor
from .crc32c import crc32c, unmask
from .errors import LevelDBError
from .snappy import decompress

FOOTER_SIZE = 48
MAGIC = 0xDB4775248B80FB57
TRAILER_SIZE = 5


def read_table(path: Path) -> Iterator[tuple[bytes, int, bytes | None]]:
    """Yield (user key, sequence, value or None for a delete) for every entry of a table file."""
    data = path.read_bytes()
    name = str(path)
    if len(data) < FOOTER_SIZE:
        raise LevelDBError(f"{name}: too short for a table ({len(data)} bytes)")
    footer = Cursor(data[-FOOTER_SIZE:], f"{name}: footer")
    footer.varint(), footer.varint()  # metaindex handle: no meta block is needed here
    index_handle = (footer.varint(), footer.varint())
    if int.from_bytes(data[-8:], "little") != MAGIC:
        raise LevelDBError(f"{name}: bad table magic number")
    for _, handle in _entries(_block(data, index_handle, name), name):
        cursor = Cursor(handle, f"{name}: block handle")
        for key, value in _entries(_block(data, (cursor.varint(), cursor.varint()), name), name):
            if len(key) < 8:
                raise LevelDBError(f"{name}: internal key shorter than 8 bytes")
            tag = int.from_bytes(key[-8:], "little")
            kind = tag & 0xFF
            if kind not in (0, 1):
                raise LevelDBError(f"{name}: unknown entry type {kind}")
            yield key[:-8], tag >> 8, value if kind == 1 else None


def _block(data: bytes, handle: tuple[int, int], name: str) -> bytes:
    offset, size = handle
    end = offset + size
    if end + TRAILER_SIZE > len(data):
        raise LevelDBError(f"{name}: block at {offset} runs past the end")
    contents = data[offset:end]
    kind = data[end]
    checksum = unmask(int.from_bytes(data[end + 1 : end + 5], "little"))
    if crc32c(data[offset : end + 1]) != checksum:
        raise LevelDBError(f"{name}: block at {offset}: checksum mismatch")
    if kind == 0:
        return contents
    if kind == 1:
        return decompress(contents, f"{name}: block at {offset}")
    raise LevelDBError(f"{name}: block at {offset}: unknown compression {kind}")


def _entries(block: bytes, name: str) -> Iterator[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise LevelDBError(f"{name}: block too short")
    restarts = int.from_bytes(block[-4:], "little")
    limit = len(block) - 4 - 4 * restarts
    if limit < 0:
        raise LevelDBError(f"{name}: block restart array larger than the block")
    cursor = Cursor(block[:limit], f"{name}: block")
    key = b""
    while not cursor.done:
        shared, unshared, value_size = cursor.varint(), cursor.varint(), cursor.varint()
        if shared > len(key):
            raise LevelDBError(f"{name}: entry shares {shared} bytes of a {len(key)}-byte key")
        start = cursor.pos
        if start + unshared + value_size > limit:
            raise LevelDBError(f"{name}: entry runs past its block")
        key = key[:shared] + block[start : start + unshared]
        yield key, block[start + unshared : start + unshared + value_size]
        cursor.pos = start + unshared + value_size
