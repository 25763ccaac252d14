"""The PostgreSQL store's copy of one world in memory: :class:`WorldRows` holds the world's rows
as committed (or, as an overlay, the writes staged on top of them); :func:`load_world` reads
them from the database in one snapshot, with the world's epoch and chain head.

The committed copy is bounded: it holds what the synchronous decide path needs (encounters,
sessions, players, stat blocks, the head), the request id of every logged row
(:attr:`WorldRows.ids`, compact: :mod:`arbiter.bridge.stores.request_index`; a resend is
never decided again), and only the most recent rows whole (at most ``limit``; older ones are
read from the database when asked for, off the decide path).
:class:`arbiter.bridge.stores.postgres.PostgresStore` serves every read from these rows and
merges an overlay in (:meth:`WorldRows.merge`) once its flush has committed it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import psycopg

from arbiter.bridge.records import Encounter, NewRoll, Player, Roll, Session
from arbiter.bridge.stores.interface import StatBlock
from arbiter.bridge.stores.postgres_schema import ROLL_COLUMNS
from arbiter.bridge.stores.request_index import RequestIndex


@dataclass
class WorldRows:
    """One world's rows, as committed or as staged on top of that."""

    rolls: list[Roll] = field(default_factory=list)
    by_request: dict[str, Roll] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    encounters: dict[str, Encounter] = field(default_factory=dict)
    players: dict[str, Player] = field(default_factory=dict)
    stat_blocks: dict[tuple[str, str], StatBlock | None] = field(default_factory=dict)
    """``None``: deleted (in an overlay)."""
    ids: RequestIndex = field(default_factory=RequestIndex)
    """The committed copy: every logged request id, the rows not held whole included (an
    overlay holds its rows whole: :attr:`by_request`)."""
    before: int = 0
    """The committed copy: how many rows of the log precede :attr:`rolls` (not held whole)."""
    limit: int | None = None
    """The committed copy: at most this many rows held whole (None: every row)."""
    recalled: dict[str, Roll] = field(default_factory=dict)
    """Rows not held whole that were read back for a resend (a few: cleared when it grows)."""

    def merge(self, staged: WorldRows) -> None:
        """Take in an overlay's writes (its rolls after this one's, a deleted stat block gone);
        the oldest rows beyond :attr:`limit` are no longer held whole (their ids stay)."""
        self.rolls.extend(staged.rolls)
        self.by_request.update(staged.by_request)
        for roll in staged.rolls:
            self.ids.add(roll.entry.request_id)
        if self.limit is not None:
            # A world served for months is never reopened: its newer ids become digests too.
            self.ids.fold_beyond(FOLD_ROWS * max(self.limit, 1))
        self.trim()
        self.sessions.update(staged.sessions)
        self.encounters.update(staged.encounters)
        self.players.update(staged.players)
        for key, block in staged.stat_blocks.items():
            if block is None:
                self.stat_blocks.pop(key, None)
            else:
                self.stat_blocks[key] = block

    def trim(self) -> None:
        """Hold at most :attr:`limit` rows whole: the oldest beyond it are let go."""
        if self.limit is None or len(self.rolls) <= self.limit:
            return
        gone = len(self.rolls) - self.limit
        for roll in self.rolls[:gone]:
            self.by_request.pop(roll.entry.request_id, None)
        del self.rolls[:gone]
        self.before += gone

    def recall(self, roll: Roll) -> None:
        """Hold ``roll``, read back from the database, where :meth:`find`-like reads see it."""
        if len(self.recalled) >= RECALLED:
            self.recalled.clear()
        self.recalled[roll.entry.request_id] = roll


FOLD_ROWS = 4
"""The request index holds at most this many times the cache's rows as strings, then folds
them into its digests (:meth:`RequestIndex.fold_beyond`)."""

RECALLED = 256
"""At most this many rows read back for resends are held (then they are let go at once)."""

INDEX_BATCH = 10_000
"""Request ids read per round trip when the index is loaded (a server-side cursor)."""


def roll_of(row: tuple[Any, ...]) -> Roll:
    """The :class:`Roll` of a ``rolls`` row read as ``SELECT {ROLL_COLUMNS}``."""
    return Roll(row[0], NewRoll(*row[1:15]), row[15], row[16])


async def load_world(
    conn: psycopg.AsyncConnection[Any], world_id: str, limit: int | None = None
) -> tuple[WorldRows, int, tuple[int, str]]:
    """The world's committed rows, its epoch and its head, read in one snapshot (so the
    head and the rows it heads agree): every request id with its seq, and the last ``limit``
    rows whole (None: every row)."""
    world = WorldRows(limit=limit)
    async with conn.transaction(), conn.cursor() as cur:
        await cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        await cur.execute(
            "SELECT epoch, head_seq, head_hash FROM worlds WHERE id = %s", (world_id,)
        )
        epoch, seq, digest = _one(await cur.fetchone())
        world.before = 0 if limit is None else max(0, seq - limit)
        if world.before:
            # The index of every older row: its request id only, read in batches from a
            # server-side cursor and kept as digests.
            async with conn.cursor(name="arbiter_request_ids") as ids:
                await ids.execute(
                    "SELECT request_id FROM rolls WHERE world = %s AND seq <= %s",
                    (world_id, world.before),
                )
                while batch := await ids.fetchmany(INDEX_BATCH):
                    world.ids.load(row[0] for row in batch)
            world.ids.seal()
            if world.ids.loaded != world.before:
                raise RuntimeError(f"world {world_id!r}: rows 1 to {world.before} have gaps")
        await cur.execute(
            f"SELECT {ROLL_COLUMNS} FROM rolls WHERE world = %s AND seq > %s ORDER BY seq",
            (world_id, world.before),
        )
        for row in await cur.fetchall():
            roll = roll_of(row)
            world.rolls.append(roll)
            world.by_request[roll.entry.request_id] = roll
            world.ids.add(roll.entry.request_id)
        await cur.execute(
            'SELECT id, seed, commitment, "user", client, started, ended FROM sessions '
            "WHERE world = %s",
            (world_id,),
        )
        world.sessions = {r[0]: Session(*r) for r in await cur.fetchall()}
        await cur.execute(
            "SELECT id, ruleset, state, seq FROM encounters WHERE world = %s", (world_id,)
        )
        for eid, ruleset, state, eseq in await cur.fetchall():
            world.encounters[eid] = Encounter(
                eid, ruleset, json.loads(state) if state else None, eseq
            )
        await cur.execute(
            "SELECT name, participants, token_hash, created, revoked FROM players WHERE world = %s",
            (world_id,),
        )
        world.players = {r[0]: Player.from_row(r) for r in await cur.fetchall()}
        await cur.execute(
            "SELECT ruleset, participant, block, actor, updated FROM stat_blocks WHERE world = %s",
            (world_id,),
        )
        world.stat_blocks = {(r[0], r[1]): StatBlock(*r) for r in await cur.fetchall()}
    if (world.rolls[-1].seq if world.rolls else world.before) != seq:
        raise RuntimeError(f"world {world_id!r}: its head is row {seq}, its log says not")
    return world, epoch, (seq, digest)


def _one(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    if row is None:
        raise RuntimeError("the world's row is missing")
    return row


__all__ = ["RECALLED", "WorldRows", "load_world", "roll_of"]
