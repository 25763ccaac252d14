"""The roll log is append-only and hash-chained; encounter state moves with its row."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from arbiter.bridge.store import GENESIS, Checkpointer, Store, row_hash
from tests.support.rolls import new_roll


def test_rows_chain_each_hash_to_the_row_before(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    first = store.append(new_roll("a"))
    second = store.append(new_roll("b"))
    assert first.prev_hash == GENESIS and second.prev_hash == first.hash
    assert [r.hash for r in store.rolls()] == [first.hash, second.hash]
    assert store.verify_chain() == []
    store.close()


def test_a_row_read_back_is_the_row_that_was_logged(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    logged = [
        store.append(new_roll("a")),
        store.append(new_roll("b", encounter="e", state={"n": 1})._replace(scripted=True)),
    ]
    read = list(store.rolls())
    assert read == logged
    assert read[1].entry.scripted is True and read[0].entry.scripted is False
    assert read[1].entry == new_roll("b", encounter="e", state={"n": 1})._replace(scripted=True)
    assert read[1].chain_hash() == read[1].hash
    assert store.find("b") == logged[1]
    store.close()


def test_the_log_refuses_updates_and_deletes(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a"))
    store.close()
    with sqlite3.connect(tmp_path / "s.sqlite3") as db:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE rolls SET outcome = '{}'")
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("DELETE FROM rolls")


def test_a_row_edited_behind_the_triggers_breaks_the_chain(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a"))
    store.append(new_roll("b"))
    store.close()
    with sqlite3.connect(tmp_path / "s.sqlite3") as db:
        db.execute("DROP TRIGGER rolls_append_only_update")
        db.execute("UPDATE rolls SET dice = '[]' WHERE request_id = 'a'")
    assert Store(tmp_path / "s.sqlite3").verify_chain() == [
        "row 1: hash does not match its contents"
    ]


def test_a_duplicate_request_id_is_refused_and_nothing_half_written(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a", encounter="e", state={"n": 1}))
    with pytest.raises(sqlite3.IntegrityError):
        store.append(new_roll("a", encounter="e", state={"n": 2}))
    encounter = store.encounter("e")
    assert encounter is not None and encounter.state == {"n": 1} and encounter.seq == 1
    assert store.count() == 1
    # The next row still chains onto the last committed one.
    store.append(new_roll("b"))
    assert store.verify_chain() == []


def test_a_reopened_store_continues_the_chain(tmp_path: Path) -> None:
    Store(tmp_path / "s.sqlite3").append(new_roll("a"))
    store = Store(tmp_path / "s.sqlite3")
    row = store.append(new_roll("b"))
    assert row.seq == 2 and store.verify_chain() == []


def test_a_row_that_leaves_state_untouched_keeps_the_encounter_state(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a", encounter="e", state={"n": 1}))
    store.append(new_roll("b", encounter="e", state=None))
    store.append(new_roll("c", encounter="fresh", state=None))
    kept, fresh = store.encounter("e"), store.encounter("fresh")
    assert kept is not None and kept.state == {"n": 1} and kept.seq == 1
    assert fresh is not None and fresh.ruleset == "tiny" and fresh.state is None


def test_a_row_hash_is_sha256_over_length_prefixed_parts() -> None:
    fields = [3, "r-1", None, True, 1700000000.25, 1e-07, "é"]
    texts = ["3", "r-1", "null", "true", "1700000000.25", "1e-07", "é"]
    expected = hashlib.sha256()
    for text in [GENESIS, *texts]:
        data = text.encode("utf-8")
        expected.update(len(data).to_bytes(8, "big") + data)
    assert row_hash(GENESIS, fields) == expected.hexdigest()


def test_the_scripted_column_holds_the_integers_0_and_1(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a")._replace(scripted=True))
    store.append(new_roll("b"))
    rows = store.query("SELECT typeof(scripted), scripted FROM rolls ORDER BY seq", ())
    assert rows == [("integer", 1), ("integer", 0)]
    store.close()


def test_find_sees_a_staged_row_whole_and_nothing_for_an_unknown_id(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.append(new_roll("a"))
    staged = store.stage(new_roll("b", encounter="e", state={"n": 2}))
    assert store.find("b") == staged and store.find("b").entry.outcome == staged.entry.outcome
    assert store.find("c") is None
    store.commit()
    store.close()


def test_closing_the_checkpointer_waits_for_a_checkpoint_running_in_another_thread(
    tmp_path: Path,
) -> None:
    # The server's shutdown cancels its checkpoint task, but the thread it started goes on; a
    # connection closed under that running checkpoint crashed the process (SIGSEGV).
    path = tmp_path / "log.db"
    store = Store(path, autocheckpoint=False)
    store.append(new_roll("r-1"))
    checkpointer = Checkpointer(path)
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM rolls").fetchall()  # TRUNCATE now waits for it
    running = threading.Thread(target=checkpointer.checkpoint, args=("TRUNCATE",))
    running.start()
    while not checkpointer._lock.locked():
        time.sleep(0.001)
    closing = threading.Thread(target=checkpointer.close)
    closing.start()
    closing.join(0.3)
    assert closing.is_alive(), "close() did not wait for the running checkpoint"
    reader.rollback()
    running.join()
    closing.join()
    checkpointer.checkpoint()  # closed: does nothing
    checkpointer.close()
    reader.close()
    store.close()


def test_a_row_keeps_the_player_it_was_decided_for_and_its_hash_covers_him(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    gm_row = store.append(new_roll("a"))
    pat_row = store.append(new_roll("b")._replace(player="pat"))
    assert [r.entry.player for r in store.rolls()] == [None, "pat"]
    found = store.find("b")
    assert found is not None and found.entry.player == "pat"
    assert store.verify_chain() == []
    # Without a player a row hashes as every row did before the column; with one, the
    # player is hashed: another name is another hash.
    assert gm_row.hash == row_hash(GENESIS, [1, *new_roll("a")[:13]])  # schema 1: 13 fields
    other = pat_row._replace(entry=pat_row.entry._replace(player="bo"))
    assert other.chain_hash() != pat_row.hash


def old_store(path: Path) -> str:
    """A store of schema 1 (no ``rolls.player``) holding one row hashed as schema 1 did;
    returns that row's hash."""
    from arbiter.bridge.stores.sqlite_schema import SCHEMA

    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA.replace(",\n  player TEXT\n", "\n"))
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    roll = new_roll("old")
    digest = row_hash(GENESIS, [1, *roll[:13]])
    db.execute(
        "INSERT INTO rolls (seq, request_id, session, user, ruleset, type, encounter, "
        "rules_hash, request, dice, outcome, counter, scripted, time, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (1, *roll[:11], int(roll.scripted), roll.time, GENESIS, digest),
    )
    db.close()
    return digest


