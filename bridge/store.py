"""The world's durable store: SQLite in WAL mode in the data directory.

* ``rolls`` — the append-only roll log. One row per decided request: the request, every die it
  recorded, the outcome, the rules hash, the user, the time, and a hash chained to the previous
  row (SHA-256 of the previous hash and the row's fields, see :func:`row_hash`). Triggers
  refuse UPDATE and DELETE. ``request_id`` is unique: it is the idempotency key.
* ``sessions`` — one per authenticated connection: its dice seed and the seed's commitment.
  Rows record the keyed-dice ``counter`` they started at, so a revealed seed re-derives each roll.
* ``encounters`` — the current state of every encounter, written in the same transaction as the
  row that changed it.
* ``players`` — who may connect as a player and the participants he holds (``bridge/players.py``):
  the SHA-256 of his token, never the token.
* ``stat_blocks`` — the GM's stat blocks, which only the GM reads (``bridge/stat_block_vault.py``
  reads and writes them through :meth:`Store.stat_block` and its siblings).

:class:`Store` is the SQLite backend of :class:`arbiter.bridge.stores.WorldStore` (the other
is PostgreSQL's, :mod:`arbiter.bridge.stores.postgres`). The server drives it synchronously
(:meth:`Store.commit`); :meth:`Store.flush` is that commit behind the interface's await.

One process writes (single writer). :meth:`Store.append` returns only after COMMIT, so a caller
that answers afterwards never answers with an outcome a crash could lose. ``synchronous=NORMAL``
(the default) survives a killed process; ``FULL`` also survives power loss at an fsync per roll.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
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
    kept,
    roll_hash,
    row_hash,
)
from arbiter.bridge.stores.interface import RequestLogged, StatBlock

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  seed TEXT NOT NULL,
  commitment TEXT NOT NULL,
  user TEXT NOT NULL,
  client TEXT NOT NULL,
  started REAL NOT NULL,
  ended REAL
);
CREATE TABLE IF NOT EXISTS rolls (
  seq INTEGER PRIMARY KEY,
  request_id TEXT NOT NULL UNIQUE,
  session TEXT NOT NULL,
  user TEXT NOT NULL,
  ruleset TEXT NOT NULL,
  type TEXT NOT NULL,
  encounter TEXT,
  rules_hash TEXT NOT NULL,
  request TEXT NOT NULL,
  dice TEXT NOT NULL,
  outcome TEXT NOT NULL,
  counter INTEGER,
  scripted INTEGER NOT NULL,
  time REAL NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
-- No index on session: every index is one more b-tree per logged roll, and only `arbiter
-- reveal` / `arbiter log --session` look rows up by session (a scan is fine for them).
CREATE TRIGGER IF NOT EXISTS rolls_append_only_update BEFORE UPDATE ON rolls
  BEGIN SELECT RAISE(ABORT, 'the roll log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS rolls_append_only_delete BEFORE DELETE ON rolls
  BEGIN SELECT RAISE(ABORT, 'the roll log is append-only'); END;
CREATE TABLE IF NOT EXISTS encounters (
  id TEXT PRIMARY KEY,
  ruleset TEXT NOT NULL,
  state TEXT,
  seq INTEGER
);
CREATE TRIGGER IF NOT EXISTS rolls_move_encounter AFTER INSERT ON rolls
  WHEN NEW.encounter IS NOT NULL
  BEGIN
    INSERT INTO encounters (id, ruleset, state, seq)
      SELECT NEW.encounter, NEW.ruleset, s, CASE WHEN s IS NULL THEN NULL ELSE NEW.seq END
      FROM (SELECT json_extract(NEW.outcome, '$.state') AS s)
      WHERE true
    ON CONFLICT (id) DO UPDATE SET state = excluded.state, seq = excluded.seq
      WHERE excluded.state IS NOT NULL;
  END;
CREATE TABLE IF NOT EXISTS players (
  name TEXT PRIMARY KEY,
  participants TEXT NOT NULL,
  token_hash TEXT UNIQUE,
  created REAL NOT NULL,
  revoked REAL
);
CREATE TABLE IF NOT EXISTS stat_blocks (
  ruleset TEXT NOT NULL,
  participant TEXT NOT NULL,
  block TEXT NOT NULL,
  actor TEXT,
  updated REAL NOT NULL,
  PRIMARY KEY (ruleset, participant)
);
"""


