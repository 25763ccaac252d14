"""``arbiter serve``'s server: websockets on one port, the store, the rules, broadcast.

:class:`ArbiterServer` owns the world's store and secret, the current rules snapshot and the set
of authenticated clients. Each connection is a :class:`~arbiter.bridge.session.ClientSession` running in
the task ``websockets`` starts for it. Plain HTTP GETs on the same port are routed by
:mod:`arbiter.bridge.http`. See ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sqlite3
import ssl
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

from websockets.asyncio.server import Server, ServerConnection, serve

from arbiter.bridge import datadir
from arbiter.bridge.building import build_module
from arbiter.bridge.connection import Connection
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.http import ModuleFiles, routes
from arbiter.bridge.limits import Limits
from arbiter.bridge.outbox import text_frame
from arbiter.bridge.protocol import (
    ErrorMessage,
    LimitsInfo,
    RulesError,
    RulesUpdated,
    ServerInfo,
    StatBlocksInvalid,
    encode,
    outcome_event_bytes,
)
from arbiter.bridge.reload import RulesWatcher
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.bridge.session import CLOSE_REVOKED, ClientSession, commit_failed
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.store import Checkpointer, Player, Store
from arbiter.bridge.vault_messages import InvalidStatBlock
from arbiter.bridge.views import NOBODY, OutcomeText
from arbiter.compiler.errors import RuleError

log = logging.getLogger("arbiter.server")

LOOPBACK = ("127.0.0.1", "::1", "localhost")

Answer = tuple[ClientSession, str | bytes, str | None, ErrorMessage | None]
"""A reply waiting for the commit: to whom, what, the request id of the outcome it carries
(None: not an outcome), and the error to send instead should the commit fail (a bind's)."""


def settle_heap() -> None:
    """Collect what is garbage now, then exempt every live object from later collections.

    The rules (hundreds of thousands of objects, alive as long as they serve) would otherwise be
    walked by every full collection: a pause of tens of milliseconds on the event loop, under
    load every few thousand messages. Frozen objects are still freed when nothing refers to
    them; the collection before freezing (and after :func:`gc.unfreeze`, on a rule change)
    frees the cycles of rules that no longer serve.
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def server_version() -> str:
    try:
        return version("vtt-arbiter")
    except PackageNotFoundError:
        return "0.0.0"


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``arbiter serve`` can be told."""

    data: Path
    host: str = "127.0.0.1"
    port: int = 8765
    """0 picks a free port (tests); :attr:`ArbiterServer.port` tells which."""
    rules: RuleSource = field(default_factory=RuleSource)
    module_dir: Path | None = None
    """The built module (the folder holding module.json); None: no module routes, no builds."""
    build: bool = True
    """Build the module at start and after every valid rule change."""
    origins: tuple[str, ...] | None = None
    """Allowed Origin headers (``"null"``-less browsers' pages); None allows any origin."""
    limits: Limits = field(default_factory=Limits)
    allow_scripted_dice: bool = False
    reload_interval: float | None = 1.0
    """Seconds between polls of the rule sources; None turns hot rules off."""
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
    players_interval: float = 1.0
    """Seconds between reads of the player records (a revoked player is closed within it)."""
    certfile: Path | None = None
    """PEM certificate chain: the port then serves ``wss://`` and ``https://`` (with keyfile)."""
    keyfile: Path | None = None
    """The certificate's PEM private key (None: it is in ``certfile``)."""
    public_url: str | None = None
    """The address Foundry's server fetches the module from (``/module.json``'s ``manifest`` and
    ``download``, and the zip's module.json); None: the address each request came by."""

    def tls_context(self) -> ssl.SSLContext | None:
        """The server's TLS context, or None without a certificate. Raises ``OSError`` (an
        ``ssl.SSLError`` among them) naming the file when it cannot be read."""
        if self.certfile is None:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.certfile, self.keyfile)
        except OSError as err:  # ssl.SSLError included
            why = getattr(err, "reason", None) or err.strerror or str(err)
            raise OSError(
                f"cannot use the certificate {self.certfile} with the key "
                f"{self.keyfile or self.certfile}: {why}"
            ) from err
        return context


