"""The world's durable store: SQLite in WAL mode in the data directory.

:class:`Store` is the SQLite backend of :class:`arbiter.bridge.stores.WorldStore` (the other
is PostgreSQL's, :mod:`arbiter.bridge.stores.postgres`). The server drives it synchronously
(:meth:`Store.commit`); :meth:`Store.flush` is that commit behind the interface's await. Its
tables and statements are in :mod:`arbiter.bridge.stores.sqlite_schema`; its WAL checkpoints,
off the writer's path, in :mod:`arbiter.bridge.stores.sqlite_checkpointer` (:class:`Checkpointer`,
importable from here too, as are the records of :mod:`arbiter.bridge.records` callers read).
Its records beside the roll log (sessions, encounters, stat blocks, players) are read and
written by :class:`~arbiter.bridge.stores.sqlite_records.SqliteRecords`, its base.

One process writes (single writer). :meth:`Store.append` returns only after COMMIT, so a caller
that answers afterwards never answers with an outcome a crash could lose. ``synchronous=NORMAL``
(the default) survives a killed process; ``FULL`` also survives power loss at an fsync per roll.
"""

from __future__ import annotations

import itertools
import logging
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal

from arbiter.bridge.readonly import StoreUnreadable, open_read_only
from arbiter.bridge.records import (
    GENESIS,
    Encounter,
    NewRoll,
    Player,
    Roll,
    Session,
    canonical,
    chain_problems,
    kept,
    roll_hash,
    row_hash,
)
from arbiter.bridge.stores.interface import RequestLogged, StatBlock
from arbiter.bridge.stores.sqlite_checkpointer import Checkpointer
from arbiter.bridge.stores.sqlite_records import SqliteRecords
from arbiter.bridge.stores.sqlite_schema import (
    INSERT_USUAL,
    MIGRATE_1,
    PAGE_SIZE,
    PROBE_ROLL,
    ROLL_COLUMNS,
    ROLL_COLUMNS_1,
    SCHEMA,
    SCHEMA_VERSION,
    decode_roll,
    insert_roll,
)

log = logging.getLogger("arbiter.store")

_new_row = tuple.__new__
"""``tuple.__new__(Roll, fields)``: a :class:`Roll` without its Python-level __new__."""


class RollbackLostRows(sqlite3.OperationalError):
    """SQLite rolled back the whole transaction after a failed write (a full disk, an I/O
    error): rows staged before it are gone, so the commit that should have made them durable
    raises this instead."""