def test_a_schema_1_store_is_brought_to_2_and_its_old_rows_still_verify(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    digest = old_store(path)
    read = Store(path, read_only=True)  # a copy read as it is: nothing written
    assert [(r.entry.player, r.hash) for r in read.rolls()] == [(None, digest)]
    assert read.verify_chain() == []
    read.close()
    store = Store(path)
    new = store.append(new_roll("new")._replace(player="pat"))
    old = store.find("old")
    assert old is not None and old.entry.player is None  # whose it was is unknown
    assert new.seq == 2 and store.verify_chain() == []
    schema = store._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    assert schema == ("2",)


def test_a_row_with_any_of_its_optional_fields_null_reads_back_as_logged(tmp_path: Path) -> None:
    # The store writes a None as the statement's literal NULL rather than binding it: each of
    # the eight shapes must store what binding every field (INSERT_ROLL) stores.
    import itertools

    from arbiter.bridge.stores.sqlite_schema import INSERT_ROLL, ROLL_COLUMNS

    fields = [c.strip() for c in ROLL_COLUMNS.split(",")]
    store = Store(tmp_path / "s.sqlite3")
    bound = sqlite3.connect(tmp_path / "bound.sqlite3")
    bound.execute(f"CREATE TABLE rolls ({ROLL_COLUMNS})")
    shapes = itertools.product((None, "e"), (None, 7), (None, "pat"))
    for n, (encounter, counter, player) in enumerate(shapes, 1):
        roll = new_roll(f"r{n}", encounter=encounter)._replace(
            counter=counter, scripted=counter is None, player=player
        )
        logged = store.append(roll)
        assert store.find(f"r{n}") == logged and logged.entry == roll
        row = (*roll[:11], int(roll.scripted), roll.time, player, logged.prev_hash, logged.hash)
        bound.execute(INSERT_ROLL, (logged.seq, *row))
    typed = ", ".join(f"{c}, typeof({c})" for c in fields)
    stored = store.query(f"SELECT {typed} FROM rolls ORDER BY seq", ())
    assert stored == bound.execute(f"SELECT {typed} FROM rolls ORDER BY seq").fetchall()
    assert store.verify_chain() == []
    bound.close()
    store.close()


def test_a_new_store_has_2_kb_pages_and_a_row_longer_than_a_page_reads_back_whole(
    tmp_path: Path,
) -> None:
    # A logged exchange (about 2.2 kB) is more than half a 4 kB page: on 2 kB pages its text
    # spills into overflow pages, and must come back byte for byte, hash and all.
    from arbiter.bridge.stores.sqlite_schema import PAGE_SIZE

    path = tmp_path / "s.sqlite3"
    store = Store(path)
    long = "é" * 3000 + "x" * 5000
    logged = store.append(new_roll("a")._replace(request=long, outcome='{"n":"' + long + '"}'))
    store.append(new_roll("b"))
    store.close()
    store = Store(path)
    assert PAGE_SIZE == 2048 and store.query("PRAGMA page_size", ()) == [(2048,)]
    assert store.find("a") == logged and store.verify_chain() == []
    store.close()


def test_a_store_created_with_4_kb_pages_keeps_them_and_its_rows(tmp_path: Path) -> None:
    # A world created before stores had 2 kB pages is opened as it is: no rewrite of the file.
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size=4096")
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    store = Store(path)
    first = store.append(new_roll("a"))
    store.close()
    store = Store(path)
    second = store.append(new_roll("b"))
    assert store.query("PRAGMA page_size", ()) == [(4096,)]
    assert list(store.rolls()) == [first, second] and store.verify_chain() == []
    store.close()