class ArbiterServer:
    """One world's authoritative server. Create, ``await start()``, ``await close()``."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.rules: RulesSnapshot = snapshot(config.rules.load())
        # Owner-only before anything is read or written there (raises, saying why, if it
        # cannot be made so).
        datadir.secure(config.data)
        self._lock = datadir.lock(config.data)
        try:
            self.secret = datadir.world_secret(config.data)
            path = datadir.store_path(config.data)
            datadir.create_private(path)
            self.store = Store(path, config.synchronous, autocheckpoint=False)
            self.checkpointer = Checkpointer(path)
            self.vault = Vault(self.store)
            """The GM's stat blocks (arbiter.bridge.stat_block_vault)."""
            # The rules may have changed while the server was down: note the stored blocks they
            # refuse, for the GM's list_stat_blocks.
            self._log_invalid(self.vault.recheck(self.vault.rulesets(), self.rules.models))
            # The -wal and -shm files now exist: make sure of their modes too.
            datadir.secure(config.data)
        except BaseException:
            self._lock.close()
            raise
        ended = self.store.end_open_sessions(time.time())
        if ended:
            log.info("closed %d session(s) left open by a previous run", ended)
        self.clients: set[ClientSession] = set()
        self.listeners: set[ClientSession] = set()
        """The clients subscribed to other clients' outcomes (``outcome`` events)."""
        self.dropped = 0
        self.failures = FailureLog(log)
        """Store failures (a full disk): one log line each, a traceback once per error."""
        """Connections dropped since start for not reading what they were sent (close 4008)."""
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
        self._waiters: list[asyncio.Future[None]] = []
        self._answers: list[Answer] = []
        """Replies to send once the rows staged so far are committed, in the order given."""
        self._commit_scheduled = False
        self._after_commit: list[Callable[[], None]] = []
        self._events: list[tuple[int, OutcomeText, ClientSession]] = []
        """Outcomes staged in this turn to announce to the listeners once committed."""
        self._server: Server | None = None
        self._watcher_task: asyncio.Task[None] | None = None
        self._checkpoint_task: asyncio.Task[None] | None = None
        self._players_task: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._players: dict[str, Player] = {p.name: p for p in self.store.players()}
        """The player records as last read (a change is applied to live connections)."""
        self.watcher: RulesWatcher | None = None

    # --- lifecycle ---

    async def start(self) -> None:
        """Build the module if stale, then listen."""
        tls = self.config.tls_context()  # a bad certificate stops us before any work
        if self.config.build and self.config.module_dir is not None:
            await self.rebuild_module()
        self._server = await serve(
            self._handle,
            self.config.host,
            self.config.port,
            origins=list(self.config.origins) if self.config.origins is not None else None,
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
        self._checkpoint_task = asyncio.create_task(self._checkpoints(), name="wal-checkpoints")
        self._players_task = asyncio.create_task(self._watch_players(), name="player-records")
        if self.config.reload_interval is not None:
            self.watcher = RulesWatcher(
                self.config.rules, self.config.reload_interval, self.swap_rules, self.report_error
            )
            self._watcher_task = asyncio.create_task(self.watcher.run(), name="rules-watcher")

    @property
    def port(self) -> int:
        assert self._server is not None, "the server has not started"
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening, close every connection, end their sessions and close the store."""
        for task in (self._watcher_task, self._checkpoint_task, self._players_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for client in tuple(self.clients):
            # Already dropped for not reading: its close frame may never get through, and
            # shutting down must not wait the close timeout for it.
            client.outbox.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self.store.pending:
            try:
                self.store.commit()
            except Exception as err:
                # Nobody was told these rows are durable (answers wait for the commit).
                self.failures.report("the roll log could not commit at shutdown", err)
        self.checkpointer.checkpoint("TRUNCATE")
        self.checkpointer.close()
        self.store.close()
        self._lock.close()

    async def serve_forever(self) -> None:
        assert self._server is not None, "the server has not started"
        await self._server.serve_forever()

    async def _checkpoints(self, interval: float = 1.0) -> None:
        """Checkpoint the WAL in a thread every ``interval`` seconds (see Checkpointer)."""
        while True:
            await asyncio.sleep(interval)
            try:
                await asyncio.to_thread(self.checkpointer.checkpoint)
            except Exception:
                log.exception("WAL checkpoint failed (will retry)")

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
                task = asyncio.get_running_loop().create_task(
                    client.ws.close(CLOSE_REVOKED, "credential revoked")
                )
                # The loop keeps only a weak reference to a task: hold it until it is done.
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
            elif frozenset(record.participants) != client.viewer.participants:
                client.bind_player(record)

    # --- connections ---

    async def _handle(self, ws: ServerConnection) -> None:
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
        try:
            self.store.end_session(session.id, time.time())
        except sqlite3.Error as err:
            # The session stays open in the log; the next start closes it (end_open_sessions).
            self.failures.report(f"session {session.id} could not be marked ended", err)

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

    # --- group commit ---

    async def committed(self) -> None:
        """Wait until every row staged so far is committed; raises if the commit failed.

        The first waiter of an event-loop turn schedules one COMMIT after the callbacks already
        ready to run: every connection whose message arrived in the same turn stages its row
        first, and one write makes them all durable. Each waiter has a future of its own, so a
        waiter cancelled (its connection closing) cancels nobody else's wait.
        """
        if not self.store.pending:
            return
        self._schedule_commit()
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        await waiter

    def answer(
        self,
        session: ClientSession,
        reply: str | bytes,
        outcome_id: str | None = None,
        on_failure: ErrorMessage | None = None,
    ) -> None:
        """Send ``reply`` to ``session`` once every row staged so far is committed (at once
        when nothing is staged), after the replies given before it.

        Should the commit fail, a reply carrying an outcome (``outcome_id``: its request id)
        becomes ``unavailable`` (nothing was decided), one with ``on_failure`` becomes that
        error, and any other goes as it is. The caller does not wait: one COMMIT per event-loop
        turn sends every reply of the turn, without a future or a task wake-up per message.
        """
        if not self._answers and not self.store.pending:
            session.outbox.send(reply)
            return
        self._answers.append((session, reply, outcome_id, on_failure))
        self._schedule_commit()

    def _schedule_commit(self) -> None:
        # The first of a turn schedules one COMMIT after the callbacks already ready to run:
        # every connection whose message arrived in the same turn stages its row first.
        if not self._commit_scheduled:
            self._commit_scheduled = True
            asyncio.get_running_loop().call_soon(self._do_commit)

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the rows staged so far are committed (never if the commit fails)."""
        self._after_commit.append(callback)

    def announce(self, seq: int, outcome: OutcomeText, origin: ClientSession) -> None:
        """Tell every listener but ``origin`` about an outcome once its row is committed
        (never if the commit fails); see :meth:`publish`."""
        self._events.append((seq, outcome, origin))

    def _do_commit(self) -> None:
        self._commit_scheduled = False
        waiters, self._waiters = self._waiters, []
        answers, self._answers = self._answers, []
        callbacks, self._after_commit = self._after_commit, []
        events, self._events = self._events, []
        try:
            self.store.commit()
        except Exception as err:
            self.vault.forget()  # a stat block it read may have been rolled back
            # A full disk fails every commit until someone makes room: one line each.
            self.failures.report(
                f"the roll log could not commit; {len(waiters) + len(answers)} answer(s) say "
                "nothing was decided",
                err,
            )
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(err)
            for session, reply, outcome_id, on_failure in answers:
                if outcome_id is not None:
                    reply = encode(commit_failed(outcome_id))
                elif on_failure is not None:
                    reply = encode(on_failure)
                session.outbox.send(reply)
            return
        if events:
            self.publish(events)
        for session, reply, _, _ in answers:
            session.outbox.send(reply)
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        for callback in callbacks:
            callback()

    # --- events ---

    def publish(self, events: Sequence[tuple[int, OutcomeText, ClientSession]]) -> None:
        """Send the outcomes of one group commit to every listener but the client each came
        from, each in its view of it (``arbiter.bridge.views``), in log order.

        An outcome nobody has anything withheld from (the common case) is framed once for all;
        a listener that sent none of them gets them all in one write. Written without waiting
        on any reader: a client that stopped reading is dropped once over its send buffer limit
        (``arbiter.bridge.outbox``), so it never holds the others back nor grows the server's memory.
        Clients that did not subscribe are not in :attr:`listeners` and cost nothing here.
        """
        listeners = tuple(self.listeners)
        if not listeners:
            return
        shared = [
            text_frame(outcome_event_bytes(seq, text.logged_bytes)) if text.same_for_all else None
            for seq, text, _ in events
        ]
        origins = {origin for _, _, origin in events}
        everything = b"".join(shared) if None not in shared else None  # type: ignore[arg-type]
        views: dict[tuple[int, bytes], bytes] = {}
        for client in listeners:
            if everything is not None and client not in origins:
                client.outbox.send_frames((everything,))
                continue
            frames = []
            for index, (seq, text, origin) in enumerate(events):
                if origin is client:
                    continue
                frame = shared[index]
                if frame is None:
                    view = text.shown_bytes(client.viewer)
                    frame = views.get((index, view))
                    if frame is None:
                        frame = views[(index, view)] = text_frame(outcome_event_bytes(seq, view))
                frames.append(frame)
            if frames:
                client.outbox.send_frames(frames)

    async def swap_rules(self, rules: RulesSnapshot) -> None:
        """Rebuild the module for new rules, then serve them and tell the clients."""
        if self.config.build and self.config.module_dir is not None:
            try:
                await self.rebuild_module()
            except RuleError as err:
                await self.report_error([str(p) for p in err.problems])
                return
        _ = rules.reader  # built before the first frame, and settled with the rules
        before = self.rules.info()
        self.rules = rules
        settle_heap()
        after = rules.info()
        text = encode(RulesUpdated(rulesets=after))
        for client in tuple(self.clients):
            if "rules" in client.events:
                client.outbox.send(text)
        log.info("rules updated: %s", ", ".join(f"{k} {v.version}" for k, v in after.items()))
        changed = {rid for rid in before.keys() | after.keys() if before.get(rid) != after.get(rid)}
        invalid = self.vault.recheck(changed & self.vault.rulesets(), rules.models)
        if invalid:
            self._log_invalid(invalid)
            # The blocks and their problems are the GM's: never a player's connection.
            notice = encode(StatBlocksInvalid(blocks=invalid))
            for client in tuple(self.clients):
                if client.gm and "rules" in client.events:
                    client.outbox.send(notice)

    @staticmethod
    def _log_invalid(invalid: list[InvalidStatBlock]) -> None:
        for block in invalid:
            problems = "; ".join(f"{p.field}: {p.message}" for p in block.problems)
            log.warning(
                "the served rules refuse the stored %s stat block of %r: %s",
                block.ruleset,
                block.participant,
                problems,
            )

    async def report_error(self, problems: list[str]) -> None:
        text = encode(RulesError(problems=problems))
        for client in tuple(self.clients):
            if client.gm and "rules" in client.events:
                client.outbox.send(text)

    async def rebuild_module(self) -> None:
        """Build the module off the event loop (a no-op when it is up to date)."""
        module_dir = self.config.module_dir
        if module_dir is None:
            return
        try:
            report = await asyncio.to_thread(build_module, module_dir, self.config.rules)
        except RuleError:
            raise
        except Exception as err:
            # Unavailable compiler, packs held open by a running world, a concurrent build: the
            # rules still serve; the module on disk stays as it was until the next change.
            log.warning("module not rebuilt: %s", err)
            return
        describe = getattr(report, "describe", None)
        log.info("module %s", describe() if callable(describe) else report)
