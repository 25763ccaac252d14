"""One client connection: authenticate, then answer every message until the client leaves.

Each connection runs in the task ``websockets`` gives its handler; once welcomed, a message that
arrives whole is handled from the callback that parsed it (:mod:`arbiter.bridge.connection`),
and the task reads only what takes websockets' queue. The first message must be a
``hello`` within ``auth_timeout_seconds``, carrying the world secret (a GM connection) or a player
token (that player's connection, holding his participants): otherwise the connection is closed
(4001 bad hello, 1008 timeout). After that every message gets exactly one answer, an error
included, and the connection stays up whatever the client sends (frames over the websocket size
limit excepted: the websocket layer closes those with 1009; a revoked player's connection is
closed with 4003). A client that stops reading what it is sent (replies and events) is dropped
with 4008 once over its send buffer (:mod:`arbiter.bridge.outbox`). Who may act is checked by
:mod:`arbiter.bridge.authority`, what each connection sees of an outcome is :mod:`arbiter.bridge.views`'s.

The hello is :mod:`arbiter.bridge.session_hello`'s and a request's path
:mod:`arbiter.bridge.session_requests`'; this module reads, dispatches and answers the rest
(pings, subscriptions, binds, the vault, resends whose rows are read back).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import sqlite3
import time
import uuid
from collections.abc import Hashable
from time import monotonic
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import OPEN

from arbiter.bridge import players
from arbiter.bridge.awaiting_commit import MAX_RECALLS, Recall, Redone
from arbiter.bridge.checking import Check, checked
from arbiter.bridge.connection import MESSAGES_PER_TURN, Connection
from arbiter.bridge.deciding import Context
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.failures import UNAVAILABLE
from arbiter.bridge.gap_replay import missed, older, unreadable
from arbiter.bridge.limits import TokenBucket
from arbiter.bridge.outbox import Outbox
from arbiter.bridge.protocol import (
    Bind,
    ClientMessage,
    ErrorMessage,
    EventName,
    Ping,
    Pong,
    RequestMessage,
    Subscribe,
)
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.protocol_parsing import ProtocolError, decode, guess_id, parse_client
from arbiter.bridge.reading import Sent
from arbiter.bridge.reading_known import NOT_KEPT
from arbiter.bridge.records import Player, Roll
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.session_hello import (
    CLOSE_AUTH_FAILED,
    CLOSE_AUTH_TIMEOUT,
    CLOSE_STALE,
    authenticate,
)
from arbiter.bridge.session_requests import request
from arbiter.bridge.stores import RowNotCached, UnstorableText
from arbiter.bridge.vault_messages import GetStatBlock, ListStatBlocks, VaultMessage
from arbiter.bridge.views import NOBODY, Viewer

if TYPE_CHECKING:
    from arbiter.bridge.server import ArbiterServer

log = logging.getLogger("arbiter.session")

INTERNAL_ERROR = encode(
    ErrorMessage(id=None, code="internal", message="the server failed on this message")
)


def commit_failed(request_id: str | None) -> ErrorMessage:
    """The answer to a request the store could not log (a full disk): nothing was decided."""
    return ErrorMessage(id=request_id, code="unavailable", message=UNAVAILABLE)


RECALL_RETRY = 0.05
"""The ``retry_after`` of a resend refused for too many read-backs waiting (one read's time)."""

CLOSE_REVOKED = 4003


class ClientSession:
    """The state of one authenticated connection: who it is, its dice and its event streams."""

    def __init__(self, server: ArbiterServer, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        limits = server.config.limits
        self.outbox = Outbox(
            ws, limits.max_send_buffer_bytes, limits.close_timeout_seconds, server.count_drop
        )
        """Every frame after the welcome goes through it: bounded (close 4008 when over)."""
        if isinstance(ws, Connection):
            # The pongs websockets writes for a client's pings count toward the same bound
            # (arbiter.bridge.connection): a client that pings and reads nothing is dropped too.
            ws.on_overflow = self.outbox.drop
        self.id = uuid.uuid4().hex
        self.seed = secrets.token_bytes(32)
        self.keyed = KeyedSource(self.seed)
        self.user = ""
        self.viewer: Viewer = NOBODY
        """Who this connection is and which private entries it sees (set by the hello)."""
        self.token_hash: str | None = None
        """The hash of the player token this connection said hello with (None: the GM)."""
        self.events: frozenset[EventName] = frozenset()
        self.since: int | None = None
        """The hello's ``since``, until its replay is sent (arbiter.bridge.gap_replay)."""
        self.head = 0
        """The welcome's ``head``: a hello without ``since`` is replayed from it, so the rows
        committed while the welcome was on its way are not lost to it."""
        self._context: Context | None = None
        self.outcome_row: tuple[str, str] | None = None
        """The request id and row hash of the outcome the current reply carries (None: not an
        outcome)."""
        self.on_commit_failure: ErrorMessage | None = None
        """The reply to send instead of the current one should the commit fail (a bind)."""
        self.bucket = TokenBucket(limits.rate_per_second, limits.burst, monotonic())
        """Its clock: ``time.monotonic()``, read directly (the default loop's ``time()`` is a
        Python call around it, and Python 3.11's ``asyncio.get_running_loop()`` a ``getpid``
        system call)."""
        self.recalls = 0
        """This connection's resends waiting for their rows to be read back (at most
        :data:`~arbiter.bridge.awaiting_commit.MAX_RECALLS`)."""

    # --- lifecycle ---

    async def run(self) -> None:
        """Serve the connection until it closes."""
        if not await authenticate(self):
            return
        # The gap's rows the store holds in the database only, read before joining: nothing
        # is awaited between the join and the replay.
        read: list[Roll] | None
        try:
            read = await older(self.since, self.head, self.events,
                               lambda: self.server.commits.head, self.server.store,
                               self.server.config.limits)  # fmt: skip
        except Exception as err:
            self.server.failures.report(f"session {self.id}: the gap's rows could not be read", err)
            read = None
        if self.server.stale is not None:
            # The world was lost while the welcome was on its way (its sessions were closed
            # then, this one not yet among them): close it as they were, never leave it mute.
            await self.ws.close(CLOSE_STALE, "this server no longer owns the world")
            return
        self.server.join(self)
        # In the same step as joining the listeners: the rows up to the group commit's head
        # now, live events for every row after it (arbiter.bridge.gap_replay).
        self._replay_gap(read)
        if isinstance(self.ws, Connection):
            # From now on a message that arrives whole is handled as soon as it is parsed,
            # without this task (arbiter.bridge.connection); the loop below takes the rest
            # (fragmented messages, those queued before this line and those behind them),
            # in the order they came.
            self.ws.on_message = self.receive
            self.ws.on_read_done = self.server.commits.read_done
        try:
            await self._take_queued()
        except ConnectionClosed:
            pass
        finally:
            if isinstance(self.ws, Connection):
                self.ws.on_message = None  # a session that left decides nothing more
                self.ws.on_read_done = None
            self.server.leave(self)

    async def _take_queued(self) -> None:
        """Decide the messages websockets queues, in order, until the connection closes;
        yield to the event loop after every :data:`~arbiter.bridge.connection.MESSAGES_PER_TURN`
        taken in one step (``recv()`` returns at once while its queue holds a message, so
        without it a flood would be decided in one step, every other connection waiting)."""
        ws = self.ws
        queue = getattr(ws, "recv_messages", None)
        frames = getattr(queue, "frames", None)
        protocol = ws.protocol
        taken = 0
        async for frame in ws:
            if protocol.state is not OPEN:
                # Closing (the client's close frame, or the server's): its reply could not be
                # sent, and a flood followed by a close must cost no more decisions. (A read
                # hands nothing on once the connection has left OPEN either.)
                continue
            self.receive(frame)
            if frames is not None and not frames:
                taken = 0  # the next recv() waits for a read: this step ends there
                continue
            taken += 1
            if taken >= MESSAGES_PER_TURN:
                taken = 0
                await asyncio.sleep(0)  # the other connections' turn; the queue keeps its order

    def _replay_gap(self, read: list[Roll] | None) -> None:
        """Send the outcome events the hello's ``since`` asks for (arbiter.bridge.gap_replay);
        ``read``: the gap's rows read before (None: they could not be)."""
        since, self.since = self.since, None
        server = self.server
        if read is None:
            answer = unreadable(since)
        else:
            answer = missed(since, self.head, self.events, server.commits.head, server.store,
                            self.viewer, server.config.limits, read)  # fmt: skip
        if answer.frames:
            self.outbox.send_frames(answer.frames)
        if answer.rows:
            log.info("session %s: replayed %d outcome(s)", self.id, answer.rows)

    def receive(self, frame: str | bytes) -> None:
        """Handle one message of an authenticated connection (JSON text; bytes: UTF-8 JSON
        text): its answer is sent once the rows it rests on are committed. Requests are decided
        synchronously (see deciding). A resend of an id whose row the store does not hold in
        memory is answered :class:`~arbiter.bridge.awaiting_commit.Recall`: the group commit
        reads the row back and answers it again (:meth:`_redo`)."""
        server = self.server
        if self.outbox.dropped or server.stale is not None:
            # Dropped for not reading (close 4008), or the world is lost (4009): decide
            # nothing more for it, but read on, so its reply to the close gets through.
            return
        self.outcome_row = None
        self.on_commit_failure = None
        wait = self.bucket.take(monotonic())
        if wait:
            reply: str | bytes | Recall = encode(self._rate_limited(frame, wait))
        else:
            # One snapshot reads and decides the message.
            reply = self._answer(frame, None, server.rules)
            if isinstance(reply, Recall):
                reply = self._recall(frame, reply)
        # An outcome may rest on rows not yet committed: the server sends it once they are,
        # and never an outcome whose row did not make it to disk. Nothing waits here (no
        # future, no wake-up per message); replies keep their order.
        server.answer(self, reply, self.outcome_row, self.on_commit_failure)

    @property
    def gm(self) -> bool:
        return self.viewer.gm

    def bind_player(self, player: Player | None) -> None:
        """Take this connection for ``player`` (None: the GM), or follow a change of his record."""
        if player is None:
            self.viewer = Viewer(gm=True, participants=frozenset(), player=None)
            self.token_hash = None
        else:
            self.viewer = Viewer(False, frozenset(player.participants), player.name)
            self.token_hash = player.token_hash

    # --- messages ---

    def _parse(
        self, frame: str | bytes, rules: RulesSnapshot | None = None
    ) -> ClientMessage | Sent:
        """The message ``frame`` holds, validated; raises ProtocolError naming what is wrong.

        A request read by the fast path comes as :class:`~arbiter.bridge.reading.Sent` (its body
        validated by the request type's model of ``rules``); by the slow path, as the message
        alone (its body validated when it is decided).
        """
        limits = self.server.config.limits
        if isinstance(frame, bytes):
            raise ProtocolError("binary_frame", "binary frames are not accepted: send JSON text")
        # A character is at most 4 bytes in UTF-8: only count bytes when it could matter.
        if len(frame) * 4 > limits.max_message_bytes:
            size = len(frame.encode("utf-8", "surrogatepass"))
            if size > limits.max_message_bytes:
                raise ProtocolError(
                    "too_large",
                    f"message of {size} bytes is over the limit of {limits.max_message_bytes}",
                )
        # Fast path: parse and validate in one pass, request bodies included (arbiter.bridge.reading).
        # Anything it refuses takes the slow path, which names the problem precisely.
        # Bodies the reader keeps are shared by the GM's connections, a player's are his own;
        # a connection before its hello keeps none (anybody may open one).
        viewer = self.viewer
        keeper: Hashable = None if viewer.gm else (viewer.player or NOT_KEPT)
        read = (rules or self.server.rules).reader.read(frame, keeper)
        if read is not None:
            return read
        return parse_client(decode(frame))

    def _recall(self, frame: str | bytes, recall: Recall) -> str | Recall:
        """``recall``, the answer to ``frame``, counted among this connection's read-backs; or
        refused when too many wait."""
        if self.recalls >= MAX_RECALLS:
            # Each read holds the world's replies behind it: a connection may not queue
            # many (nothing is decided; the resend is answered once retried).
            return encode(self._rate_limited(frame, RECALL_RETRY, recalls=True))
        self.recalls += 1
        return recall._replace(settled=self._recall_settled)

    def _recall_settled(self) -> None:
        self.recalls -= 1

    def _redo(
        self, frame: str | bytes, message: ClientMessage | Sent, rules: RulesSnapshot
    ) -> Redone:
        """The answer to a message again, now that its logged row was read back (the group
        commit calls it in the step the read returned: the store's ``find`` sees the row, or
        knows there is none), with the row of the outcome it carries and its failure reply."""
        self.outcome_row = None
        self.on_commit_failure = None
        reply = self._answer(frame, message, rules)
        if isinstance(reply, Recall):  # let go again already: say so, never decide it
            return encode(commit_failed(reply.request_id)), None, None
        return reply, self.outcome_row, self.on_commit_failure

    def _answer(
        self, frame: str | bytes, message: ClientMessage | Sent | None, rules: RulesSnapshot
    ) -> str | bytes | Recall:
        try:
            if message is None:
                message = self._parse(frame, rules)
            if type(message) is Sent:
                # The usual message (a request the fast path read): straight to its path.
                return request(self, message, rules)
            return self._dispatch(message, rules)
        except ProtocolError as err:
            return encode(err.reply())
        except RowNotCached as missing:
            # The id is logged, its row is in the database only: never decided again, its
            # stored outcome is answered once read back, in this reply's turn.
            assert message is not None  # the store is read only once the message is parsed
            return Recall(missing.request_id, functools.partial(self._redo, frame, message, rules))
        except UnstorableText as err:
            # PostgreSQL's text holds no NUL: refused alone, before it joins a group commit.
            bad_id = guess_id(decode(frame)) if isinstance(frame, str) else None
            return encode(ErrorMessage(id=bad_id, code="invalid_message", message=str(err)))
        except sqlite3.Error as err:
            # The store failed (a full disk): say so, once per failure in the log.
            self.server.failures.report(f"session {self.id}: the roll log failed", err)
            if isinstance(message, Sent):
                message = message.message
            if isinstance(message, RequestMessage):
                rid: str | None = message.request.id
            else:
                rid = getattr(message, "id", None)  # a bind's or a ping's id
            return encode(commit_failed(rid))
        except Exception:
            # A bug must cost one error reply, never the connection.
            log.exception("session %s: unexpected failure", self.id)
            return INTERNAL_ERROR

    def _rate_limited(self, frame: str | bytes, wait: float, recalls: bool = False) -> ErrorMessage:
        ident = None
        limits = self.server.config.limits
        if isinstance(frame, str) and len(frame) <= limits.max_message_bytes:
            try:
                ident = guess_id(decode(frame))
            except ProtocolError:
                ident = None
        message = (
            f"too fast: at most {MAX_RECALLS} resends of old requests (whose rows are read "
            f"back from the database) waiting at once; retry after {wait:.3f} s"
            if recalls
            else f"too fast: at most {limits.rate_per_second:g} messages a second "
            f"(bursts of {limits.burst}); retry after {wait:.3f} s"
        )
        return ErrorMessage(
            id=ident,
            code="rate_limited",
            message=message,
            retry_after=round(wait, 3),
        )

    def _dispatch(self, message: ClientMessage | Sent, rules: RulesSnapshot) -> str | bytes:
        if isinstance(message, (Sent, RequestMessage)):  # a tuple: no union object built per call
            return request(self, message, rules)
        if isinstance(message, Ping):
            return encode(Pong(id=message.id))
        if isinstance(message, Subscribe):
            self.events = frozenset(message.events)
            self.server.subscribed(self)
            return encode(Pong(id=message.id))
        if isinstance(message, Bind):
            return self._bind(message)
        if isinstance(message, Check):
            return checked(message, self.server.rules.models).model_dump_json()
        if isinstance(message, VaultMessage):
            return self._vault(message)
        raise ProtocolError("already_authenticated", "this connection has already said hello")

    def _bind(self, message: Bind) -> str:
        if not self.viewer.gm:
            raise ProtocolError("forbidden", "only a GM connection may bind players", message.id)
        try:
            players.bind(self.server.store, message.player, message.participants, time.time())
        except ValueError as err:
            raise ProtocolError("invalid_message", str(err), message.id) from None
        self.on_commit_failure = ErrorMessage(
            id=message.id,
            code="internal",
            message="the player record could not be written; retry the bind",
        )
        self.server.players_changed()
        return encode(Pong(id=message.id))

    def _vault(self, message: VaultMessage) -> str:
        """A stat-block vault message (arbiter.bridge.stat_block_vault); a write's answer
        waits for the commit, as a bind's does."""
        if not isinstance(message, GetStatBlock | ListStatBlocks):
            self.on_commit_failure = ErrorMessage(
                id=message.id,
                code="internal",
                message="the stat block could not be written; send it again",
            )
        answer = self.server.vault.handle(message, self.viewer, self.server.rules.models)
        return encode(answer)


__all__ = [
    "CLOSE_AUTH_FAILED",
    "CLOSE_AUTH_TIMEOUT",
    "CLOSE_REVOKED",
    "CLOSE_STALE",
    "INTERNAL_ERROR",
    "RECALL_RETRY",
    "ClientSession",
    "commit_failed",
]
