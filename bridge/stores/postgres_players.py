"""``arbiter token --player`` on a world in PostgreSQL: player records written from another
process than the world's server, which hears them (docs/scaling.md, "Player records across
processes").

:func:`edit_players` reads the world's records and hands them to a change (the same functions
that edit a SQLite world's, :mod:`arbiter.bridge.players`, through :class:`PlayerEdit`), then
writes what it put and notifies :data:`~arbiter.bridge.stores.postgres_schema.PLAYERS_CHANNEL`
with the world's id, in one transaction: the notification is delivered on commit, to the host
serving the world (:class:`arbiter.bridge.stores.postgres_pool.PlayerFeed`), which re-reads the
world's records and applies them to its live connections.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import psycopg

from arbiter.bridge.records import Player
from arbiter.bridge.stores.postgres_pool import read_players
from arbiter.bridge.stores.postgres_schema import (
    NOTIFY_PLAYERS,
    PUT_PLAYER,
    SCHEMA_VERSION,
    SchemaMismatch,
    schema_version,
)

T = TypeVar("T")


class PlayerEdit:
    """A world's player records, as read in the edit's transaction, and the records put."""

    def __init__(self, records: dict[str, Player]) -> None:
        self.records = dict(records)
        self.put: list[Player] = []

    def player(self, name: str) -> Player | None:
        return self.records.get(name)

    def player_by_hash(self, token_hash: str) -> Player | None:
        for found in self.records.values():
            if found.token_hash == token_hash:
                return found
        return None

    def players(self) -> list[Player]:
        return sorted(self.records.values(), key=lambda p: p.name)

    def put_player(self, player: Player) -> None:
        self.records[player.name] = player
        self.put.append(player)


async def edit_players(dsn: str, world: str, change: Callable[[PlayerEdit], T]) -> T:
    """Run ``change`` on ``world``'s player records and commit what it put, notifying the
    world's server, in one transaction; one edit of a world's records at a time. Whatever
    ``change`` raises rolls it back. Creates and migrates nothing: raises
    :class:`~arbiter.bridge.stores.postgres_schema.SchemaMismatch` when the database's schema
    is not this arbiter's, and LookupError when it holds no world ``world`` (a mistyped
    ``--world`` must not make one: a world is made by its server's first start, or by
    ``arbiter token --store … --world ID``, which prints its secret)."""
    async with await psycopg.AsyncConnection.connect(
        dsn, autocommit=True, application_name="arbiter token"
    ) as conn:
        version = await schema_version(conn)
        if version != SCHEMA_VERSION:
            raise SchemaMismatch(version)
        async with conn.transaction():
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('arbiter players'), hashtext(%s))",
                (world,),
            )
            found = await conn.execute("SELECT 1 FROM worlds WHERE id = %s", (world,))
            if await found.fetchone() is None:
                raise LookupError(
                    f"no world {world!r} in this database (a world is made by its server's "
                    f"first start, or by `arbiter token --store URL --world {world}`, which "
                    "prints its secret)"
                )
            edit = PlayerEdit((await read_players(conn, [world]))[world])
            result = change(edit)
            for player in edit.put:
                await conn.execute(PUT_PLAYER, (world, *player.row()))
            if edit.put:
                await conn.execute(NOTIFY_PLAYERS, (world,))
    return result


__all__ = ["PlayerEdit", "edit_players"]
