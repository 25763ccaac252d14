"""The PostgreSQL store's schema and statement texts
(:class:`arbiter.bridge.stores.postgres.PostgresStore` runs them), and :func:`install`, which
creates the schema and a world's row.

Every table is keyed by its world (``rolls`` by ``(world, seq)``, unique on ``(world,
request_id)``); a ``worlds`` row holds each world's chain head, its ownership ``epoch`` and
its owner's lease (:mod:`arbiter.bridge.stores.ownership`);
``arbiter_meta`` the schema's version (:data:`SCHEMA_VERSION`). docs/scaling.md describes it.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from arbiter.bridge.records import GENESIS

if TYPE_CHECKING:
    import psycopg

SCHEMA_VERSION = "3"
"""2 added ``rolls.player`` (as the SQLite store's schema 2 did) and the owner's lease on
``worlds``; 3 added ``rule_sets`` (published rule sources, once per hash) and ``worlds.rules``
(the rules a world is served with; null: the host's). A database of schema 1 or 2 is brought to
3 by :func:`install`, its rows keeping no player (their hashes unchanged), its worlds no owner
and no rules of their own."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS arbiter_meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS rule_sets (
  hash text PRIMARY KEY,
  sources text NOT NULL,
  published double precision NOT NULL
);
CREATE TABLE IF NOT EXISTS worlds (
  id text PRIMARY KEY,
  epoch bigint NOT NULL DEFAULT 0,
  head_seq bigint NOT NULL DEFAULT 0,
  head_hash text NOT NULL,
  owner text,
  owner_token text,
  owner_url text,
  lease_until timestamptz,
  rules text REFERENCES rule_sets (hash)
);
CREATE INDEX IF NOT EXISTS worlds_owner_token ON worlds (owner_token);
CREATE OR REPLACE FUNCTION arbiter_advance_head(
  w text, e bigint, old_seq bigint, old_hash text, new_seq bigint, new_hash text
) RETURNS void LANGUAGE plpgsql AS $$ BEGIN
  UPDATE worlds SET head_seq = new_seq, head_hash = new_hash
    WHERE id = w AND epoch = e AND head_seq = old_seq AND head_hash = old_hash;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'world % moved under this writer', w USING ERRCODE = 'AR001';
  END IF;
END $$;
CREATE TABLE IF NOT EXISTS sessions (
  world text NOT NULL REFERENCES worlds (id),
  id text NOT NULL,
  seed text NOT NULL,
  commitment text NOT NULL,
  "user" text NOT NULL,
  client text NOT NULL,
  started double precision NOT NULL,
  ended double precision,
  PRIMARY KEY (world, id)
);
CREATE TABLE IF NOT EXISTS rolls (
  world text NOT NULL REFERENCES worlds (id),
  seq bigint NOT NULL,
  request_id text NOT NULL,
  session text NOT NULL,
  "user" text NOT NULL,
  ruleset text NOT NULL,
  type text NOT NULL,
  encounter text,
  rules_hash text NOT NULL,
  request text NOT NULL,
  dice text NOT NULL,
  outcome text NOT NULL,
  counter bigint,
  scripted boolean NOT NULL,
  time double precision NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  player text,
  PRIMARY KEY (world, seq),
  UNIQUE (world, request_id)
);
CREATE OR REPLACE FUNCTION arbiter_rolls_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the roll log is append-only'; END $$;
CREATE OR REPLACE TRIGGER rolls_append_only BEFORE UPDATE OR DELETE ON rolls
  FOR EACH ROW EXECUTE FUNCTION arbiter_rolls_append_only();
CREATE TABLE IF NOT EXISTS encounters (
  world text NOT NULL REFERENCES worlds (id),
  id text NOT NULL,
  ruleset text NOT NULL,
  state text,
  seq bigint,
  PRIMARY KEY (world, id)
);
CREATE TABLE IF NOT EXISTS players (
  world text NOT NULL REFERENCES worlds (id),
  name text NOT NULL,
  participants text NOT NULL,
  token_hash text,
  created double precision NOT NULL,
  revoked double precision,
  PRIMARY KEY (world, name),
  UNIQUE (world, token_hash)
);
CREATE TABLE IF NOT EXISTS stat_blocks (
  world text NOT NULL REFERENCES worlds (id),
  ruleset text NOT NULL,
  participant text NOT NULL,
  block text NOT NULL,
  actor text,
  updated double precision NOT NULL,
  PRIMARY KEY (world, ruleset, participant)
);
CREATE TABLE IF NOT EXISTS world_secrets (
  world text PRIMARY KEY REFERENCES worlds (id),
  secret text NOT NULL
);
"""

ROLL_COLUMNS = (
    'seq, request_id, session, "user", ruleset, type, encounter, rules_hash, request, dice, '
    "outcome, counter, scripted, time, player, prev_hash, hash"
)
INSERT_ROLL = (
    f"INSERT INTO rolls (world, {ROLL_COLUMNS}) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
# The SQLite store's trigger, as a statement: a state that is null leaves the stored one.
MOVE_ENCOUNTER = (
    "INSERT INTO encounters (world, id, ruleset, state, seq) VALUES (%s, %s, %s, %s, %s) "
    "ON CONFLICT (world, id) DO UPDATE SET state = excluded.state, seq = excluded.seq "
    "WHERE excluded.state IS NOT NULL"
)
PUT_SESSION = (
    'INSERT INTO sessions (world, id, seed, commitment, "user", client, started, ended) '
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
)
END_SESSION = "UPDATE sessions SET ended = %s WHERE world = %s AND id = %s AND ended IS NULL"
PUT_PLAYER = (
    "INSERT INTO players AS p (world, name, participants, token_hash, created, revoked) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (world, name) DO UPDATE SET "
    "participants = excluded.participants, "
    "token_hash = CASE WHEN p.revoked IS NOT NULL AND excluded.revoked IS NULL "
    "AND excluded.token_hash = p.token_hash THEN NULL ELSE excluded.token_hash END, "
    "created = excluded.created, revoked = excluded.revoked"
)
"""A record made active again with the very token that was revoked keeps no token: its writer
had not heard of the revocation (``arbiter token --revoke`` writes from another process, and a
GM's ``bind`` may be decided on the record before it), and a revoked token stays void, as
``bind`` does for a revocation it knows of (:func:`arbiter.bridge.players.bind`)."""
BIND_PLAYER = (
    "INSERT INTO players AS p (world, name, participants, token_hash, created, revoked) "
    "VALUES (%s, %s, %s, NULL, %s, NULL) ON CONFLICT (world, name) DO UPDATE SET "
    "participants = excluded.participants, "
    "token_hash = CASE WHEN p.revoked IS NULL THEN p.token_hash END, revoked = NULL"
)
"""A GM's ``bind`` (:func:`arbiter.bridge.players.bind`): a new record without a token, or the
stored one with the new participants, keeping its stored token if active and made active again
without one if revoked. It never writes a token or revocation of its own: it is decided on the
host's cached record, which ``arbiter token --rotate`` / ``--revoke`` (another process) may
have changed since, and writing those back would revive a rotated-out token."""
PLAYERS_CHANNEL = "arbiter_players"
"""The channel a write of ``players`` notifies, its payload the world id: a host listens on
it (:mod:`arbiter.bridge.stores.postgres_pool`) and re-reads that world's records."""
NOTIFY_PLAYERS = f"SELECT pg_notify('{PLAYERS_CHANNEL}', %s)"
READ_PLAYERS = (
    "SELECT world, name, participants, token_hash, created, revoked FROM players "
    "WHERE world = ANY(%s)"
)
PUT_STAT_BLOCK = (
    "INSERT INTO stat_blocks (world, ruleset, participant, block, actor, updated) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (world, ruleset, participant) DO UPDATE SET "
    "block = excluded.block, actor = excluded.actor, updated = excluded.updated"
)
DELETE_STAT_BLOCK = "DELETE FROM stat_blocks WHERE world = %s AND ruleset = %s AND participant = %s"
ADVANCE_HEAD = "SELECT arbiter_advance_head(%s, %s, %s, %s, %s, %s)"
"""The compare-and-append: first in the transaction, so it also locks the world's row until
COMMIT (a second writer waits, then finds the head moved). It raises (:data:`STALE_SQLSTATE`)
in the server when the world moved, so the transaction is aborted there, before its inserts:
a stale writer holds no lock nor unique entry while its client catches up, and the client
reads no result before COMMIT."""
STALE_SQLSTATE = "AR001"
FROM_SCHEMA_1 = """
ALTER TABLE rolls ADD COLUMN IF NOT EXISTS player text;
ALTER TABLE worlds ADD COLUMN IF NOT EXISTS owner text,
  ADD COLUMN IF NOT EXISTS owner_token text,
  ADD COLUMN IF NOT EXISTS owner_url text,
  ADD COLUMN IF NOT EXISTS lease_until timestamptz;
"""
"""What schema 1 lacks of 2 (the rest comes from :data:`SCHEMA`, which creates only what is missing)."""
FROM_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS rule_sets (
  hash text PRIMARY KEY,
  sources text NOT NULL,
  published double precision NOT NULL
);
ALTER TABLE worlds ADD COLUMN IF NOT EXISTS rules text REFERENCES rule_sets (hash);
"""
"""What schema 2 lacks of 3: a world's own rules (:mod:`arbiter.bridge.stores.postgres_rules`)."""
MIGRATIONS = {"1": FROM_SCHEMA_1 + FROM_SCHEMA_2, "2": FROM_SCHEMA_2}
"""The statements bringing each older schema to :data:`SCHEMA_VERSION`."""
ROLL_KEYS = ("rolls_pkey", "rolls_world_request_id_key")
"""PostgreSQL's default names of the (world, seq) and (world, request_id) constraints."""


class SchemaMismatch(RuntimeError):
    """The database holds another version of the store schema than this arbiter reads (or,
    for a command that creates nothing, none or an older one)."""

    def __init__(self, found: str | None) -> None:
        self.found = found
        what = "no arbiter schema" if found is None else f"store schema {found}"
        super().__init__(f"the database has {what}, this arbiter reads {SCHEMA_VERSION}")


async def schema_version(conn: psycopg.AsyncConnection[Any]) -> str | None:
    """The store schema's version the database records (None: no schema yet); creates and
    migrates nothing."""
    return await _schema_version(conn)


async def install(conn: psycopg.AsyncConnection[Any], world: str | None) -> None:
    """Create the schema if missing (raising RuntimeError when the database holds another
    version of it) and the world's row if missing (none for ``world`` None); a database of an
    older schema (:data:`MIGRATIONS`) is brought to this one.

    Neither waits for a group commit in flight: the schema's statements (``CREATE TRIGGER``
    locks ``rolls``) run only when the schema is not there yet (or is 1), and the world's row is
    inserted only when it is not seen (``ON CONFLICT`` alone would wait for the transaction
    holding an existing row). A store opened or a world claimed while another host's commit is
    stopped half-way therefore does not stop with it."""
    version = await _schema_version(conn)
    if version is None or version in MIGRATIONS:
        async with conn.transaction():
            # One creator at a time: concurrent CREATE ... IF NOT EXISTS can still collide.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('arbiter schema'))")
            older = await _schema_version(conn)
            if older is not None and older in MIGRATIONS:
                await conn.execute(MIGRATIONS[older])
                await conn.execute(
                    "UPDATE arbiter_meta SET value = %s WHERE key = 'schema'", (SCHEMA_VERSION,)
                )
            await conn.execute(SCHEMA)
            await conn.execute(
                "INSERT INTO arbiter_meta VALUES ('schema', %s) ON CONFLICT DO NOTHING",
                (SCHEMA_VERSION,),
            )
        version = await _schema_version(conn)
    if version != SCHEMA_VERSION:
        raise SchemaMismatch(version)
    if world is None:
        return
    await conn.execute(
        "INSERT INTO worlds (id, head_hash) SELECT %s, %s "
        "WHERE NOT EXISTS (SELECT 1 FROM worlds WHERE id = %s) ON CONFLICT DO NOTHING",
        (world, GENESIS, world),
    )


async def _schema_version(conn: psycopg.AsyncConnection[Any]) -> str | None:
    """The version ``arbiter_meta`` records (None: no schema yet)."""
    exists = await (await conn.execute("SELECT to_regclass('arbiter_meta') IS NOT NULL")).fetchone()
    if exists is None or not exists[0]:
        return None
    row = await (
        await conn.execute("SELECT value FROM arbiter_meta WHERE key = 'schema'")
    ).fetchone()
    return None if row is None else str(row[0])


async def world_secret(dsn: str, world: str) -> str:
    """The world's secret (a GM connection's hello carries it), made on first use: what
    ``world.secret`` is in a data directory. Needs the schema and the world's row."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        return await secret_on(conn, world)


async def secret_on(conn: psycopg.AsyncConnection[Any], world: str) -> str:
    """:func:`world_secret` on a connection the caller has (a host's pool)."""
    await conn.execute(
        "INSERT INTO world_secrets (world, secret) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (world, secrets.token_urlsafe(32)),
    )
    found = await conn.execute("SELECT secret FROM world_secrets WHERE world = %s", (world,))
    row = await found.fetchone()
    if row is None:
        raise RuntimeError(f"world {world!r} has no secret")
    return str(row[0])


__all__ = [
    "ADVANCE_HEAD",
    "BIND_PLAYER",
    "DELETE_STAT_BLOCK",
    "END_SESSION",
    "INSERT_ROLL",
    "MIGRATIONS",
    "MOVE_ENCOUNTER",
    "NOTIFY_PLAYERS",
    "PLAYERS_CHANNEL",
    "PUT_PLAYER",
    "PUT_SESSION",
    "PUT_STAT_BLOCK",
    "READ_PLAYERS",
    "ROLL_COLUMNS",
    "ROLL_KEYS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "STALE_SQLSTATE",
    "SchemaMismatch",
    "install",
    "schema_version",
    "secret_on",
    "world_secret",
]
