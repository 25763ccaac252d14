"""Snappy decompression (the raw block format LevelDB uses to compress table blocks).

Written from Snappy's ``format_description.txt``: a varint of the uncompressed length, then
elements whose tag byte's two low bits say literal (00) or copy with a 1-, 2- or 4-byte offset
(01, 10, 11). Copies may overlap their own output (offset < length), which repeats a pattern.
Only decompression is needed: our writer stores no tables, it only reads those LevelDB made.
"""

from __future__ import annotations

from .coding import Cursor
from .errors import LevelDBError


def decompress(data: bytes, name: str) -> bytes:
    """Decompress a raw Snappy block; raise :class:`LevelDBError` naming ``name`` if malformed."""
    cursor = Cursor(data, f"{name}: snappy block")
    expected = cursor.varint()
    out = bytearray()
    pos = cursor.pos
    size = len(data)
    while pos < size:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            length = (tag >> 2) + 1
            if length > 60:
                extra = length - 60
                length = int.from_bytes(data[pos : pos + extra], "little") + 1
                pos += extra
            if pos + length > size:
                raise LevelDBError(f"{name}: snappy literal runs past the end")
            out += data[pos : pos + length]
            pos += length
            continue
        if kind == 1:
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | data[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            length = (tag >> 2) + 1
            offset = int.from_bytes(data[pos : pos + width], "little")
            pos += width
        if offset == 0 or offset > len(out):
            raise LevelDBError(f"{name}: snappy copy offset {offset} out of range")
        start = len(out) - offset
        if offset >= length:
            out += out[start : start + length]
        else:  # overlapping copy: the last `offset` bytes repeat
            pattern = bytes(out[start:])
            out += (pattern * (length // offset + 1))[:length]
    if len(out) != expected:
        raise LevelDBError(f"{name}: snappy block gives {len(out)} bytes, header says {expected}")
    return bytes(out)
