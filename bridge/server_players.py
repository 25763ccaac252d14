"""A world's player records followed while it is served (:class:`PlayerRecords`, a part of
:class:`arbiter.bridge.server.ArbiterServer`).

``arbiter token`` writes the records from another process: SQLite's are read every
``players_interval`` seconds, a PostgreSQL world alone in its process listens for their writes,
and a world of a host of many is told by the host's one listener. A change is applied to live
connections: a revoked player's (or one whose token was rotated) is closed with 4003, the others
get their current participants.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from arbiter.bridge.server_config import ServerConfig
from arbiter.bridge.session import CLOSE_REVOKED
from arbiter.bridge.store import Player
from arbiter.bridge.stores import WorldStore
from arbiter.bridge.views import NOBODY
from arbiter.bridge.world import OpenWorld

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession
    from arbiter.bridge.stores.ownership import Lease
    from arbiter.bridge.stores.postgres_pool import PlayerFeed

log = logging.getLogger("arbiter.server")


class PlayerRecords:
    """Following a world's player records (the server sets the fields and owns the rest)."""

    config: ServerConfig
    world: OpenWorld
    store: WorldStore
    lease: Lease | None
    clients: set[ClientSession]
    player_feed: PlayerFeed | None
    _players: dict[str, Player]

    # The server's: a client leaves; run a close without waiting for it.
    leave: Callable[[ClientSession], None]
    _close_later: Callable[[Coroutine[Any, Any, None]], None]

    def _player_records(self) -> asyncio.Task[None] | None:
        """Start following the player records another process writes: SQLite's are read every
        ``players_interval`` seconds; a PostgreSQL world alone in its process listens for
        their writes (:class:`~arbiter.bridge.stores.postgres_pool.PlayerFeed`); a world of a
        host of many is told by the host's one listener (:meth:`take_players`): None."""
        if self.world.checkpointer is not None:
            return asyncio.create_task(self._watch_players(), name="player-records")
        if self.lease is not None:
            return None
        from arbiter.bridge.stores.postgres import PostgresStore
        from arbiter.bridge.stores.postgres_pool import PlayerFeed

        store = self.store
        if not isinstance(store, PostgresStore):
            return asyncio.create_task(self._watch_players(), name="player-records")
        self.player_feed = PlayerFeed(
            store.dsn, "arbiter", lambda: (store.world,), self._take_players, store.connection
        )
        return asyncio.create_task(self.player_feed.run(), name="player-records")

    async def _take_players(self, world: str, records: dict[str, Player]) -> None:
        self.take_players(records)

    def take_players(self, records: dict[str, Player]) -> None:
        """The world's player records, read anew by a listener: taken into the store, and
        applied to live connections (:meth:`players_changed`)."""
        take = getattr(self.store, "take_players", None)
        if take is not None:
            take(records)
        self.players_changed()

    async def _watch_players(self) -> None:
        """Apply changes of the player records (``arbiter token`` writes them from another
        process) to live connections, every ``players_interval`` seconds."""
        while True:
            await asyncio.sleep(self.config.players_interval)
            try:
                self.players_changed()
            except Exception:
                log.exception("reading the player records failed (will retry)")

    def players_changed(self) -> None:
        """Read the player records; close the connections of a player revoked (or whose token
        was rotated) with 4003, and give the others their current participants."""
        current = {p.name: p for p in self.store.players()}
        if current == self._players:
            return
        self._players = current
        for client in tuple(self.clients):
            name = client.viewer.player
            if name is None or client.token_hash is None:
                continue
            record = current.get(name)
            if record is None or not record.active or record.token_hash != client.token_hash:
                # It acts for nobody from now on (a message already in flight is refused), and
                # hears no more events; then it is closed.
                client.viewer = NOBODY
                self.leave(client)
                self._close_later(client.ws.close(CLOSE_REVOKED, "credential revoked"))
            elif frozenset(record.participants) != client.viewer.participants:
                client.bind_player(record)


__all__ = ["PlayerRecords"]
