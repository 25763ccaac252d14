"""The SQLite store's WAL starts over under load that never pauses (the checkpointer asks the
writer to catch up), and no committed row is lost to it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from arbiter.bridge.records import NewRoll
from arbiter.bridge.store import Store
from arbiter.bridge.stores.sqlite_checkpointer import ASKED, IDLE, MAX_ROUNDS, Checkpointer
from arbiter.bridge.stores.sqlite_schema import PAGE_SIZE
from tests.support.rolls import new_roll

FRAME = PAGE_SIZE + 24
"""Bytes of a WAL frame: a page and its header."""

PADDING = "x" * 1800
"""About the size of a logged combat-styles exchange: most of a row goes to overflow pages."""


def _roll(group: int, row: int) -> NewRoll:
    rid = f"r-{group}-{row}"
    return new_roll(rid)._replace(request=f'{{"id":"{rid}","pad":"{PADDING}"}}')


def _wal_frames(path: Path) -> int:
    wal = Path(f"{path}-wal")
    return (wal.stat().st_size - 32) // FRAME if wal.exists() else 0


def _unbroken_load(path: Path, catch_up: bool, groups: int) -> list[int]:
    """A writer committing ``groups`` groups of 4 rows, each checkpoint of the thread's run
    while the writer's transaction is open (as under load that never pauses, deterministically):
    the WAL's frames after each commit."""
    store = Store(path, autocheckpoint=False)
    checkpointer = Checkpointer(
        path, store.catch_up_soon if catch_up else None, reset_frames=64, catch_up_frames=16
    )
    frames = []
    for group in range(groups):
        for row in range(4):
            store.stage(_roll(group, row))
        checkpointer.step()
        store.commit()
        frames.append(_wal_frames(path))
    checkpointer.close()
    store.close()
    return frames


def test_under_load_that_never_pauses_the_wal_starts_over_once_it_holds_the_reset_frames(
    tmp_path: Path,
) -> None:
    alone = _unbroken_load(tmp_path / "alone.sqlite3", catch_up=False, groups=200)
    # The thread's checkpoints alone: every frame copied, but never when the writer begins,
    # so SQLite never starts the WAL over and it grows with every commit.
    assert alone == sorted(alone) and alone[-1] > 800
    per_group = alone[-1] // 200
    caught_up = _unbroken_load(tmp_path / "caught-up.sqlite3", catch_up=True, groups=200)
    # Asked once the WAL holds 64 frames, the writer copies the last group's frames back
    # before its next transaction, which starts the WAL over: the file never holds more than
    # the 64 frames, the group that crossed them and the group committed before the catch-up.
    assert max(caught_up) <= 64 + 2 * per_group + 1
    with sqlite3.connect(tmp_path / "caught-up.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM rolls").fetchone() == (800,)


def test_a_checkpointer_far_behind_checkpoints_again_at_once_and_asks_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite3"
    store = Store(path, autocheckpoint=False)
    asked: list[bool] = []
    checkpointer = Checkpointer(path, lambda: asked.append(True), reset_frames=8, catch_up_frames=8)
    store.append(_roll(0, 0))
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM rolls").fetchall()  # the copy stops at its snapshot
    for row in range(1, 20):
        store.append(_roll(0, row))
    assert checkpointer.step() == 0.0 and asked == []
    reader.rollback()
    assert checkpointer.step() == ASKED and asked == [True]
    store.commit()
    checkpointer.close()
    reader.close()
    store.close()


def test_a_checkpointer_that_never_gets_close_asks_the_writer_after_its_last_round(
    tmp_path: Path,
) -> None:
    # A writer faster than the thread's rounds: its WAL still starts over, at the cost of a
    # longer catch-up.
    path = tmp_path / "s.sqlite3"
    store = Store(path, autocheckpoint=False)
    asked: list[bool] = []
    checkpointer = Checkpointer(path, lambda: asked.append(True), reset_frames=8, catch_up_frames=8)
    store.append(_roll(0, 0))
    reader = sqlite3.connect(path)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM rolls").fetchall()  # the copy stops at its snapshot
    for row in range(1, 20):
        store.append(_roll(0, row))
    assert [checkpointer.step() for _ in range(MAX_ROUNDS - 1)] == [0.0] * (MAX_ROUNDS - 1)
    assert asked == []
    assert checkpointer.step() == ASKED and asked == [True]
    assert checkpointer.step() == 0.0 and asked == [True]  # counting again
    reader.rollback()
    store.commit()
    checkpointer.close()
    reader.close()
    store.close()


def test_a_wal_below_the_reset_frames_is_checkpointed_at_leisure(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    store = Store(path, autocheckpoint=False)
    asked: list[bool] = []
    checkpointer = Checkpointer(path, lambda: asked.append(True))
    store.append(_roll(0, 0))
    assert checkpointer.step() == IDLE and asked == []
    assert checkpointer.checkpoint() == (0, _wal_frames(path), _wal_frames(path))
    checkpointer.close()
    store.close()


def test_rows_committed_while_the_checkpoints_and_catch_ups_run_are_all_there_after_a_reopen(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite3"
    store = Store(path, autocheckpoint=False)
    checkpointer = Checkpointer(path, store.catch_up_soon, reset_frames=32, catch_up_frames=8)
    stop = threading.Event()

    def checkpoints() -> None:
        while not stop.is_set():
            checkpointer.step()  # no pause between steps: as many as the writer lets run

    thread = threading.Thread(target=checkpoints)
    thread.start()
    try:
        for group in range(300):
            for row in range(4):
                store.stage(_roll(group, row))
            store.commit()
    finally:
        stop.set()
        thread.join()
    checkpointer.close()
    store.close()
    reopened = Store(path, autocheckpoint=False)
    assert [r.entry.request_id for r in reopened.rolls()] == [
        f"r-{group}-{row}" for group in range(300) for row in range(4)
    ]
    assert reopened.verify_chain() == []
    reopened.close()
