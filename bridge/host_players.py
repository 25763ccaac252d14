"""A host's one listener of the player records of every world it serves (docs/scaling.md,
"Player records across processes"): :class:`HostPlayers` hands each world the records read
for its id only, and reads a world's once more when it starts being served (a write heard
between its store's load and then was for a world not served yet, and ignored)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arbiter.bridge.records import Player
from arbiter.bridge.stores import postgres_pool
from arbiter.bridge.stores.postgres_pool import PlayerFeed

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

    from arbiter.bridge.server import ArbiterServer

log = logging.getLogger("arbiter.host")


class HostPlayers:
    """The listener (:class:`PlayerFeed`, on a connection of its own) of ``worlds``, the
    host's worlds served now, reading with connections of the host's ``pool``."""

    def __init__(
        self,
        dsn: str,
        application_name: str,
        worlds: Mapping[str, ArbiterServer],
        pool: AsyncConnectionPool[Any],
    ) -> None:
        self.worlds = worlds
        self.feed = PlayerFeed(dsn, application_name, lambda: worlds, self._take, pool.connection)
        self._rereads: set[asyncio.Task[None]] = set()

    def run(self) -> asyncio.Task[None]:
        """Listen until the task is cancelled (:meth:`close`)."""
        return asyncio.create_task(self.feed.run(), name="player-records")

    def served(self, world_id: str) -> None:
        """``world_id`` is served from now on: read its records once more, soon."""
        task = asyncio.create_task(self._reread(world_id), name=f"players {world_id}")
        self._rereads.add(task)
        task.add_done_callback(self._rereads.discard)

    async def close(self) -> None:
        for task in tuple(self._rereads):
            task.cancel()
        await asyncio.gather(*self._rereads, return_exceptions=True)

    async def _reread(self, world_id: str) -> None:
        """Read ``world_id``'s records, retried (doubling the wait, up to
        :data:`~arbiter.bridge.stores.postgres_pool.BACKSTOP`) until it succeeds or the world
        is no longer served: a write heard before the world was served was ignored, and the
        listener, connected all along, would not read it again."""
        delay = postgres_pool.RECONNECT_DELAY
        while world_id in self.worlds:
            try:
                await self.feed.refresh([world_id])
                return
            except Exception as err:
                log.warning(
                    "reading the player records of world %r failed (retried in %.0f s): %s",
                    world_id,
                    delay,
                    err,
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, postgres_pool.BACKSTOP)

    async def _take(self, world_id: str, records: dict[str, Player]) -> None:
        # Read for this world's id only (WHERE world = …), handed to this world only.
        world = self.worlds.get(world_id)
        if world is not None and world.stale is None:
            world.take_players(records)


__all__ = ["HostPlayers"]
