"""Byte layouts of varints, WriteBatches and VersionEdits, checked against hand-encoded bytes."""

from __future__ import annotations

import pytest

from arbiter.compiler.foundry.leveldb.batch import decode_batch, encode_batch
from arbiter.compiler.foundry.leveldb.coding import Cursor, varint
from arbiter.compiler.foundry.leveldb.errors import LevelDBError
from arbiter.compiler.foundry.leveldb.manifest import TableFile, VersionEdit, decode_version_edit


def test_varints_use_seven_bits_a_byte_low_bits_first() -> None:
    assert varint(0) == b"\x00"
    assert varint(127) == b"\x7f"
    assert varint(128) == b"\x80\x01"
    assert varint(300) == b"\xac\x02"
    assert varint(2**64 - 1) == b"\xff" * 9 + b"\x01"
    assert Cursor(b"\xac\x02", "t").varint() == 300


def test_a_truncated_varint_is_an_error_naming_the_file() -> None:
    with pytest.raises(LevelDBError, match="MANIFEST-000002: at byte 1: truncated"):
        Cursor(b"\x80", "MANIFEST-000002").varint()


def test_a_batch_is_sequence_count_then_tagged_length_prefixed_puts() -> None:
    encoded = encode_batch(1, [(b"!a!k", b"{}"), (b"b", b"")])
    assert encoded == (
        b"\x01\x00\x00\x00\x00\x00\x00\x00"  # sequence 1, fixed64
        b"\x02\x00\x00\x00"  # two operations, fixed32
        b"\x01\x04!a!k\x02{}"  # put, key, value
        b"\x01\x01b\x00"  # put with an empty value
    )
    batch = decode_batch(encoded, "t")
    assert batch.sequence == 1
    assert batch.operations == ((b"!a!k", b"{}"), (b"b", b""))


def test_a_batch_whose_count_disagrees_is_an_error() -> None:
    encoded = bytearray(encode_batch(7, [(b"k", b"v")]))
    encoded[8] = 2
    with pytest.raises(LevelDBError, match="says 2 operations but holds 1"):
        decode_batch(bytes(encoded), "000003.log")


def test_deletes_decode_as_none() -> None:
    encoded = b"\x05" + bytes(7) + b"\x01\x00\x00\x00" + b"\x00\x01k"
    assert decode_batch(encoded, "t").operations == ((b"k", None),)


def test_the_manifest_edit_names_comparator_log_prev_log_next_file_and_last_sequence() -> None:
    edit = VersionEdit(
        comparator="leveldb.BytewiseComparator",
        log_number=3,
        prev_log_number=0,
        next_file_number=4,
        last_sequence=0,
    )
    assert edit.encode() == (
        b"\x01\x1aleveldb.BytewiseComparator"  # tag 1, length 26, name
        b"\x02\x03"  # log number 3
        b"\x09\x00"  # previous log number 0
        b"\x03\x04"  # next file number 4
        b"\x04\x00"  # last sequence 0
    )
    assert decode_version_edit(edit.encode(), "t") == edit


def test_the_manifest_decoder_reads_table_files_and_rejects_unknown_tags() -> None:
    new_file = b"\x07\x00\x05\x80\x01" + b"\x02ab" + b"\x02yz"  # level 0, file 5, 128 bytes
    assert decode_version_edit(new_file, "t").new_files == (TableFile(0, 5, 128),)
    with pytest.raises(LevelDBError, match="unknown tag 8"):
        decode_version_edit(b"\x08\x00", "MANIFEST-000002")
