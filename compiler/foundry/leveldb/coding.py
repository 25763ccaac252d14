"""LevelDB's integer and string encodings: little-endian fixed ints, varints, length prefixes."""

from __future__ import annotations

from .errors import LevelDBError


def varint(value: int) -> bytes:
    """Encode a non-negative integer as a LevelDB varint (7 bits a byte, low bits first)."""
    if value < 0:
        raise ValueError(f"varint of a negative number: {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_prefixed(data: bytes) -> bytes:
    """``data`` preceded by its length as a varint (LevelDB's ``PutLengthPrefixedSlice``)."""
    return varint(len(data)) + data


class Cursor:
    """Reads LevelDB encodings from a byte string, raising :class:`LevelDBError` on overrun."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = data
        self.pos = 0
        self.what = what

    @property
    def done(self) -> bool:
        """True when every byte has been read."""
        return self.pos >= len(self.data)

    def fixed(self, size: int) -> int:
        """Read a little-endian unsigned integer of ``size`` bytes."""
        end = self.pos + size
        if end > len(self.data):
            raise self._error(f"needs {size} bytes, {len(self.data) - self.pos} left")
        value = int.from_bytes(self.data[self.pos : end], "little")
        self.pos = end
        return value

    def varint(self) -> int:
        """Read a varint of at most 64 bits."""
        shift = value = 0
        data = self.data
        while self.pos < len(data) and shift <= 63:
            byte = data[self.pos]
            self.pos += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                return value
            shift += 7
        raise self._error("truncated or overlong varint")

    def length_prefixed(self) -> bytes:
        """Read a varint length and that many bytes."""
        size = self.varint()
        end = self.pos + size
        if end > len(self.data):
            raise self._error(f"slice of {size} bytes runs past the end")
        out = self.data[self.pos : end]
        self.pos = end
        return out

    def _error(self, message: str) -> LevelDBError:
        return LevelDBError(f"{self.what}: at byte {self.pos}: {message}")
