"""A host of many worlds: ``arbiter serve --store postgresql://… --host-id ID``.

:class:`WorldHost` is the process's part: the listening socket, the HTTP routes, the rules
(its ``--rules``, one snapshot shared by every world naming no rules of its own; and one
snapshot per published rules hash, shared by the worlds naming it:
:mod:`arbiter.bridge.world_rules`), the module, and its claims on worlds
(:class:`arbiter.bridge.stores.ownership.Host`). Each world it serves is an
:class:`~arbiter.bridge.server.ArbiterServer` that does not listen: its store, secret, vault,
players, sessions, group commit and listeners, fenced by the lease it is served under.

A connection names its world in its path, ``/w/<world id>`` (``--world ID`` also serves that
world at the bare path). The first connection for a world the host does not serve claims it:
claimed, the world's store is opened under the claim's epoch and served; owned by another host
with a live lease, the connection is closed with **4010** ("moved") whose reason names the
owner (:func:`moved_reason`). Leases are renewed every ``ttl/3``; a world whose renewal names it
lost, or whose lease is no longer valid by the host's clock, stops being served at once (its
pending replies go ``unavailable``, its connections are closed with 4009) and is given up;
the next connection for it claims it again or is sent to its owner. A stale writer on one world
retires that world only. A clean shutdown releases every world. See docs/scaling.md.

Claiming, opening and retiring the worlds is :mod:`arbiter.bridge.host_worlds`' part of the
host; this module listens, routes connections to their worlds, swaps the host's rules, and
answers the health route.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from http import HTTPStatus
from typing import Any

import psycopg
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response
from websockets.typing import Origin

from arbiter.bridge import world_rules
from arbiter.bridge.connection import Connection
from arbiter.bridge.host_leases import deadlines, renewals
from arbiter.bridge.host_paths import (
    CLOSE_MOVED,
    CLOSE_TRY_AGAIN,
    check_reason_fits,
    moved_reason,
    world_of,
)
from arbiter.bridge.host_players import HostPlayers
from arbiter.bridge.host_worlds import HostWorlds
from arbiter.bridge.http import ModuleFiles, problem, routes
from arbiter.bridge.reload import RulesWatcher
from arbiter.bridge.rules import RulesSnapshot, snapshot
from arbiter.bridge.server import ArbiterServer
from arbiter.bridge.server_config import Hosting, ServerConfig
from arbiter.bridge.server_support import rebuild_module, server_version, settle_heap
from arbiter.bridge.stores.ownership import Host, Owned, UnknownWorld, host_application_name
from arbiter.compiler.errors import RuleError

log = logging.getLogger("arbiter.host")


class WorldHost(HostWorlds):
    """One process serving many worlds of one PostgreSQL database. Create, ``await start()``,
    ``await close()``."""

    def __init__(self, config: ServerConfig) -> None:
        if config.hosting is None:
            raise ValueError("a WorldHost needs config.hosting (--host-id)")
        self.config = config
        self.hosting: Hosting = config.hosting
        self.rules: RulesSnapshot = snapshot(config.rules.load())
        """The host's rules, served to every world that names none of its own (one snapshot)."""
        self.world_rules = world_rules.WorldRules(
            self.hosting.dsn, config.rules, host_application_name(self.hosting.host_id)
        )
        """The rules worlds publish for themselves: one snapshot per hash, shared."""
        self.module = ModuleFiles(config.module_dir)
        self.worlds: dict[str, ArbiterServer] = {}
        """The worlds served now, by id."""
        self.owner: Host | None = None
        """The host's claims (made once it listens: its URL may be the port it got)."""
        self.moved = 0
        """Connections closed with 4010 (another host owns their world) since start."""
        self.unknown = 0
        """Connections closed with 1008 since start: their URL named a world nobody made."""
        self.lost: asyncio.Event = asyncio.Event()
        """Never set: a host outlives the worlds it loses (``arbiter serve`` waits on it)."""
        self.stale = None
        self._server: Server | None = None
        self._opening: dict[str, asyncio.Task[ArbiterServer | Owned]] = {}
        self._retiring: dict[str, asyncio.Task[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.active: dict[str, int] = {}
        """Connections being served, by world (from before their hello)."""
        self.idle_since: dict[str, float] = {}
        """When each world served with no connection was first seen so (the loop's clock)."""
        self.watcher: RulesWatcher | None = None
        self.players: HostPlayers | None = None
        """The one listener of the player records of every world served (their writes by
        other processes: ``arbiter token --player``)."""

    # --- lifecycle ---

    async def start(self) -> None:
        """Build the module if stale, listen, start renewing; claim ``--world`` if given (a
        world owned elsewhere is no error: its connections are sent there)."""
        config = self.config
        tls = config.tls_context()
        if self.hosting.advertise_url is not None:
            check_reason_fits(self.hosting.host_id, self.hosting.advertise_url)
        # The database must answer now: a host that cannot reach it serves nothing.
        conn = await psycopg.AsyncConnection.connect(self.hosting.dsn, connect_timeout=10)
        await conn.close()
        if config.build and config.module_dir is not None:
            await rebuild_module(config)
        self._server = await serve(
            self._handle,
            config.host,
            config.port,
            origins=[Origin(o) for o in config.origins] if config.origins is not None else None,
            process_request=self._routes(),
            ssl=tls,
            max_size=config.limits.max_frame_bytes,
            write_limit=config.limits.max_send_buffer_bytes,
            close_timeout=config.limits.close_timeout_seconds,
            compression=None,
            server_header=f"arbiter/{server_version()}",
            create_connection=Connection,
        )
        url = self.hosting.advertise_url or self.listening_url()
        check_reason_fits(self.hosting.host_id, url)
        self.owner = Host(
            self.hosting.dsn,
            self.hosting.host_id,
            url,
            self.hosting.lease_ttl,
            pool_size=self.hosting.pool_size,
        )
        self.players = HostPlayers(
            self.hosting.dsn, self.owner.application_name, self.worlds, await self.owner.pool()
        )
        self._tasks.append(self.players.run())
        _ = self.rules.reader  # built before the first frame, and settled with the rules
        settle_heap()
        self._tasks.append(asyncio.create_task(renewals(self), name="lease-renewals"))
        self._tasks.append(asyncio.create_task(deadlines(self), name="lease-deadlines"))
        self._tasks.append(asyncio.create_task(world_rules.follow(self), name="world-rules"))
        if config.reload_interval is not None:
            self.watcher = RulesWatcher(
                config.rules, config.reload_interval, self.swap_rules, self.report_error
            )
            self._tasks.append(asyncio.create_task(self.watcher.run(), name="rules-watcher"))
        if self.hosting.world is not None:
            served = await self.world(self.hosting.world)
            if isinstance(served, Owned):
                log.warning(
                    "world %r is owned by host %r (%s): its connections are sent there",
                    served.world,
                    served.host_id,
                    served.url,
                )

    @property
    def port(self) -> int:
        assert self._server is not None, "the host has not started"
        # ``sockets`` is typed as an iterable (asyncio's server gives a tuple).
        return int(next(iter(self._server.sockets)).getsockname()[1])

    def listening_url(self) -> str:
        """``ws(s)://address:port`` this host listens on (loopback for a wildcard address)."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(
            self.config.host, self.config.host
        )
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        scheme = "wss" if self.config.certfile is not None else "ws"
        return f"{scheme}://{host}:{self.port}"

    async def close(self) -> None:
        """Stop listening and renewing, close every connection, flush and close every world's
        store, then release every world so another host may claim it at once."""
        if self.players is not None:
            await self.players.close()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for world in tuple(self.worlds.values()):
            world.event_batches.flush()  # see ArbiterServer.close
            for client in tuple(world.clients):
                client.outbox.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for opening in tuple(self._opening.values()):
            with contextlib.suppress(Exception):
                await opening
        for world in tuple(self.worlds.values()):
            try:
                await world.close()
            except Exception:
                # The others must still be flushed and closed, and every world released.
                log.exception("world %r did not close cleanly", world.world_id)
        self.worlds.clear()
        for retiring in tuple(self._retiring.values()):
            with contextlib.suppress(Exception):
                await retiring
        if self.owner is not None:
            try:
                await self.owner.release()
            except Exception as err:
                log.warning("could not release the worlds (their leases run out): %s", err)
            await self.owner.close()
        await self.world_rules.close()

    async def serve_forever(self) -> None:
        assert self._server is not None, "the host has not started"
        await self._server.serve_forever()

    # --- connections ---

    def _routes(self) -> Any:
        http = routes(
            self.module, self.health, self.config.public_url, self.config.certfile is not None
        )
        default = self.hosting.world

        def process_request(connection: object, request: Request) -> Response | None:
            upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
            if upgrade and world_of(request.path, default) is None:
                return problem(
                    HTTPStatus.NOT_FOUND,
                    f"no world at {request.path.split('?', 1)[0]!r}: connect to /w/<world id>",
                )
            return http(connection, request)

        return process_request

    async def _handle(self, ws: ServerConnection) -> None:
        world_id = world_of(ws.request.path if ws.request is not None else "", self.hosting.world)
        if world_id is None:  # refused at the handshake already
            await ws.close(1008, "no world at this path")
            return
        while True:
            try:
                served = await self.world(world_id)
            except UnknownWorld:
                self.unknown += 1
                await ws.close(1008, "no such world on this service")
                return
            except world_rules.RulesUnloadable:  # logged with its problems (open_rules)
                await ws.close(CLOSE_TRY_AGAIN, world_rules.RULES_UNLOADABLE)
                return
            except Exception as err:
                log.warning("world %r could not be claimed or opened: %s", world_id, err)
                await ws.close(CLOSE_TRY_AGAIN, "the world cannot be opened now; try again")
                return
            if isinstance(served, Owned):
                self.moved += 1
                await ws.close(CLOSE_MOVED, moved_reason(served.host_id, served.url))
                return
            if self.worlds.get(world_id) is served or served.stale is not None:
                break  # (a lost world closes the connection with 4009 itself)
            # Given up as idle between its claim and now: claim it again.
        # Counted from before its hello (a session joins the world's clients after it): a
        # world is given up when idle only if no connection at all is using it.
        self.active[world_id] = self.active.get(world_id, 0) + 1
        try:
            await served.handle(ws)
        finally:
            self.active[world_id] -= 1
            if not self.active[world_id]:
                del self.active[world_id]
                # Idle from now: a connection that came and went between two checks counts.
                self.idle_since.pop(world_id, None)

    # --- rules ---

    async def swap_rules(self, rules: RulesSnapshot) -> None:
        """Rebuild the module for new rules, then serve them to every world that names no
        rules of its own."""
        if self.config.build and self.config.module_dir is not None:
            try:
                await rebuild_module(self.config)
            except RuleError as err:
                await self.report_error([str(p) for p in err.problems])
                return
        _ = rules.reader
        before = self.rules.info()
        self.rules = rules
        settle_heap()
        for world_id, world in tuple(self.worlds.items()):
            if world_id not in self.world_rules.serving:
                world.rules_swapped(before, rules)
        log.info(
            "rules updated: %s", ", ".join(f"{k} {v.version}" for k, v in rules.info().items())
        )

    async def report_error(self, problems: list[str]) -> None:
        """Tell the GMs of the worlds served with the host's rules that a change was refused."""
        for world_id, world in tuple(self.worlds.items()):
            if world_id not in self.world_rules.serving:
                await world.report_error(problems)

    def health(self) -> dict[str, Any]:
        worlds = tuple(self.worlds.items())
        return {
            "ok": True,
            "server": server_version(),
            "host": self.hosting.host_id,
            # How many, not which: the route answers anyone, and world ids are the hosting
            # service's customers.
            "worlds": len(worlds),
            "connections": sum(len(world.clients) for _, world in worlds),
            "dropped_too_slow": sum(world.dropped for _, world in worlds),
            "moved": self.moved,
            "unknown": self.unknown,
            "tasks": len(asyncio.all_tasks()),
            "rulesets": {rid: info.hash for rid, info in self.rules.info().items()},
            # How many distinct published rules are loaded (not which: as for the worlds).
            "world_rules": len(self.world_rules.snapshots),
        }


__all__ = ["CLOSE_MOVED", "WorldHost", "moved_reason", "world_of"]
