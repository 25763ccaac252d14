"""The worlds a host serves (:class:`HostWorlds`, a part of :class:`arbiter.bridge.hosting.WorldHost`):
claimed and opened on a first connection, retired when lost or idle.

:meth:`HostWorlds.world` claims a world the host does not serve (one claim at a time per world,
shielded from the connections that wait on it): claimed, its rules are loaded, its store opened
under the claim's epoch and its server begun; owned by another host, :class:`Owned` says whose.
A failure releases the claim. :meth:`HostWorlds.retire` closes a world lost (stale writer, lease
lost or run out) or idle, flushing what it staged unless lost, then releases it; a claim made
meanwhile waits for that release.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from arbiter.bridge import world_rules
from arbiter.bridge.host_players import HostPlayers
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.server import ArbiterServer
from arbiter.bridge.server_config import Hosting, ServerConfig
from arbiter.bridge.stores.ownership import Host, Owned
from arbiter.bridge.world import OpenWorld

log = logging.getLogger("arbiter.host")


class HostWorlds:
    """Claiming, opening and retiring a host's worlds (the host sets the fields)."""

    config: ServerConfig
    hosting: Hosting
    rules: RulesSnapshot
    world_rules: world_rules.WorldRules
    worlds: dict[str, ArbiterServer]
    owner: Host | None
    players: HostPlayers | None
    idle_since: dict[str, float]
    _opening: dict[str, asyncio.Task[ArbiterServer | Owned]]
    _retiring: dict[str, asyncio.Task[None]]

    async def world(self, world_id: str) -> ArbiterServer | Owned:
        """The world's server, claiming and opening the world if this host does not serve it;
        :class:`Owned` when another host holds it. One claim at a time per world."""
        served = self.worlds.get(world_id)
        if served is not None and served.stale is None:
            return served
        opening = self._opening.get(world_id)
        if opening is None:
            opening = asyncio.create_task(self._open(world_id), name=f"claim {world_id}")
            self._opening[world_id] = opening
            opening.add_done_callback(lambda done: self._opened(world_id, done))
        # Shielded: a connection closing while it waits does not cancel the others' claim.
        return await asyncio.shield(opening)

    def _opened(self, world_id: str, task: asyncio.Task[ArbiterServer | Owned]) -> None:
        if self._opening.get(world_id) is task:
            del self._opening[world_id]
        if not task.cancelled():
            task.exception()  # retrieved: each waiter was given it

    async def _open(self, world_id: str) -> ArbiterServer | Owned:
        retiring = self._retiring.get(world_id)
        if retiring is not None:
            # Its release must not undo the claim made now.
            await asyncio.shield(retiring)
        owner = self.owner
        assert owner is not None, "the host has not started"
        # Rules known not to load here cost no claim (its epoch bump ends the world's sessions
        # elsewhere) and no release: refused before (anyone can send a connection).
        if self.world_rules.unloadable or self.world_rules.failed:  # else no query
            known = self.world_rules.known_unloadable(await self.world_rules.named(world_id))
            if known is not None:
                raise known
        # Only the world the host was started with may be made here: a URL naming any other
        # must not create rows and hold a connection for it (anyone can send one).
        claim = await owner.claim(world_id, create=world_id == self.hosting.world)
        if isinstance(claim, Owned):
            return claim
        rules_hash: str | None = None
        try:
            from arbiter.bridge.stores.postgres_schema import secret_on

            opening = world_rules.open_rules(self.world_rules, world_id, lambda: self.rules)
            rules_hash, rules = await opening
            store = await owner.open_store(claim)
            try:
                pool = await owner.pool()
                async with owner.loads.slot(), pool.connection() as conn:
                    secret = await secret_on(conn, world_id)
                world = ArbiterServer(
                    self.config,
                    OpenWorld(store, secret),
                    # The host's as they are now (hot reload may have swapped them meanwhile).
                    rules=self.rules if rules_hash is None else rules,
                    lease=claim.lease,
                    world_id=world_id,
                )
            except BaseException:
                await store.close()
                raise
            try:
                await world.begin()
            except BaseException:
                with contextlib.suppress(Exception):
                    await store.close()  # its connection, else held for ever
                raise
        except BaseException:
            if rules_hash is not None:
                self.world_rules.release(rules_hash)
            with contextlib.suppress(Exception):
                await owner.release([world_id])
            raise
        world.on_lost = self.retire
        self.worlds[world_id] = world
        self.world_rules.attach(world_id, rules_hash)
        if self.players is not None:
            self.players.served(world_id)
        log.info(
            "serving world %r (epoch %d%s)",
            world_id,
            claim.epoch,
            f", taken from host {claim.previous!r}" if claim.previous is not None else "",
        )
        return world

    def retire(self, world: ArbiterServer) -> None:
        """A world lost (stale writer, lease lost or run out) or idle: close it (flushing what
        it staged unless lost), then give it up."""
        world_id = world.world_id
        assert world_id is not None
        self.idle_since.pop(world_id, None)
        if self.worlds.get(world_id) is world:
            del self.worlds[world_id]
            self.world_rules.detach(world_id)
        task = asyncio.get_running_loop().create_task(
            self._close_world(world_id, world), name=f"retire {world_id}"
        )
        self._retiring[world_id] = task
        task.add_done_callback(lambda done: self._retired(world_id, done))

    def _retired(self, world_id: str, task: asyncio.Task[None]) -> None:
        if self._retiring.get(world_id) is task:
            del self._retiring[world_id]

    async def _close_world(self, world_id: str, world: ArbiterServer) -> None:
        try:
            await world.close()
        except Exception:
            log.exception("closing world %r failed", world_id)
        if self.owner is not None:
            try:
                # A no-op when another host owns it now; else another may claim it at once.
                await self.owner.release([world_id])
            except Exception as err:
                log.warning("could not release world %r (its lease runs out): %s", world_id, err)


__all__ = ["HostWorlds"]
