"""``arbiter serve``'s server: websockets on one port, the store, the rules, broadcast.

:class:`ArbiterServer` owns the world's store and secret, the current rules snapshot and the set
of authenticated clients. Each connection is a :class:`~arbiter.bridge.session.ClientSession` running in
the task ``websockets`` starts for it. Plain HTTP GETs on the same port are routed by
:mod:`arbiter.bridge.http`. See ``docs/protocol.md``.

Serving one world alone (a data directory, or ``--world`` without ``--host-id``), it listens
itself (:meth:`ArbiterServer.start`). A host of many worlds (:mod:`arbiter.bridge.hosting`)
listens instead and runs one :class:`ArbiterServer` per world it claimed, started with
:meth:`ArbiterServer.begin`, given the host's rules and the world's lease.

Following the player records is :mod:`arbiter.bridge.server_players`' part of the server, and
serving new rules :mod:`arbiter.bridge.server_rules`'; this module opens and closes the world,
listens, takes connections in and out, and publishes outcomes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import sqlite3
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.typing import Origin

from arbiter.bridge import datadir
from arbiter.bridge.awaiting_commit import Event
from arbiter.bridge.broadcast import publish
from arbiter.bridge.committing import GroupCommit
from arbiter.bridge.connection import Connection
from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.gap_replay import late
from arbiter.bridge.http import ModuleFiles, routes
from arbiter.bridge.protocol import LimitsInfo, ServerInfo, StatBlocksInvalid
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.records import Roll
from arbiter.bridge.reload import RulesWatcher
from arbiter.bridge.rules import RulesSnapshot, snapshot
from arbiter.bridge.server_config import ServerConfig
from arbiter.bridge.server_players import PlayerRecords
from arbiter.bridge.server_rules import RulesNotices
from arbiter.bridge.server_support import rebuild_module, server_version, settle_heap
from arbiter.bridge.session import CLOSE_STALE, ClientSession, commit_failed
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.store import Checkpointer, Player
from arbiter.bridge.stores import StaleWriter
from arbiter.bridge.views import NOBODY
from arbiter.bridge.world import OpenWorld, open_data_dir, open_postgres

if TYPE_CHECKING:
    from arbiter.bridge.stores.ownership import Lease
    from arbiter.bridge.stores.postgres_pool import PlayerFeed

log = logging.getLogger("arbiter.server")

LOOPBACK = ("127.0.0.1", "::1", "localhost")
STALE_REASON = "this server no longer owns the world"


class ArbiterServer(PlayerRecords, RulesNotices):
    """One world's authoritative server. Create, ``await start()``, ``await close()``."""

    def __init__(
        self,
        config: ServerConfig,
        world: OpenWorld | None = None,
        rules: RulesSnapshot | None = None,
        lease: Lease | None = None,
        world_id: str | None = None,
    ) -> None:
        """Serve ``world`` (opened by :func:`open_server`), or the data directory of
        ``config`` (SQLite), taken here.

        A world served by a host of many (:mod:`arbiter.bridge.hosting`) is given the host's
        ``rules`` (shared by every world it serves) and the ``lease`` it holds the world under:
        nothing is committed or answered once the lease is not valid. Such a server does not
        listen (the host does, and hands it its connections); ``world_id`` names it in logs."""
        self.config = config
        self.world_id = world_id
        self.lease = lease
        self.rules: RulesSnapshot = snapshot(config.rules.load()) if rules is None else rules
        if world is None:
            if config.postgres is not None:
                raise ValueError("a PostgreSQL world is opened by `await open_server(config)`")
            world = open_data_dir(config.data, config.synchronous)
        self.world = world
        try:
            self.secret = world.secret
            self.store = world.store
            self.vault = Vault(self.store)
            """The GM's stat blocks (arbiter.bridge.stat_block_vault)."""
            # The rules may have changed while the server was down: note the stored blocks they
            # refuse, for the GM's list_stat_blocks.
            self._log_invalid(self.vault.recheck(self.vault.rulesets(), self.rules.models))
            if config.postgres is None and config.hosting is None:
                # The -wal and -shm files now exist: make sure of their modes too.
                datadir.secure(config.data)
        except BaseException:
            if world.lock is not None:
                world.lock.close()
            raise
        self.clients: set[ClientSession] = set()
        self.listeners: set[ClientSession] = set()
        """The clients subscribed to other clients' outcomes (``outcome`` events)."""
        self.event_batches = EventBatches(
            config.limits.event_flush_seconds, config.limits.event_flush_bytes
        )
        """The listeners' outcome events held for their next write (arbiter.bridge.event_batches)."""
        self.dropped = 0
        """Connections dropped since start for not reading what they were sent (close 4008)."""
        self.failures = FailureLog(log)
        """Store failures (a full disk): one log line each, a traceback once per error."""
        self.stale: StaleWriter | None = None
        """Set when a commit found that another writer owns the world: it is served no more."""
        self.lost = asyncio.Event()
        """Set with :attr:`stale` (``arbiter serve`` exits then, serving one world)."""
        self.on_lost: Callable[[ArbiterServer], None] | None = None
        """Called once when the world is lost (a host of many worlds retires it)."""
        self.module = ModuleFiles(config.module_dir)
        self.server_info = ServerInfo(version=server_version())
        limits = config.limits
        self.limits_info = LimitsInfo(
            max_message_bytes=limits.max_message_bytes,
            rate_per_second=limits.rate_per_second,
            burst=limits.burst,
            auth_timeout_seconds=limits.auth_timeout_seconds,
            max_dice_per_request=limits.max_dice_per_request,
        )
        self.commits = GroupCommit(
            self.store,
            self.failures,
            self.publish,
            self._lose_world,
            commit_failed,
            # A stat block the vault kept for requests may have been rolled back.
            lambda: self.vault.forget(),
            fence=lease.valid if lease is not None else None,
            publish_late=self.publish_late,
        )
        # The group commit's (arbiter.bridge.committing), called as the server's by sessions.
        self.committed = self.commits.committed
        self.answer = self.commits.answer
        self.after_commit = self.commits.after_commit
        self.announce = self.commits.announce
        self._server: Server | None = None
        self._watcher_task: asyncio.Task[None] | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self._players_task: asyncio.Task[None] | None = None
        self.player_feed: PlayerFeed | None = None
        """The listener of this world's player records (a PostgreSQL world alone in its
        process; None otherwise)."""
        self._closing: set[asyncio.Task[None]] = set()
        self._players: dict[str, Player] = {p.name: p for p in self.store.players()}
        """The player records as last read (a change is applied to live connections)."""
        self.watcher: RulesWatcher | None = None

    # --- lifecycle ---

    async def start(self) -> None:
        """Close the sessions a previous run left open, build the module if stale, listen."""
        tls = self.config.tls_context()  # a bad certificate stops us before any work
        await self.begin()
        if self.config.build and self.config.module_dir is not None:
            await self.rebuild_module()
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            origins=[Origin(o) for o in self.config.origins]
            if self.config.origins is not None
            else None,
            process_request=routes(
                self.module, self.health, self.config.public_url, self.config.certfile is not None
            ),
            ssl=tls,
            max_size=self.config.limits.max_frame_bytes,
            # websockets' own writes (keepalive pings, close frames) wait only above this; the
            # outbox drops a connection as soon as it is over it (arbiter.bridge.outbox).
            write_limit=self.config.limits.max_send_buffer_bytes,
            close_timeout=self.config.limits.close_timeout_seconds,
            compression=None,
            server_header=f"arbiter/{self.server_info.version}",
            create_connection=Connection,
        )
        _ = self.rules.reader  # built before the first frame, and settled with the rules
        settle_heap()
        if self.config.reload_interval is not None:
            self.watcher = RulesWatcher(
                self.config.rules, self.config.reload_interval, self.swap_rules, self.report_error
            )
            self._watcher_task = asyncio.create_task(self.watcher.run(), name="rules-watcher")

    async def begin(self) -> None:
        """Close the sessions a previous run left open and start the world's own tasks
        (player records, WAL checkpoints): what serving the world needs beside a listener."""
        ended = self.store.end_open_sessions(time.time())
        await self.commits.committed()
        if ended:
            log.info("closed %d session(s) left open by a previous run", ended)
        if self.world.checkpointer is not None:
            self._checkpoint_task = asyncio.create_task(
                self._checkpoints(self.world.checkpointer), name="wal-checkpoints"
            )
        self._players_task = self._player_records()

    @property
    def port(self) -> int:
        assert self._server is not None, "the server has not started"
        # ``sockets`` is typed as an iterable (asyncio's server gives a tuple).
        return int(next(iter(self._server.sockets)).getsockname()[1])

    async def close(self) -> None:
        """Stop listening, close every connection, end their sessions and close the store."""
        for task in (self._watcher_task, self._checkpoint_task, self._players_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        # The events held go ahead of the close frames (as every event went before them).
        self.event_batches.flush()
        for client in tuple(self.clients):
            # Already dropped for not reading: its close frame may never get through, and
            # shutting down must not wait the close timeout for it.
            client.outbox.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        await self.commits.drain()
        if self.store.pending and self.stale is None:
            try:
                await self.store.flush()
            except Exception as err:
                # Nobody was told these rows are durable (answers wait for the commit).
                self.failures.report("the roll log could not commit at shutdown", err)
        await self.world.close()

    async def serve_forever(self) -> None:
        assert self._server is not None, "the server has not started"
        await self._server.serve_forever()

    @staticmethod
    async def _checkpoints(checkpointer: Checkpointer, retry: float = 1.0) -> None:
        """Checkpoint the WAL in a thread, step after step, each after the delay the last one
        returned (see Checkpointer.step); ``retry`` seconds after a failed one."""
        delay = retry
        while True:
            await asyncio.sleep(delay)
            try:
                delay = await asyncio.to_thread(checkpointer.step)
            except Exception:
                log.exception("WAL checkpoint failed (will retry)")
                delay = retry

    # --- connections ---

    async def _handle(self, ws: ServerConnection) -> None:
        await self.handle(ws)

    async def handle(self, ws: ServerConnection) -> None:
        """Serve one connection to this world until it closes."""
        await ClientSession(self, ws).run()

    def join(self, session: ClientSession) -> None:
        """Take a welcomed client in; a GM connection subscribed to ``rules`` is told at once
        (right after its ``welcome``) of the stored stat blocks the served rules refuse, as
        the connections open at the reload that found them were."""
        self.clients.add(session)
        self.subscribed(session)
        if session.gm and "rules" in session.events:
            # The blocks and their problems are the GM's: never a player's connection.
            invalid = self.vault.noted_invalid()
            if invalid:
                session.outbox.send(encode(StatBlocksInvalid(blocks=invalid)))

    def subscribed(self, session: ClientSession) -> None:
        """Take note of a joined client's event streams (after hello or subscribe)."""
        if "outcome" in session.events and session in self.clients:
            self.listeners.add(session)
        else:
            self.listeners.discard(session)

    def leave(self, session: ClientSession) -> None:
        self.clients.discard(session)
        self.listeners.discard(session)
        # A connection the server closes (revoked, the world lost) gets the events held for it
        # ahead of its close frame, as when every event was written at once; one closed by its
        # peer writes nothing.
        session.outbox.release()
        if self.stale is not None:
            return  # another writer owns the world: write nothing more
        try:
            self.store.end_session(session.id, time.time())
        except sqlite3.Error as err:
            # The session stays open in the log; the next start closes it (end_open_sessions).
            self.failures.report(f"session {session.id} could not be marked ended", err)
            return
        if self.store.pending:
            self.commits.schedule()  # PostgreSQL stages it: make it durable with the next group

    def _lose_world(self, err: StaleWriter) -> None:
        """Another writer committed to the world (or claimed it), or the lease it is served
        under is no longer valid: stop serving it. Every connection is closed with 4009
        (docs/protocol.md); new ones are refused the same way; :attr:`lost` tells
        ``arbiter serve`` to exit (one world), :attr:`on_lost` the host to retire it (many)."""
        if self.stale is not None:
            return
        self.stale = err
        named = f" {self.world_id!r}" if self.world_id is not None else ""
        log.error("this server no longer owns the world%s, and stops serving it: %s", named, err)
        for client in tuple(self.clients):
            client.viewer = NOBODY
            self.leave(client)
            self._close_later(client.ws.close(CLOSE_STALE, STALE_REASON))
        self.lost.set()
        if self.on_lost is not None:
            self.on_lost(self)

    def lose(self, err: StaleWriter) -> None:
        """Stop serving the world now (its lease was lost or ran out): as a stale writer."""
        self._lose_world(err)

    def _close_later(self, closing: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(closing)
        # The loop keeps only a weak reference to a task: hold it until it is done.
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def count_drop(self) -> None:
        self.dropped += 1

    def health(self) -> dict[str, Any]:
        return {
            "ok": True,
            "server": self.server_info.version,
            "connections": len(self.clients),
            "dropped_too_slow": self.dropped,
            "tasks": len(asyncio.all_tasks()),
            "rulesets": {rid: info.hash for rid, info in self.rules.info().items()},
        }

    # --- events ---

    def publish(self, events: Sequence[Event]) -> None:
        """Send one group commit's outcomes to the listeners (arbiter.bridge.broadcast)."""
        if self.listeners:
            publish(tuple(self.listeners), events, self.event_batches)

    def publish_late(self, rows: Sequence[Roll]) -> None:
        """Send the listeners committed rows no live event announced, each in its view, marked
        replayed (arbiter.bridge.gap_replay.late)."""
        for client in tuple(self.listeners):
            frames = late(rows, client.viewer)
            if frames:
                client.outbox.send_frames(frames)


async def open_server(config: ServerConfig) -> ArbiterServer:
    """A server for ``config``'s world, opened where it lives (a PostgreSQL world's store is
    opened, and its cache loaded, on the running loop); then ``await start()``."""
    if config.postgres is None:
        return ArbiterServer(config)
    world = await open_postgres(config.postgres)
    try:
        from arbiter.bridge.world_rules import published_rules

        own = await published_rules(config.postgres.dsn, config.postgres.world, config.rules)
        if own is not None:
            # Served with the rules the world names (read at start: a host of many worlds
            # follows a publish live); the --rules files are not its rules, so not watched.
            config = dataclasses.replace(config, reload_interval=None)
        return ArbiterServer(config, world, rules=own)
    except BaseException:
        await world.close()
        raise


__all__ = [
    "LOOPBACK",
    "STALE_REASON",
    "ArbiterServer",
    "ServerConfig",
    "open_server",
    "rebuild_module",
    "server_version",
    "settle_heap",
]
