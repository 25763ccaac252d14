"""A row staged alone is written by its commit as its own transaction (``Store.stage``): the
same rows, chain and failures as a row written when staged, one statement instead of three."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.store import RollbackLostRows, Store
from arbiter.bridge.stores.interface import StatBlock
from tests.bridge.stores.backends import FailingCommit
from tests.support.rolls import new_roll


def traced(store: Store) -> list[str]:
    """The statements the store's connection runs from now on (SQLite's own trace, each
    with its parameters written in)."""
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    return statements


def kinds(statements: list[str]) -> list[str]:
    """Each statement's text up to its column list. A trigger's program is traced with the
    text of the statement that fired it, right after it: traced once here (every row's
    INSERT has other parameters, so two rows never look alike)."""
    once = [s for at, s in enumerate(statements) if at == 0 or s != statements[at - 1]]
    return [s.split(" (")[0] for s in once]


def test_a_row_alone_in_its_group_is_written_by_one_statement_at_its_commit(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    first = store.append(new_roll("a"))
    statements = traced(store)
    staged = store.stage(new_roll("b"))
    assert statements == [] and store.pending and store.in_transaction
    store.commit()
    assert kinds(statements) == ["INSERT INTO rolls"]
    assert not store.pending
    assert [r.entry.request_id for r in store.rolls()] == ["a", "b"]
    assert staged.prev_hash == first.hash and list(store.rolls())[1] == staged
    assert store.verify_chain() == []
    store.close()


def test_find_answers_a_staged_row_not_yet_written_with_the_row_staged(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    staged = store.stage(new_roll("a"))
    assert store.find("a") == staged
    assert store.find("b") is None
    store.commit()
    assert store.find("a") == staged
    store.close()


def test_rows_staged_after_a_lone_one_join_it_in_one_transaction_in_order(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    statements = traced(store)
    staged = [store.stage(new_roll("a")), store.stage(new_roll("b")), store.stage(new_roll("c"))]
    store.commit()
    assert kinds(statements) == [
        "BEGIN IMMEDIATE",
        "INSERT INTO rolls",
        "INSERT INTO rolls",
        "INSERT INTO rolls",
        "COMMIT",
    ]
    assert list(store.rolls()) == staged
    assert store.verify_chain() == []
    store.close()


def test_a_read_of_the_log_before_the_commit_sees_the_staged_row(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    store.stage(new_roll("a"))
    assert store.count() == 1
    assert store.query("SELECT request_id FROM rolls", ()) == [("a",)]
    assert store.in_transaction
    store.commit()
    assert store.count() == 1 and not store.pending
    store.close()


def test_a_write_before_the_commit_joins_the_staged_row_and_a_failed_commit_loses_both(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    kept = store.append(new_roll("kept"))
    store.stage(new_roll("lost"))
    store.put_stat_block(StatBlock("tiny", "p1", "{}", None, 1.0))
    store._db = FailingCommit(store._db)  # type: ignore[assignment]
    with pytest.raises(Exception, match="disk is full"):
        store.commit()
    assert [r.entry.request_id for r in store.rolls()] == ["kept"]
    assert store.stat_block("tiny", "p1") is None
    assert store.append(new_roll("next")).prev_hash == kept.hash
    assert store.verify_chain() == []
    store.close()


def test_a_lone_row_whose_commit_fails_is_not_logged_and_the_chain_goes_on(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    kept = store.append(new_roll("kept"))
    store.stage(new_roll("lost"))
    store._db = FailingCommit(store._db)  # type: ignore[assignment]
    with pytest.raises(Exception, match="disk is full"):
        store.commit()
    assert not store.pending and store.find("lost") is None
    assert store.append(new_roll("lost")).prev_hash == kept.hash
    assert [r.entry.request_id for r in store.rolls()] == ["kept", "lost"]
    assert store.verify_chain() == []
    store.close()


def test_a_lone_row_that_cannot_be_written_when_another_is_staged_fails_the_commit_of_both(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "s.sqlite3")
    kept = store.append(new_roll("kept"))
    # Rows of several pages each: with the file held at its size, neither can be written.
    store.stage(new_roll("lost")._replace(request="x" * 5000))
    # A full disk: the file may not grow by a page, which the lone row needs.
    [pages] = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(Exception, match="full"):
        store.stage(new_roll("refused")._replace(request="x" * 5000))
    store._db.execute("PRAGMA max_page_count = 1073741823")
    with pytest.raises(RollbackLostRows):
        store.commit()
    assert not store.pending
    assert [r.entry.request_id for r in store.rolls()] == ["kept"]
    assert store.append(new_roll("again")).prev_hash == kept.hash
    assert store.verify_chain() == []
    store.close()
