"""A host of many worlds' leases (:mod:`arbiter.bridge.hosting`, docs/scaling.md): renewing
them every ``ttl/3``, stopping a world whose lease is lost or ran out, and giving up a world
nobody has used for ``--idle-release`` seconds."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from arbiter.bridge.awaiting_commit import LeaseEnded

if TYPE_CHECKING:
    from arbiter.bridge.hosting import WorldHost
    from arbiter.bridge.server import ArbiterServer

log = logging.getLogger("arbiter.host")


async def renewals(host: WorldHost) -> None:
    """Renew every lease each ``ttl/3``; stop serving the worlds a renewal names lost."""
    owner = host.owner
    assert owner is not None
    period = owner.ttl / 3
    while True:
        try:
            if not owner.leases:
                await asyncio.sleep(period)  # nothing to renew
                continue
            # Bounded: a database that stopped answering must not hold renewals for ever
            # (by then every lease has run out on this host's clock anyway).
            async with asyncio.timeout(owner.ttl):
                lost = await owner.renew()
        except Exception as err:
            # The leases run out on their own deadlines (deadlines) unless the next works.
            log.warning(
                "leases not renewed (%s): worlds stop at their deadline",
                str(err) or type(err).__name__,
            )
            if isinstance(err, TimeoutError):
                await owner.close_renewals()  # cut off mid-statement: connect anew
            lost = []
        for world_id in lost:
            world = host.worlds.get(world_id)
            if world is not None:
                try:
                    world.lose(LeaseEnded(f"world {world_id!r} was claimed by another host"))
                except Exception:
                    # One world's failure must not end the renewals of every other.
                    log.exception("world %r could not be stopped", world_id)
        await asyncio.sleep(period)


async def deadlines(host: WorldHost) -> None:
    """Stop serving each world as soon as its lease is no longer valid by this host's
    clock (a renewal failed, or came too late). The group commit checks the lease too,
    before every flush and every reply: this closes the connections without waiting for
    one."""
    assert host.owner is not None
    period = host.owner.ttl / 3
    loop = asyncio.get_running_loop()
    while True:
        soonest = period
        for world_id, world in tuple(host.worlds.items()):
            lease = world.lease
            if lease is None:
                continue
            try:
                if not lease.valid():
                    world.lose(LeaseEnded(f"the lease on world {world_id!r} ran out"))
                    continue
                soonest = min(soonest, lease.remaining())
                give_up_if_idle(host, world_id, world, loop.time())
            except Exception:
                # One world's failure must not end the deadlines of every other.
                log.exception("world %r could not be stopped or given up", world_id)
        await asyncio.sleep(soonest + 0.005)


def give_up_if_idle(host: WorldHost, world_id: str, world: ArbiterServer, now: float) -> None:
    """Release a world no connection has used for ``hosting.idle_release`` seconds (never
    ``--world``): its store is flushed and closed and another host may claim it at once."""
    after = host.hosting.idle_release
    if after is None or world_id == host.hosting.world or host.active.get(world_id, 0):
        # (--world is this host's own: kept, as it was claimed at start.)
        host.idle_since.pop(world_id, None)
        return
    since = host.idle_since.setdefault(world_id, now)
    if now - since >= after:
        log.info("giving up world %r: no connection for %g s", world_id, now - since)
        host.retire(world)


__all__ = ["deadlines", "give_up_if_idle", "renewals"]
