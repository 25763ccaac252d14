"""Whole databases: the files written, determinism, replacing an old pack, reading back."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.compiler.foundry.leveldb import LevelDBError, read_database, write_database
from arbiter.compiler.foundry.leveldb.log import LogWriter
from arbiter.compiler.foundry.leveldb.manifest import TAG_NEW_FILE

ENTRIES = {b"!tables!b": b'{"n":2}', b"!tables!a": b'{"n":1}', b"!macros!\xc3\xa9": b""}


def test_a_database_is_current_a_manifest_a_log_and_a_lock(tmp_path: Path) -> None:
    write_database(tmp_path / "db", ENTRIES)
    names = sorted(p.name for p in (tmp_path / "db").iterdir())
    assert names == ["000003.log", "CURRENT", "LOCK", "MANIFEST-000002"]
    assert (tmp_path / "db" / "CURRENT").read_bytes() == b"MANIFEST-000002\n"
    assert read_database(tmp_path / "db") == ENTRIES


def test_the_log_holds_one_batch_with_keys_in_bytewise_order(tmp_path: Path) -> None:
    write_database(tmp_path / "db", ENTRIES)
    log = (tmp_path / "db" / "000003.log").read_bytes()
    assert log.index(b"!macros!") < log.index(b"!tables!a") < log.index(b"!tables!b")
    assert log[7:19] == b"\x01" + bytes(7) + b"\x03\x00\x00\x00"  # sequence 1, 3 puts


def test_the_same_entries_in_any_order_give_identical_bytes(tmp_path: Path) -> None:
    write_database(tmp_path / "one", ENTRIES)
    write_database(tmp_path / "two", dict(reversed(ENTRIES.items())))
    for name in ("000003.log", "CURRENT", "MANIFEST-000002"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


def test_an_existing_database_is_replaced_whole(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write_database(db, ENTRIES)
    (db / "000005.ldb").write_bytes(b"old table")
    (db / "LOG").write_text("old info log")
    write_database(db, {b"k": b"v"})
    assert sorted(p.name for p in db.iterdir()) == [
        "000003.log",
        "CURRENT",
        "LOCK",
        "MANIFEST-000002",
    ]
    assert read_database(db) == {b"k": b"v"}


def test_a_directory_with_other_files_is_refused_and_left_untouched(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(LevelDBError, match=r"not part of a LevelDB database \(notes\.txt\)"):
        write_database(tmp_path, ENTRIES)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_reading_a_folder_without_current_says_it_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(LevelDBError, match="CURRENT: missing"):
        read_database(tmp_path)


def test_a_table_file_the_manifest_lists_but_which_is_gone_is_named(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write_database(db, ENTRIES)
    manifest = LogWriter()
    manifest.add_record(bytes([TAG_NEW_FILE, 0, 5, 10, 1, 97, 1, 98]))
    (db / "MANIFEST-000002").write_bytes(manifest.getvalue())
    with pytest.raises(
        LevelDBError, match=r"table file 000005\.ldb listed in the manifest is missing"
    ):
        read_database(db)


def test_a_corrupt_log_is_reported_not_misread(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write_database(db, ENTRIES)
    log = bytearray((db / "000003.log").read_bytes())
    log[-1] ^= 0xFF
    (db / "000003.log").write_bytes(bytes(log))
    with pytest.raises(LevelDBError, match=r"000003\.log: at byte 0: checksum mismatch"):
        read_database(db)


def test_a_table_file_that_is_not_a_table_is_named(tmp_path: Path) -> None:
    db = tmp_path / "db"
    write_database(db, ENTRIES)
    manifest = LogWriter()
    manifest.add_record(bytes([TAG_NEW_FILE, 0, 5, 48, 1, 97, 1, 98]))
    (db / "MANIFEST-000002").write_bytes(manifest.getvalue())
    (db / "000005.ldb").write_bytes(bytes(48))
    with pytest.raises(LevelDBError, match=r"000005\.ldb: bad table magic number"):
        read_database(db)
