"""The SQLite store's schema and statement texts (:class:`arbiter.bridge.store.Store` runs them),
and a ``rolls`` row read back as a :class:`~arbiter.bridge.records.Roll`.

* ``rolls`` — the append-only roll log. One row per decided request: the request, every die it
  recorded, the outcome, the rules hash, the user, the time, and a hash chained to the previous
  row (SHA-256 of the previous hash and the row's fields, see
  :func:`arbiter.bridge.records.row_hash`). Triggers refuse UPDATE and DELETE. ``request_id`` is
  unique: it is the idempotency key. ``player`` is the player record a row was decided for
  (null: the GM's own, or a row of schema 1), whose the row is when a player resends its id;
  ``user`` is text for people.
* ``sessions`` — one per authenticated connection: its dice seed and the seed's commitment.
  Rows record the keyed-dice ``counter`` they started at, so a revealed seed re-derives each roll.
* ``encounters`` — the current state of every encounter, written in the same transaction as the
  row that changed it (a trigger on ``rolls`` moves it).
* ``players`` — who may connect as a player and the participants he holds (``bridge/players.py``):
  the SHA-256 of his token, never the token.
* ``stat_blocks`` — the GM's stat blocks, which only the GM reads (``bridge/stat_block_vault.py``).
* ``meta`` — the schema's version (:data:`SCHEMA_VERSION`).
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.records import NewRoll, Roll

PAGE_SIZE = 2048
"""The page size of a store created new (SQLite's default is 4096; a store already created keeps
its own, which SQLite reads from the file).

A logged row (a combat-styles exchange with its stat blocks: about 2.2 kB) is more than half a
4 kB page, so every row took a page of its own, half empty, and every group commit wrote the
whole partly filled pages again to the WAL: the new rows' leaves, the ``request_id`` index leaf,
the table's interior page and the header page. With 2 kB pages a row keeps a few hundred bytes
in its leaf and the rest in overflow pages written once, full, and the pages rewritten by every
commit are half as large: about a third fewer bytes written per row, to the WAL and to the
database file (``benchmarks/bridge_syscalls.py``, 10 connections: 10.1 kB written per request
before, 6.6 kB after). The format is SQLite's, whatever the page size: an older arbiter reads such a store."""

SCHEMA_VERSION = "2"
"""2 added ``rolls.player`` (whose a row is, :attr:`~arbiter.bridge.records.NewRoll.player`); a
store of schema 1 is brought to 2 when opened to write (:data:`MIGRATE_1`), its rows keeping no
player (their hashes unchanged)."""
MIGRATE_1 = "ALTER TABLE rolls ADD COLUMN player TEXT"
"""Schema 1 to 2: the ``player`` column, null in every row already logged."""

SCHEMA = """
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
  hash TEXT NOT NULL,
  player TEXT
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


ROLL_COLUMNS = (
    "seq, request_id, session, user, ruleset, type, encounter, rules_hash, request, dice, "
    "outcome, counter, scripted, time, player, prev_hash, hash"
)
ROLL_COLUMNS_1 = ROLL_COLUMNS.replace("player", "NULL AS player")
"""The columns as a store of schema 1 (opened read-only, so not migrated) gives them."""

INSERT_ROLL = (
    f"INSERT INTO rolls ({ROLL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _insert_roll(encounter: bool, counter: bool, player: bool) -> str:
    # INSERT_ROLL with the SQL literal NULL in place of each column named False.
    marks = ["?"] * 17
    for column, bound in ((6, encounter), (11, counter), (14, player)):
        if not bound:
            marks[column] = "NULL"
    return f"INSERT INTO rolls ({ROLL_COLUMNS}) VALUES ({', '.join(marks)})"


INSERT_ROLL_NULLS: dict[tuple[bool, bool, bool], str] = {
    (e, c, p): _insert_roll(e, c, p)
    for e in (False, True)
    for c in (False, True)
    for p in (False, True)
}
""":data:`INSERT_ROLL` by which of ``encounter``, ``counter`` and ``player`` are bound (True) or
written as the literal NULL (False: the value is None, and is left out of the parameters).
Python's sqlite3 binds None through its adapter lookup (a ``__conform__`` attribute looked up
and its AttributeError raised and cleared, per None per row); most rows have two (no encounter,
the GM's own): the literal costs nothing. The same row is stored either way."""
INSERT_USUAL = INSERT_ROLL_NULLS[False, True, False]
"""The statement of the usual row: no encounter, keyed dice (a counter), the GM's own."""


def insert_roll(
    seq: int, roll: NewRoll, prev_hash: str, digest: str
) -> tuple[str, tuple[Any, ...]]:
    """The statement (of :data:`INSERT_ROLL_NULLS`) and parameters that log ``roll`` as row
    ``seq``, chained to ``prev_hash`` with ``digest``: ``scripted`` as the 0 or 1 it is stored
    as, and each None of ``encounter``, ``counter`` and ``player`` left to the statement's
    literal NULL."""
    encounter, counter, player = roll.encounter, roll.counter, roll.player
    has = (encounter is not None, counter is not None, player is not None)
    args = (
        seq,
        *roll[:5],
        *((encounter,) if has[0] else ()),
        *roll[6:10],
        *((counter,) if has[1] else ()),
        int(roll.scripted),
        roll.time,
        *((player,) if has[2] else ()),
        prev_hash,
        digest,
    )
    return INSERT_ROLL_NULLS[has], args


PLAYER_COLUMNS = "name, participants, token_hash, created, revoked"
BIND_PLAYER_SQLITE = (
    f"INSERT INTO players ({PLAYER_COLUMNS}) VALUES (?, ?, NULL, ?, NULL) "
    "ON CONFLICT (name) DO UPDATE SET participants = excluded.participants, "
    "token_hash = CASE WHEN players.revoked IS NULL THEN players.token_hash END, revoked = NULL"
)
"""A GM's ``bind`` in one statement: the stored token and revocation decide (``arbiter token``
writes the same file from another process, between a read and a write of the server's)."""
STAT_BLOCK_COLUMNS = "ruleset, participant, block, actor, updated"
PROBE_ROLL = "SELECT seq FROM rolls WHERE request_id = ?"
"""The idempotency probe: one column, because Python's sqlite3 builds a cursor's description (a
tuple per result column) on every execute, which for the whole row cost as much as the probe."""
ROLL_AT = f"SELECT {ROLL_COLUMNS} FROM rolls WHERE seq = ?"
# One statement text each (built once, not per call), so sqlite3's statement cache prepares
# each once.


def decode_roll(row: tuple[Any, ...]) -> Roll:
    """The row of a ``SELECT {ROLL_COLUMNS}``, as the :class:`Roll` it stores."""
    # Columns in ROLL_COLUMNS order: seq, the 14 fields of NewRoll (scripted stored as 0/1),
    # prev_hash, hash. Each field by its index (not a starred slice, whose length mypy cannot
    # count): faster too.
    entry = NewRoll(
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        row[11],
        bool(row[12]),
        row[13],
        row[14],
    )
    return Roll(row[0], entry, row[15], row[16])


__all__ = [
    "BIND_PLAYER_SQLITE",
    "INSERT_ROLL",
    "INSERT_ROLL_NULLS",
    "INSERT_USUAL",
    "MIGRATE_1",
    "PAGE_SIZE",
    "PLAYER_COLUMNS",
    "PROBE_ROLL",
    "ROLL_AT",
    "ROLL_COLUMNS",
    "ROLL_COLUMNS_1",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STAT_BLOCK_COLUMNS",
    "decode_roll",
    "insert_roll",
]
