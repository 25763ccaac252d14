"""WAL checkpoints of the SQLite store (:class:`arbiter.bridge.store.Store`) off the writer's
path: a :class:`Checkpointer` copies the write-ahead log back into the database from its own
connection, so a store opened with ``autocheckpoint=False`` never stalls on a checkpoint's fsync
but for a short catch-up that lets SQLite start the WAL over (below).

Why the catch-up: SQLite writes the WAL from its start again only when a write transaction
begins with every frame copied back. Under load that never pauses, a checkpoint in another
thread never gets there (frames arrive while it copies and syncs), and the WAL grows for as
long as the load lasts, each write landing on new file pages. So once the WAL holds
:data:`RESET_FRAMES` frames, the thread checkpoints round after round until at most
:data:`CATCH_UP_FRAMES` are left (or :data:`MAX_ROUNDS` rounds ran), then asks the writer
(``catch_up``) to checkpoint the rest itself, between two group commits: a PASSIVE checkpoint
on the writer's connection, which never waits for a lock (it gives up if the thread's is
running), copies those few frames and syncs the WAL and the database once each. The writer's
next transaction starts the WAL over, and the file is written again in place. Nothing
committed depends on a checkpoint: a failed or skipped one leaves the frames in the WAL.

What the thread costs the requests it runs beside (``benchmarks/bridge_tail.py``, issue #16): at
one connection a logged row writes about 4.4 WAL frames (page 1, the table and index leaves, an
interior page, an overflow page): 9 KB, 25-30 MB a second at 3,300 requests a second; each
second's checkpoint syncs that, copies it and syncs the database (20-40 ms). The kernel finishes those writes (``ext4_finish_bio``,
``folio_end_writeback``) in interrupts on whichever CPU the disk's interrupt goes to, often the
server's, so the ~2.5% of requests that overlap a checkpoint are slower (their p99 0.75-1.1 ms
against 0.42-0.49 for the rest): 20-40% of the slowest 1%. That is the price of never
stalling the writer: SQLite's own checkpoints on the writer (every 1,000 frames) instead gave a
higher p99 (0.66 ms against 0.57 in the same rounds). Lowering the thread's priority,
checkpointing ten times as often, or starting the WAL's writeback every 50-200 ms did not
lower the p99.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

RESET_FRAMES = 4096
"""Frames (pages: 2 KB in a new store) the WAL may hold before the writer is asked to catch up
so that it starts over: 8 MB, about a second of unbroken load here. Fewer resets the larger it
is (each one stalls the writer for a catch-up); the WAL file stays about this large, or a
second of writes (:data:`IDLE`) if more (19-23 MB in ``benchmarks/bridge_syscalls.py``)."""

CATCH_UP_FRAMES = 256
"""At most this many frames left for the writer's own catch-up (plus those of the group commit
in flight when it is asked): what bounds its stall, beside its two syncs."""

MAX_ROUNDS = 8
"""Rounds after which the writer is asked to catch up however many frames are left: a writer
faster than the thread's rounds still gets its WAL started over, at the cost of a catch-up of
what one round left (the frames written while it ran)."""

IDLE = 1.0
"""Seconds between checkpoints while the WAL is below :data:`RESET_FRAMES` (as before: the
thread's work per second stays what it was; under heavy load the WAL may grow a second's worth
past :data:`RESET_FRAMES` before the thread notices)."""

ASKED = 0.05
"""Seconds the thread leaves the writer to catch up before its next round."""


class Progress(NamedTuple):
    """What ``PRAGMA wal_checkpoint`` returns."""

    busy: int
    """1 if the checkpoint could not run (or finish) because of another connection."""
    frames: int
    """Frames in the WAL (since it last started over)."""
    copied: int
    """Frames of those copied back into the database."""


class Checkpointer:
    """Copies the WAL back into the database from its own connection (run :meth:`step` in a
    thread, again after the delay it returns).

    With autocheckpoint off, the writer never stalls on a checkpoint's fsync but for its
    catch-up (see the module); this keeps the WAL from growing without bound. The thread's
    checkpoints are PASSIVE: they never block the writer.
    """

    def __init__(
        self,
        path: Path,
        catch_up: Callable[[], None] | None = None,
        reset_frames: int = RESET_FRAMES,
        catch_up_frames: int = CATCH_UP_FRAMES,
    ) -> None:
        """``catch_up``: asks the writer to checkpoint the last frames itself (thread-safe;
        :meth:`arbiter.bridge.store.Store.catch_up_soon`). None: the WAL is left to grow
        until the load pauses (the thread's checkpoints alone). ``reset_frames`` and
        ``catch_up_frames``: :data:`RESET_FRAMES` and :data:`CATCH_UP_FRAMES` (tests set
        smaller ones)."""
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout=5000")
        self._catch_up = catch_up
        self._reset_frames = reset_frames
        self._catch_up_frames = catch_up_frames
        self._rounds = 0
        """Rounds run since the WAL reached the reset frames (or the writer was last asked)."""
        # One user of the connection at a time: a cancelled ``asyncio.to_thread`` leaves its
        # checkpoint running in the thread while the server's shutdown checkpoints and closes
        # from the loop's thread, and sqlite3 crashes the process (SIGSEGV) on a connection
        # closed under a running statement.
        self._lock = threading.Lock()
        self._closed = False

    def checkpoint(self, mode: Literal["PASSIVE", "TRUNCATE"] = "PASSIVE") -> Progress | None:
        """Checkpoint now, after any checkpoint already running; nothing (None) once closed."""
        with self._lock:
            if self._closed:
                return None
            busy, frames, copied = self._db.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            return Progress(busy, frames, copied)

    def step(self) -> float:
        """Checkpoint (PASSIVE) and, when the WAL is due to start over, ask the writer to catch
        up (see the module). Returns the seconds to wait before the next step: none while the
        thread is still catching up itself."""
        done = self.checkpoint()
        if done is None or done.frames < self._reset_frames or self._catch_up is None:
            self._rounds = 0
            return IDLE
        self._rounds += 1
        if done.frames - done.copied > self._catch_up_frames and self._rounds < MAX_ROUNDS:
            return 0.0
        self._rounds = 0
        self._catch_up()
        return ASKED

    def close(self) -> None:
        """Close the connection, after any checkpoint already running (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()


__all__ = ["CATCH_UP_FRAMES", "MAX_ROUNDS", "RESET_FRAMES", "Checkpointer", "Progress"]