class Store(SqliteRecords):
    """The SQLite store of one world. Not shared between processes that both write."""

    def __init__(
        self,
        path: Path,
        synchronous: Literal["NORMAL", "FULL"] = "NORMAL",
        autocheckpoint: bool = True,
        read_only: bool = False,
    ) -> None:
        """Open (creating) the store. ``autocheckpoint=False`` leaves WAL checkpoints (and their
        fsyncs) to a :class:`Checkpointer` off the writer's path.

        ``read_only=True`` opens an existing store to read it only, writing nothing (no pragma,
        no schema), so it works on a read-only copy (see :mod:`arbiter.bridge.readonly`; raises
        StoreUnreadable saying why when it cannot)."""
        self.path = path
        if read_only:
            self._db = open_read_only(path)
            self._db.execute("PRAGMA busy_timeout=5000")
        else:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            # Before anything is written: it sets the page size of a new file only (an existing
            # one keeps its own, see PAGE_SIZE).
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            if not autocheckpoint:
                self._db.execute("PRAGMA wal_autocheckpoint=0")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(SCHEMA)
        try:
            version = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.OperationalError as err:
            self._db.close()
            raise StoreUnreadable(f"{path} is not an arbiter roll log ({err})") from None
        if version is None:
            if read_only:
                self._db.close()
                raise StoreUnreadable(f"{path} has no schema version: not an arbiter roll log")
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif version[0] == "1" and not read_only:
            # Schema 1 had no ``rolls.player``: its rows keep none (whose each is stays
            # unknown), and hash as they did.
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(MIGRATE_1)
            self._db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))
            self._db.execute("COMMIT")
            version = (SCHEMA_VERSION,)
        elif version[0] not in (SCHEMA_VERSION, "1"):
            raise RuntimeError(
                f"{path} has store schema {version[0]}, this arbiter reads {SCHEMA_VERSION}"
            )
        columns = ROLL_COLUMNS_1 if version is not None and version[0] == "1" else ROLL_COLUMNS
        self._roll_columns = columns
        """The ``rolls`` columns in :data:`ROLL_COLUMNS` order (a schema-1 copy read as it is
        has no ``player``)."""
        self._roll_at = f"SELECT {columns} FROM rolls WHERE seq = ?"
        self._rows = self._db.cursor()
        """The cursor of the idempotency probe and the INSERT of each row: one kept, rather than
        the new cursor object ``Connection.execute`` makes (and frees) per statement."""
        last = self._db.execute("SELECT seq, hash FROM rolls ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq: int
        self._last_hash: str
        self._last_seq, self._last_hash = (last[0], last[1]) if last else (0, GENESIS)
        self._committed = (self._last_seq, self._last_hash)
        self._lost = False
        """Staged rows were rolled back by SQLite itself; the next commit must fail."""
        self._deferred = None
        """The statement, parameters and row of a staged row not yet written (see
        :meth:`stage`): written by :meth:`commit` as its own transaction, or first thing by
        anything else that writes or reads the log (:meth:`_settle`)."""
        self._catch_up = False
        """The checkpointer asked for a catch-up (:meth:`catch_up_soon`)."""
        self._ids: bytearray | None = None
        """One bit per ``hash(request_id) & _id_mask`` of every row this store holds (staged
        ones included; a row rolled back leaves its bit): a clear bit means the id is not
        logged, so :meth:`find` answers a new id without the probe. Only for a store that
        writes (the one writer of its file, which sees every row): a read-only one probes."""
        self._id_mask = 0
        if not read_only:
            self._load_ids(self._last_seq)

    def close(self) -> None:
        self._deferred = None  # never committed: lost, as staged rows are
        self._db.close()

    def _load_ids(self, rows: int) -> None:
        """Set the bit of every logged request id (:attr:`_ids`), with room for many more:
        bits for 32 times the rows logged now (at least 2**20: 128 KiB, so that a host keeping
        thousands of worlds open pays little for the small ones), so that about one new id in
        32 is probed when the log has doubled since the store was opened (each probe a false
        alarm only: the index answers)."""
        bits = 1 << 20
        while bits < 32 * rows:
            bits <<= 1
        ids = bytearray(bits >> 3)
        mask = bits - 1
        for (request_id,) in self._db.execute("SELECT request_id FROM rolls"):
            at = hash(request_id) & mask
            ids[at >> 3] |= 1 << (at & 7)
        self._ids, self._id_mask = ids, mask

    def catch_up_soon(self) -> None:
        """Checkpoint the WAL's last frames on this connection before the next transaction
        begins, so that SQLite starts the WAL over (the :class:`Checkpointer` asks, from its
        thread, once only a few frames are left: see :mod:`.stores.sqlite_checkpointer`)."""
        self._catch_up = True

    def _catch_up_now(self) -> None:
        """The catch-up: a PASSIVE checkpoint, which never waits for a lock (when the thread's
        checkpoint is running it does nothing; the thread asks again). Between transactions
        only; nothing staged depends on it, so a failure is left to the next one."""
        self._catch_up = False
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            # The thread's checkpoints go on, and ask again.
            log.warning("the WAL catch-up checkpoint failed", exc_info=True)

    @property
    def pending(self) -> bool:
        """True while :meth:`commit` has something to do: staged rows, or rows SQLite lost."""
        return self._db.in_transaction or self._lost or self._deferred is not None

    # --- rolls ---

    def find(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id`` (staged rows included), or None.

        Nearly every request is new: an id whose bit is clear (:attr:`_ids`) is not looked
        up at all; else the probe reads one column, and only a logged id (a resend) reads its
        whole row.
        """
        ids = self._ids
        if ids is not None:
            at = hash(request_id) & self._id_mask
            if not ids[at >> 3] & (1 << (at & 7)):
                return None
        deferred = self._deferred
        if deferred is not None and deferred[1][1] == request_id:
            found_row: Roll = deferred[2]
            return found_row
        found = self._rows.execute(PROBE_ROLL, (request_id,)).fetchone()
        if found is None:
            return None
        return decode_roll(self._db.execute(self._roll_at, found).fetchone())

    def append(self, roll: NewRoll) -> Roll:
        """Log a decided request (and its encounter's new state) and COMMIT; returns the row.

        Raises :class:`RequestLogged` (an sqlite3.IntegrityError) when the request id is
        already logged.
        """
        stored = self.stage(roll)
        self.commit()
        return stored

    @property
    def in_transaction(self) -> bool:
        """True while staged rows wait for :meth:`commit`."""
        return self._db.in_transaction or self._deferred is not None

    def stage(self, roll: NewRoll, encoded: tuple[bytes, bytes, bytes] | None = None) -> Roll:
        """Stage a row: written inside the open transaction (opening one), visible to this
        store only. A row staged alone (nothing staged, an id whose bit is clear, no
        encounter) is kept until :meth:`commit`, which writes it as its own transaction: one
        statement instead of BEGIN, INSERT and COMMIT, the row at one connection; anything
        that writes or reads the log before (a second row, a session, a count) writes it
        first into a transaction, so it behaves as a row written here.

        ``encoded``: the UTF-8 bytes of the row's ``request``, ``dice`` and ``outcome`` texts
        when the caller has them at hand (they are hashed as they are, not encoded again).

        Nobody may be told about a staged row before :meth:`commit` returns. Staging several
        rows and committing once (group commit) is what lets many connections share one write.
        Raises :class:`RequestLogged` (an sqlite3.IntegrityError) when the request id is
        already logged; rows staged before it stay staged.
        """
        if self._deferred is not None:
            self._settle()
        seq, prev = self._last_seq + 1, self._last_hash
        ids = self._ids
        fresh = False
        if ids is not None:
            # Set before the INSERT: should it fail, the bit only costs a probe.
            at = hash(roll.request_id) & self._id_mask
            bit = 1 << (at & 7)
            fresh = not ids[at >> 3] & bit
            ids[at >> 3] |= bit
        if encoded is None:
            encoded = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
        digest = roll_hash(prev, seq, roll, *encoded)
        db = self._db
        # One statement: the trigger moves the encounter's state (the outcome's "state", when
        # not null) in the same statement, so a row and its state land together or not at all.
        # ``scripted`` goes in as the int it is stored as, and a None as the literal NULL
        # (sqlite3 sends a bool or a None through its adapter lookup, per value per row).
        if roll.encounter is None and roll.counter is not None and roll.player is None:
            # The usual row (no encounter, keyed dice, the GM's own), written out here.
            sql, args = (
                INSERT_USUAL,
                (seq, *roll[:5], *roll[6:11], int(roll.scripted), roll.time, prev, digest),
            )
        else:
            sql, args = insert_roll(seq, roll, prev, digest)
        in_transaction = db.in_transaction
        if fresh and not in_transaction and roll.encounter is None and not self._lost:
            # Nothing staged, an id never logged (its bit was clear: no UNIQUE conflict to
            # raise), no encounter state to move: the row is kept to be written by the commit
            # as its own transaction, one statement instead of BEGIN, INSERT and COMMIT (a
            # row is usually alone in its group at one connection). A row staged after it,
            # or any other write or read of the log, writes it first into a transaction.
            self._committed = (self._last_seq, prev)
            stored = _new_row(Roll, (seq, roll, prev, digest))
            self._deferred = (sql, args, stored)
            self._last_seq, self._last_hash = seq, digest
            return stored
        if not in_transaction:
            if self._catch_up:
                self._catch_up_now()
            # On the kept cursor: ``Connection.execute`` would make (and free) a cursor for it.
            # (COMMIT stays on the connection: tests stand a failing one in for it.)
            self._rows.execute("BEGIN IMMEDIATE")
            self._committed = (self._last_seq, prev)
        try:
            # _write's bookkeeping, written out: one Python call less per row.
            self._rows.execute(sql, args)
        except sqlite3.Error as err:
            if not db.in_transaction and self._last_seq != self._committed[0]:
                self._lost = True
                self._last_seq, self._last_hash = self._committed
            if isinstance(err, sqlite3.IntegrityError):
                raise RequestLogged(f"request id {roll.request_id!r} is already logged") from err
            raise
        stored = _new_row(Roll, (seq, roll, prev, digest))
        self._last_seq, self._last_hash = seq, digest
        return stored

    def commit(self) -> None:
        """Make every staged row durable. On failure nothing staged survives, and it raises
        (:class:`RollbackLostRows` when SQLite had already rolled staged rows back)."""
        if self._lost:
            self._lost = False
            self._deferred = None
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._last_seq, self._last_hash = self._committed
            raise RollbackLostRows("a failed write rolled back rows staged before it")
        deferred = self._deferred
        if deferred is not None:
            self._deferred = None
            if self._catch_up:
                self._catch_up_now()
            try:
                # Outside a transaction: SQLite commits the row as the statement ends.
                self._db.execute(deferred[0], deferred[1])
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                self._last_seq, self._last_hash = self._committed
                raise
            return
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._last_seq, self._last_hash = self._committed
            raise

    def _settle(self) -> None:
        """Write the deferred row (:meth:`stage`) into a transaction opened for it: what comes
        next joins that transaction and sees the row, as if it had been written when staged.
        When it cannot be written, it is lost as a row SQLite rolled back is: the next
        :meth:`commit` raises :class:`RollbackLostRows` (its sender is told nothing was
        decided) and the chain goes on from the last committed row."""
        deferred = self._deferred
        assert deferred is not None
        self._deferred = None
        try:
            if self._catch_up:
                self._catch_up_now()
            self._rows.execute("BEGIN IMMEDIATE")
            self._rows.execute(deferred[0], deferred[1])
        except sqlite3.Error:
            log.warning("a staged row could not be written; its commit will fail", exc_info=True)
            try:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            except sqlite3.Error:
                log.warning("the ROLLBACK after it failed too", exc_info=True)
            self._lost = True
            self._last_seq, self._last_hash = self._committed

    @property
    def flush_now(self) -> Callable[[], None] | None:
        """:meth:`flush` as a plain call (:meth:`commit`: this store's flush never suspends, so
        the group commit runs it from a callback, no task per group); None once ``flush`` is
        replaced on the instance (a test holding or failing the flush), which the group commit
        then awaits as it is. Asked when a group runs, so a replacement made at any time
        counts."""
        return None if "flush" in self.__dict__ else self.commit

    async def flush(self) -> None:
        """:meth:`commit`, as :class:`arbiter.bridge.stores.WorldStore` awaits it."""
        self.commit()

    def rolls(self, after: int = 0, session: str | None = None) -> Iterator[Roll]:
        """Rows in log order (``seq`` greater than ``after``), optionally of one session."""
        if self._deferred is not None:
            self._settle()
        if session is None:
            query = f"SELECT {self._roll_columns} FROM rolls WHERE seq > ? ORDER BY seq"
            args: tuple[Any, ...] = (after,)
        else:
            query = (
                f"SELECT {self._roll_columns} FROM rolls WHERE seq > ? AND session = ? ORDER BY seq"
            )
            args = (after, session)
        for row in self._db.execute(query, args):
            yield decode_roll(row)

    def count(self) -> int:
        if self._deferred is not None:
            self._settle()
        return int(self._db.execute("SELECT count(*) FROM rolls").fetchone()[0])

    async def recall(self, request_id: str) -> Roll | None:
        """:meth:`find`: every row is read from the file (:class:`RowNotCached` never comes)."""
        return self.find(request_id)

    def cached_from(self) -> int:
        """1: every row is read from the file, synchronously."""
        return 1

    async def read_rolls(self, after: int, upto: int) -> list[Roll]:
        """The rows ``after < seq <= upto`` (never needed by the server: see :meth:`cached_from`)."""
        return list(itertools.takewhile(lambda roll: roll.seq <= upto, self.rolls(after)))

    def verify_chain(self) -> list[str]:
        """Problems with the hash chain (empty when every row links to the one before)."""
        return chain_problems(self.rolls())


__all__ = [
    "GENESIS",
    "SCHEMA_VERSION",
    "Checkpointer",
    "Encounter",
    "NewRoll",
    "Player",
    "RequestLogged",
    "Roll",
    "RollbackLostRows",
    "Session",
    "StatBlock",
    "Store",
    "StoreUnreadable",
    "canonical",
    "kept",
    "row_hash",
]
