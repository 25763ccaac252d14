"""The SQLite store's records beside the roll log (:class:`SqliteRecords`): sessions,
encounters, the GM's stat blocks, players, and raw SQL for tests and tools.

:class:`arbiter.bridge.store.Store` opens the connection, writes and commits the roll log, and
sets the fields these read and write through.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from arbiter.bridge.records import Encounter, Player, Session
from arbiter.bridge.stores.interface import StatBlock
from arbiter.bridge.stores.sqlite_schema import (
    BIND_PLAYER_SQLITE,
    PLAYER_COLUMNS,
    STAT_BLOCK_COLUMNS,
)


class SqliteRecords:
    """One world's records beside the roll log, in its SQLite file (the store sets the fields)."""

    _db: sqlite3.Connection
    _lost: bool
    _last_seq: int
    _last_hash: str
    _committed: tuple[int, str]
    _deferred: tuple[str, tuple[Any, ...], Any] | None
    """A lone row staged but not yet written (see :meth:`arbiter.bridge.store.Store.stage`):
    every write, and every read that may see the roll log, writes it first (:meth:`_settle`)."""

    def _settle(self) -> None:
        """Write the deferred row into a transaction opened for it, so that what follows sees
        it and joins its transaction, as it would have had the row been written when staged
        (the store implements it)."""
        raise NotImplementedError

    # --- sessions ---

    def _write(
        self, sql: str, args: tuple[Any, ...], cursor: sqlite3.Cursor | None = None
    ) -> sqlite3.Cursor:
        """Execute a write, inside the open transaction if any.

        On a full disk or an I/O error SQLite may roll back the whole transaction, not only the
        failed statement: then every row staged before it is gone too. Take note, so that the
        commit meant for them raises (their senders are told nothing was decided) and the chain
        continues from the last committed row.
        """
        if self._deferred is not None:
            self._settle()
        try:
            if cursor is None:
                return self._db.execute(sql, args)
            return cursor.execute(sql, args)
        except sqlite3.Error:
            if not self._db.in_transaction and self._last_seq != self._committed[0]:
                self._lost = True
                self._last_seq, self._last_hash = self._committed
            raise

    def open_session(self, session: Session) -> None:
        self._write("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?)", session.row())

    def end_session(self, session_id: str, now: float) -> None:
        self._write(
            "UPDATE sessions SET ended = ? WHERE id = ? AND ended IS NULL", (now, session_id)
        )

    def end_open_sessions(self, now: float) -> int:
        """Mark sessions left open by a previous process (it crashed) as ended."""
        if self._deferred is not None:
            self._settle()
        return self._db.execute(
            "UPDATE sessions SET ended = ? WHERE ended IS NULL", (now,)
        ).rowcount

    def session(self, session_id: str) -> Session | None:
        row = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return Session(*row) if row else None

    def sessions(self) -> list[Session]:
        return [Session(*r) for r in self._db.execute("SELECT * FROM sessions ORDER BY started")]

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
            f"SELECT {STAT_BLOCK_COLUMNS} FROM stat_blocks WHERE ruleset = ? AND participant = ?",
            (ruleset, participant),
        ).fetchone()
        return StatBlock(*row) if row else None

    def stat_blocks(self, ruleset: str | None = None) -> list[StatBlock]:
        """Every stored block (of ``ruleset``), by ruleset and participant."""
        sql = f"SELECT {STAT_BLOCK_COLUMNS} FROM stat_blocks"
        args: tuple[str, ...] = ()
        if ruleset is not None:
            sql, args = f"{sql} WHERE ruleset = ?", (ruleset,)
        rows = self._db.execute(f"{sql} ORDER BY ruleset, participant", args)
        return [StatBlock(*row) for row in rows]

    def put_stat_block(self, block: StatBlock) -> None:
        """Create or replace a block, inside the open transaction if any (a caller answering
        after it waits for the group commit, as a roll's does)."""
        self._write(
            f"INSERT OR REPLACE INTO stat_blocks ({STAT_BLOCK_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
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
        if self._deferred is not None:
            self._settle()
        return self._db.execute(sql, args).fetchall()

    # --- players ---

    def player(self, name: str) -> Player | None:
        row = self._db.execute(f"SELECT {PLAYER_COLUMNS} FROM players WHERE name = ?", (name,))
        found = row.fetchone()
        return Player.from_row(found) if found else None

    def player_by_hash(self, token_hash: str) -> Player | None:
        row = self._db.execute(
            f"SELECT {PLAYER_COLUMNS} FROM players WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return Player.from_row(row) if row else None

    def players(self) -> list[Player]:
        """Every player record (revoked ones included), by name."""
        rows = self._db.execute(f"SELECT {PLAYER_COLUMNS} FROM players ORDER BY name")
        return [Player.from_row(r) for r in rows]

    def put_player(self, player: Player) -> None:
        """Create or replace a player record (inside the open transaction, if one is open)."""
        if self._deferred is not None:
            self._settle()
        self._db.execute(
            f"INSERT OR REPLACE INTO players ({PLAYER_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
            player.row(),
        )

    def bind_player(self, player: Player) -> None:
        """A GM's bind, in one statement (inside the open transaction, if one is open): the
        stored token and revocation decide, not ``player``'s (see the interface), so a token
        rotated by another process between a read and this write is not written back."""
        if self._deferred is not None:
            self._settle()
        self._db.execute(BIND_PLAYER_SQLITE, (player.name, player.row()[1], player.created))
