"""Log framing: 32 KiB blocks, FULL/FIRST/MIDDLE/LAST fragments, zero trailers, checksums."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.compiler.foundry.leveldb.crc32c import crc32c, mask
from arbiter.compiler.foundry.leveldb.errors import LevelDBError
from arbiter.compiler.foundry.leveldb.log import BLOCK_SIZE, HEADER_SIZE, LogWriter, read_records

FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def fragments(log: bytes) -> list[tuple[int, int, int]]:
    """(offset, type, length) of every physical record, parsed independently of the reader."""
    out = []
    pos = 0
    while pos < len(log):
        left = BLOCK_SIZE - pos % BLOCK_SIZE
        if left < HEADER_SIZE:
            assert log[pos : pos + left] == bytes(left), "block trailer must be zeros"
            pos += left
            continue
        checksum, length, kind = struct.unpack_from("<IHB", log, pos)
        data = log[pos + HEADER_SIZE : pos + HEADER_SIZE + length]
        assert checksum == mask(crc32c(bytes([kind]) + data))
        out.append((pos, kind, length))
        pos += HEADER_SIZE + length
    return out


def framed(*records: bytes) -> bytes:
    writer = LogWriter()
    for record in records:
        writer.add_record(record)
    return writer.getvalue()


def test_a_small_record_is_one_full_fragment_with_a_seven_byte_header() -> None:
    log = framed(b"hello")
    assert len(log) == HEADER_SIZE + 5
    assert fragments(log) == [(0, FULL, 5)]


def test_an_empty_record_is_a_full_fragment_of_length_zero() -> None:
    log = framed(b"", b"x", b"")
    assert fragments(log) == [(0, FULL, 0), (7, FULL, 1), (15, FULL, 0)]
    assert list(read_records(log, "t")) == [b"", b"x", b""]


def test_a_record_larger_than_a_block_is_split_first_middle_last() -> None:
    payload = bytes(range(256)) * 300  # 76,800 bytes: three blocks
    log = framed(payload)
    body = BLOCK_SIZE - HEADER_SIZE
    assert fragments(log) == [
        (0, FIRST, body),
        (BLOCK_SIZE, MIDDLE, body),
        (2 * BLOCK_SIZE, LAST, len(payload) - 2 * body),
    ]
    assert list(read_records(log, "t")) == [payload]


def test_a_record_that_exactly_fills_a_block_leaves_no_trailer() -> None:
    first = b"a" * (BLOCK_SIZE - HEADER_SIZE)
    log = framed(first, b"next")
    assert fragments(log) == [(0, FULL, len(first)), (BLOCK_SIZE, FULL, 4)]


def test_fewer_than_seven_bytes_left_in_a_block_are_zero_padded() -> None:
    first = b"a" * (BLOCK_SIZE - HEADER_SIZE - 3)  # leaves 3 bytes in the block
    log = framed(first, b"next")
    assert log[BLOCK_SIZE - 3 : BLOCK_SIZE] == b"\x00\x00\x00"
    assert fragments(log) == [(0, FULL, len(first)), (BLOCK_SIZE, FULL, 4)]
    assert list(read_records(log, "t")) == [first, b"next"]


def test_exactly_seven_bytes_left_hold_an_empty_first_fragment() -> None:
    first = b"a" * (BLOCK_SIZE - 2 * HEADER_SIZE)  # leaves exactly one header's room
    log = framed(first, b"next")
    assert fragments(log) == [
        (0, FULL, len(first)),
        (BLOCK_SIZE - HEADER_SIZE, FIRST, 0),
        (BLOCK_SIZE, LAST, 4),
    ]
    assert list(read_records(log, "t")) == [first, b"next"]


def test_a_flipped_byte_is_reported_with_its_offset() -> None:
    log = bytearray(framed(b"one", b"two"))
    log[12] ^= 0x01  # inside the second record's header checksum
    with pytest.raises(LevelDBError, match=r"pack\.log: at byte 10: checksum mismatch"):
        list(read_records(bytes(log), "pack.log"))


def test_a_record_cut_off_at_the_end_is_an_error() -> None:
    log = framed(b"z" * 40000)
    with pytest.raises(LevelDBError, match="cut off"):
        list(read_records(log[:BLOCK_SIZE], "t"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3 * BLOCK_SIZE), max_size=6), st.integers(0, 255))
def test_any_records_read_back_exactly(sizes: list[int], fill: int) -> None:
    records = [bytes([(fill + i) % 256]) * size for i, size in enumerate(sizes)]
    log = framed(*records)
    fragments(log)  # every fragment well-formed, every trailer zero
    assert list(read_records(log, "t")) == records
