"""CRC-32C (Castagnoli), the checksum LevelDB puts on every log record, in pure Python.

A byte-at-a-time table loop costs 0.1–0.3 µs per byte in CPython, too slow for a build that
checksums megabytes. So long inputs are checksummed *in lanes*: the input is cut
into K rows of L bytes, and all K rows advance one byte per step together. The CRC table maps a
byte to four bytes, so one step is four ``bytes.translate`` calls plus whole-row XORs on big
integers, all running in C over K lanes at once. The K row checksums are then joined with the
linearity of CRCs: ``crc(A + B) = shift(crc(A), len(B)) ^ crc(B)`` (register starting at 0),
where ``shift`` by L zero bytes is a fixed 32-bit linear map applied with four byte tables.

Two facts make this exact, not approximate:
- leading zero bytes do not change a CRC whose register starts at 0, so rows may be padded in
  front;
- a reflected CRC register holds bits still to be XORed into the next four input bytes, so
  starting from register R is the same as starting from 0 with R XORed into the first four
  bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

POLYNOMIAL = 0x82F63B78
"""The Castagnoli polynomial, bit-reversed (LSB-first) as LevelDB and iSCSI use it."""

_MASK_DELTA = 0xA282EAD8
_FULL = 0xFFFFFFFF


def _byte_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ POLYNOMIAL if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _byte_table()
# The table split into its four result bytes, as translate tables for the lane-wise steps.
_TRANSLATE = tuple(bytes((v >> (8 * i)) & 0xFF for v in _TABLE) for i in range(4))
# Below this many bytes the plain loop is faster than setting up lanes.
_LANE_THRESHOLD = 256


def crc32c(data: bytes | bytearray | memoryview, crc: int = 0) -> int:
    """Return the CRC-32C of ``data``; pass a previous result as ``crc`` to extend it.

    ``crc32c(b + c) == crc32c(c, crc32c(b))`` for any byte strings ``b`` and ``c``.
    """
    return crc32c_many([(data, crc)])[0]


def crc32c_many(items: Sequence[tuple[bytes | bytearray | memoryview, int]]) -> list[int]:
    """``[crc32c(data, crc) for data, crc in items]``, computed together.

    Inputs of equal length share their lane steps, so many log fragments (all of one block's
    length) cost little more than one.
    """
    results = [0] * len(items)
    groups: dict[int, list[int]] = {}
    for i, (data, crc) in enumerate(items):
        if len(data) < _LANE_THRESHOLD:
            results[i] = _raw_loop(data, crc ^ _FULL) ^ _FULL
        else:
            groups.setdefault(len(data), []).append(i)
    for size, members in groups.items():
        registers = _raw_lanes(size, [items[i] for i in members])
        for i, register in zip(members, registers, strict=True):
            results[i] = register ^ _FULL
    return results


def mask(crc: int) -> int:
    """LevelDB's masked form of a CRC, stored so a CRC of data holding CRCs stays strong."""
    return ((((crc >> 15) | (crc << 17)) & _FULL) + _MASK_DELTA) & _FULL


def unmask(masked: int) -> int:
    """Invert :func:`mask`."""
    rot = (masked - _MASK_DELTA) & _FULL
    return ((rot >> 17) | (rot << 15)) & _FULL


def _raw_loop(data: bytes | bytearray | memoryview, register: int) -> int:
    table = _TABLE
    for byte in bytes(data):
        register = table[(register ^ byte) & 0xFF] ^ (register >> 8)
    return register


def _raw_lanes(size: int, items: list[tuple[bytes | bytearray | memoryview, int]]) -> list[int]:
    """Final CRC registers (before the closing XOR) of equal-length inputs, computed lane-wise."""
    count = len(items)
    # Row length L balancing the per-step cost (about L steps) against the join (about
    # count * size / L lane merges); a power of two so the join tables are shared.
    row = 1 << max(4, min(size.bit_length() - 1, (count * size // 12).bit_length() // 2))
    lanes = -(-size // row)  # K lanes per input; each input is padded in front to K * L bytes
    pad = bytes(lanes * row - size)
    parts: list[bytes] = []
    for data, crc in items:
        head = int.from_bytes(data[:4], "little") ^ crc ^ _FULL
        parts += (pad, head.to_bytes(4, "little"), bytes(data[4:]))
    stacked = b"".join(parts)
    width = lanes * count
    t0, t1, t2, t3 = _TRANSLATE
    frm = int.from_bytes
    # Byte i of s0..s3 is byte 0..3 of lane i's register; lanes of input m are m*K … m*K+K-1.
    s0 = s1 = s2 = s3 = 0
    for j in range(row):
        index = (s0 ^ frm(stacked[j::row], "little")).to_bytes(width, "little")
        s0 = frm(index.translate(t0), "little") ^ s1
        s1 = frm(index.translate(t1), "little") ^ s2
        s2 = frm(index.translate(t2), "little") ^ s3
        s3 = frm(index.translate(t3), "little")
    m0, m1, m2, m3 = _zero_shift_tables(row)
    planes = zip(
        s0.to_bytes(width, "little"),
        s1.to_bytes(width, "little"),
        s2.to_bytes(width, "little"),
        s3.to_bytes(width, "little"),
        strict=True,
    )
    registers = []
    for _ in range(count):
        register = 0
        for _, (b0, b1, b2, b3) in zip(range(lanes), planes, strict=False):
            register = (
                m0[register & 0xFF]
                ^ m1[(register >> 8) & 0xFF]
                ^ m2[(register >> 16) & 0xFF]
                ^ m3[register >> 24]
                ^ (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24))
            )
        registers.append(register)
    return registers


@cache
def _zero_shift_tables(length: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Byte tables of the linear map 'feed ``length`` zero bytes to the register'."""
    basis = [_raw_loop(bytes(length), 1 << bit) for bit in range(32)]
    tables = []
    for part in range(4):
        images = basis[8 * part : 8 * part + 8]
        table = [0] * 256
        for value in range(1, 256):
            low = value & -value
            table[value] = table[value ^ low] ^ images[low.bit_length() - 1]
        tables.append(table)
    return tables[0], tables[1], tables[2], tables[3]