_ROLL_COLUMNS = (
    "seq, request_id, session, user, ruleset, type, encounter, rules_hash, request, dice, "
    "outcome, counter, scripted, time, prev_hash, hash"
)


class RollbackLostRows(sqlite3.OperationalError):
    """SQLite rolled back the whole transaction after a failed write (a full disk, an I/O
    error): rows staged before it are gone, so the commit that should have made them durable
    raises this instead."""


_INSERT_ROLL = (
    f"INSERT INTO rolls ({_ROLL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_PLAYER_COLUMNS = "name, participants, token_hash, created, revoked"
_STAT_BLOCK_COLUMNS = "ruleset, participant, block, actor, updated"
_PROBE_ROLL = "SELECT seq FROM rolls WHERE request_id = ?"
"""The idempotency probe: one column, because Python's sqlite3 builds a cursor's description (a
tuple per result column) on every execute, which for the whole row cost as much as the probe."""
_ROLL_AT = f"SELECT {_ROLL_COLUMNS} FROM rolls WHERE seq = ?"
# One statement text each (built once, not per call), so sqlite3's statement cache prepares
# each once.


class Store:
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
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            if not autocheckpoint:
                self._db.execute("PRAGMA wal_autocheckpoint=0")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
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
        elif version[0] != SCHEMA_VERSION:
            raise RuntimeError(
                f"{path} has store schema {version[0]}, this arbiter reads {SCHEMA_VERSION}"
            )
        last = self._db.execute("SELECT seq, hash FROM rolls ORDER BY seq DESC LIMIT 1").fetchone()
        self._last_seq, self._last_hash = (last[0], last[1]) if last else (0, GENESIS)
        self._committed = (self._last_seq, self._last_hash)
        self._lost = False
        """Staged rows were rolled back by SQLite itself; the next commit must fail."""

    def close(self) -> None:
        self._db.close()

    # --- sessions ---

    def _write(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Cursor:
        """Execute a write, inside the open transaction if any.

        On a full disk or an I/O error SQLite may roll back the whole transaction, not only the
        failed statement: then every row staged before it is gone too. Take note, so that the
        commit meant for them raises (their senders are told nothing was decided) and the chain
        continues from the last committed row.
        """
        try:
            return self._db.execute(sql, args)
        except sqlite3.Error:
            if not self._db.in_transaction and self._last_seq != self._committed[0]:
                self._lost = True
                self._last_seq, self._last_hash = self._committed
            raise

    @property
    def pending(self) -> bool:
        """True while :meth:`commit` has something to do: staged rows, or rows SQLite lost."""
        return self._db.in_transaction or self._lost

    def open_session(self, session: Session) -> None:
        self._write(
            "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                session.id,
                session.seed,
                session.commitment,
                session.user,
                session.client,
                session.started,
                session.ended,
            ),
        )

    def end_session(self, session_id: str, now: float) -> None:
        self._write(
            "UPDATE sessions SET ended = ? WHERE id = ? AND ended IS NULL", (now, session_id)
        )

    def end_open_sessions(self, now: float) -> int:
        """Mark sessions left open by a previous process (it crashed) as ended."""
        return self._db.execute(
            "UPDATE sessions SET ended = ? WHERE ended IS NULL", (now,)
        ).rowcount

    def session(self, session_id: str) -> Session | None:
        row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return Session(*row) if row else None

    def sessions(self) -> list[Session]:
        return [Session(*r) for r in self._db.execute("SELECT * FROM sessions ORDER BY started")]

    # --- rolls ---

    def find(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id`` (staged rows included), or None.

        Nearly every request is new: the probe reads one column, and only a logged id (a
        resend) reads its whole row.
        """
        found = self._db.execute(_PROBE_ROLL, (request_id,)).fetchone()
        if found is None:
            return None
        return _roll(self._db.execute(_ROLL_AT, found).fetchone())

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
        return self._db.in_transaction

    def stage(self, roll: NewRoll, encoded: tuple[bytes, bytes, bytes] | None = None) -> Roll:
        """Write a row inside the open transaction (opening one); visible to this store only.

        ``encoded``: the UTF-8 bytes of the row's ``request``, ``dice`` and ``outcome`` texts
        when the caller has them at hand (they are hashed as they are, not encoded again).

        Nobody may be told about a staged row before :meth:`commit` returns. Staging several
        rows and committing once (group commit) is what lets many connections share one write.
        Raises :class:`RequestLogged` (an sqlite3.IntegrityError) when the request id is
        already logged; rows staged before it stay staged.
        """
        seq, prev = self._last_seq + 1, self._last_hash
        if encoded is None:
            encoded = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
        digest = roll_hash(prev, seq, roll, *encoded)
        db = self._db
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
            self._committed = (self._last_seq, prev)
        # One statement: the trigger moves the encounter's state (the outcome's "state", when
        # not null) in the same statement, so a row and its state land together or not at all.
        # ``scripted`` goes in as the int it is stored as: sqlite3 binds only exact ints
        # directly, and sends a bool through its adapter lookup (an AttributeError raised and
        # cleared per row) before binding the same 0 or 1.
        try:
            self._write(
                _INSERT_ROLL, (seq, *roll[:11], int(roll.scripted), roll.time, prev, digest)
            )
        except sqlite3.IntegrityError as err:
            raise RequestLogged(f"request id {roll.request_id!r} is already logged") from err
        stored = Roll(seq, roll, prev, digest)
        self._last_seq, self._last_hash = seq, digest
        return stored

    def commit(self) -> None:
        """Make every staged row durable. On failure nothing staged survives, and it raises
        (:class:`RollbackLostRows` when SQLite had already rolled staged rows back)."""
        if self._lost:
            self._lost = False
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._last_seq, self._last_hash = self._committed
            raise RollbackLostRows("a failed write rolled back rows staged before it")
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._last_seq, self._last_hash = self._committed
            raise

    async def flush(self) -> None:
        """:meth:`commit`, as :class:`arbiter.bridge.stores.WorldStore` awaits it."""
        self.commit()

    def rolls(self, after: int = 0, session: str | None = None) -> Iterator[Roll]:
        """Rows in log order (``seq`` greater than ``after``), optionally of one session."""
        if session is None:
            query, args = f"SELECT {_ROLL_COLUMNS} FROM rolls WHERE seq > ? ORDER BY seq", (after,)
        else:
            query = f"SELECT {_ROLL_COLUMNS} FROM rolls WHERE seq > ? AND session = ? ORDER BY seq"
            args = (after, session)
        for row in self._db.execute(query, args):
            yield _roll(row)

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM rolls").fetchone()[0])

    def verify_chain(self) -> list[str]:
        """Problems with the hash chain (empty when every row links to the one before)."""
        problems = []
        prev = GENESIS
        for roll in self.rolls():
            if roll.prev_hash != prev:
                problems.append(f"row {roll.seq}: prev_hash does not match row {roll.seq - 1}")
            if roll.chain_hash() != roll.hash:
                problems.append(f"row {roll.seq}: hash does not match its contents")
            prev = roll.hash
        return problems

    # --- encounters ---

    def encounter(self, encounter_id: str) -> Encounter | None:
        row = self._db.execute(
            "SELECT id, ruleset, state, seq FROM encounters WHERE id = ?", (encounter_id,)
        ).fetchone()
        if row is None:
            return None
        return Encounter(row[0], row[1], json.loads(row[2]) if row[2] else None, row[3])

    # --- the GM's stat blocks ---

    def stat_block(self, ruleset: str, participant: str) -> StatBlock | None:
        row = self._db.execute(
            f"SELECT {_STAT_BLOCK_COLUMNS} FROM stat_blocks WHERE ruleset = ? AND participant = ?",
            (ruleset, participant),
        ).fetchone()
        return StatBlock(*row) if row else None

    def stat_blocks(self, ruleset: str | None = None) -> list[StatBlock]:
        """Every stored block (of ``ruleset``), by ruleset and participant."""
        sql = f"SELECT {_STAT_BLOCK_COLUMNS} FROM stat_blocks"
        args: tuple[str, ...] = ()
        if ruleset is not None:
            sql, args = f"{sql} WHERE ruleset = ?", (ruleset,)
        rows = self._db.execute(f"{sql} ORDER BY ruleset, participant", args)
        return [StatBlock(*row) for row in rows]

    def put_stat_block(self, block: StatBlock) -> None:
        """Create or replace a block, inside the open transaction if any (a caller answering
        after it waits for the group commit, as a roll's does)."""
        self._write(
            f"INSERT OR REPLACE INTO stat_blocks ({_STAT_BLOCK_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
            tuple(block),
        )

    def delete_stat_block(self, ruleset: str, participant: str) -> None:
        self._write(
            "DELETE FROM stat_blocks WHERE ruleset = ? AND participant = ?", (ruleset, participant)
        )

    # --- raw SQL (this backend only: tests and tools; not part of WorldStore) ---

    def write(self, sql: str, args: tuple[Any, ...]) -> None:
        """Execute one write inside the open transaction, if any (a caller answering after it
        waits for the group commit, as a roll's does)."""
        self._write(sql, args)

    def query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """The rows one read returns (it sees writes staged in the open transaction)."""
        return self._db.execute(sql, args).fetchall()

    # --- players ---

    def player(self, name: str) -> Player | None:
        row = self._db.execute(f"SELECT {_PLAYER_COLUMNS} FROM players WHERE name = ?", (name,))
        found = row.fetchone()
        return Player.from_row(found) if found else None

    def player_by_hash(self, token_hash: str) -> Player | None:
        row = self._db.execute(
            f"SELECT {_PLAYER_COLUMNS} FROM players WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return Player.from_row(row) if row else None

    def players(self) -> list[Player]:
        """Every player record (revoked ones included), by name."""
        rows = self._db.execute(f"SELECT {_PLAYER_COLUMNS} FROM players ORDER BY name")
        return [Player.from_row(r) for r in rows]

    def put_player(self, player: Player) -> None:
        """Create or replace a player record (inside the open transaction, if one is open)."""
        self._db.execute(
            f"INSERT OR REPLACE INTO players ({_PLAYER_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
            player.row(),
        )


class Checkpointer:
    """Copies the WAL back into the database from its own connection (run it in a thread).

    With autocheckpoint off, the writer never stalls on a checkpoint's fsync; this keeps the WAL
    from growing without bound. PASSIVE: it never blocks the writer.
    """

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA busy_timeout=5000")
        # One user of the connection at a time: a cancelled ``asyncio.to_thread`` leaves its
        # checkpoint running in the thread while the server's shutdown checkpoints and closes
        # from the loop's thread, and sqlite3 crashes the process (SIGSEGV) on a connection
        # closed under a running statement.
        self._lock = threading.Lock()
        self._closed = False

    def checkpoint(self, mode: Literal["PASSIVE", "TRUNCATE"] = "PASSIVE") -> None:
        """Checkpoint now, after any checkpoint already running; nothing once closed."""
        with self._lock:
            if not self._closed:
                self._db.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()

    def close(self) -> None:
        """Close the connection, after any checkpoint already running (idempotent)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._db.close()


def _roll(row: tuple[Any, ...]) -> Roll:
    # Columns in _ROLL_COLUMNS order: seq, the 13 fields of NewRoll (scripted stored as 0/1),
    # prev_hash, hash.
    entry = NewRoll(*row[1:12], bool(row[12]), row[13])
    return Roll(row[0], entry, row[14], row[15])


__all__ = [
    "GENESIS",
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
