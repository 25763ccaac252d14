"""The PostgreSQL store's copy of one world in memory: :class:`WorldRows` holds the world's rows
as committed (or, as an overlay, the writes staged on top of them); :func:`load_world` reads
them from the database in one snapshot, with the world's epoch and chain head.

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

    def merge(self, staged: WorldRows) -> None:
        """Take in an overlay's writes (its rolls after this one's, a deleted stat block gone)."""
        self.rolls.extend(staged.rolls)
        self.by_request.update(staged.by_request)
        self.sessions.update(staged.sessions)
        self.encounters.update(staged.encounters)
        self.players.update(staged.players)
        for key, block in staged.stat_blocks.items():
            if block is None:
                self.stat_blocks.pop(key, None)
            else:
                self.stat_blocks[key] = block


async def load_world(
    conn: psycopg.AsyncConnection[Any], world_id: str
) -> tuple[WorldRows, int, tuple[int, str]]:
    """The world's committed rows, its epoch and its head, read in one snapshot (so the
    head and the rows it heads agree)."""
    world = WorldRows()
    async with conn.transaction(), conn.cursor() as cur:
        await cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        await cur.execute(
            "SELECT epoch, head_seq, head_hash FROM worlds WHERE id = %s", (world_id,)
        )
        epoch, seq, digest = _one(await cur.fetchone())
        await cur.execute(
            f"SELECT {ROLL_COLUMNS} FROM rolls WHERE world = %s ORDER BY seq", (world_id,)
        )
        for row in await cur.fetchall():
            roll = Roll(row[0], NewRoll(*row[1:15]), row[15], row[16])
            world.rolls.append(roll)
            world.by_request[roll.entry.request_id] = roll
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
    if (world.rolls[-1].seq if world.rolls else 0) != seq:
        raise RuntimeError(f"world {world_id!r}: its head is row {seq}, its log says not")
    return world, epoch, (seq, digest)


def _one(row: tuple[Any, ...] | None) -> tuple[Any, ...]:
    if row is None:
        raise RuntimeError("the world's row is missing")
    return row


__all__ = ["WorldRows", "load_world"]
