"""Snappy decompression of hand-encoded blocks: literals, short and long copies, overlaps."""

from __future__ import annotations

import pytest

from arbiter.compiler.foundry.leveldb.errors import LevelDBError
from arbiter.compiler.foundry.leveldb.snappy import decompress


def test_a_literal_is_copied_through() -> None:
    # length 5, literal tag (5 - 1) << 2, then the bytes
    assert decompress(b"\x05\x10hello", "t") == b"hello"


def test_a_long_literal_takes_its_length_from_the_next_byte() -> None:
    data = bytes(range(100))
    # tag 60 << 2: one extra byte holds length - 1 = 99
    assert decompress(b"\x64" + bytes([60 << 2, 99]) + data, "t") == data


def test_a_one_byte_offset_copy_may_overlap_its_own_output() -> None:
    # "ab", then copy 8 bytes from 2 back: tag = 01 | (8 - 4) << 2 | (offset >> 8) << 5
    block = b"\x0a" + b"\x04ab" + bytes([0b01 | (4 << 2), 2])
    assert decompress(block, "t") == b"ababababab"


def test_two_and_four_byte_offset_copies() -> None:
    # "abcd", copy 4 from 4 back (2-byte offset), copy 2 from 3 back (4-byte offset)
    block = (
        b"\x0a"
        + b"\x0cabcd"
        + bytes([0b10 | (3 << 2), 4, 0])
        + bytes([0b11 | (1 << 2), 3, 0, 0, 0])
    )
    assert decompress(block, "t") == b"abcdabcdbc"


def test_a_copy_reaching_before_the_start_is_an_error() -> None:
    with pytest.raises(LevelDBError, match="copy offset 9 out of range"):
        decompress(b"\x06\x04ab" + bytes([0b01, 9]), "000005.ldb")


def test_a_length_that_disagrees_with_the_header_is_an_error() -> None:
    with pytest.raises(LevelDBError, match="gives 5 bytes, header says 6"):
        decompress(b"\x06\x10hello", "t")
