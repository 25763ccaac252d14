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
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import logging
import secrets
import sqlite3
import time
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from arbiter.bridge import players
from arbiter.bridge.authority import authorize
from arbiter.bridge.checking import Check, checked
from arbiter.bridge.committing import MAX_RECALLS, CommitFailed, Recall, Redone
from arbiter.bridge.connection import Connection
from arbiter.bridge.deciding import Context, admitted, decide
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.failures import UNAVAILABLE, UNAVAILABLE_HELLO
from arbiter.bridge.gap_replay import missed, older, unreadable
from arbiter.bridge.limits import TokenBucket
from arbiter.bridge.outbox import Outbox
from arbiter.bridge.protocol import (
    Bind,
    ClientMessage,
    ErrorMessage,
    EventName,
    Hello,
    Ping,
    Pong,
    ProtocolError,
    RequestMessage,
    Subscribe,
    Welcome,
    You,
    decode,
    encode,
    guess_id,
    outcome_message_bytes,
    parse_client,
)
from arbiter.bridge.reading import Sent
from arbiter.bridge.records import Player, Roll
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.store import Session
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

CLOSE_AUTH_FAILED = 4001
CLOSE_AUTH_TIMEOUT = 1008
CLOSE_REVOKED = 4003
CLOSE_STALE = 4009
"""This server no longer owns the world: another writer committed to it (or claimed it), so it
serves it no more (docs/protocol.md, docs/scaling.md). Reconnect (to its owner)."""


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
        loop = asyncio.get_running_loop()
        self.bucket = TokenBucket(limits.rate_per_second, limits.burst, loop.time())
        self.recalls = 0
        """This connection's resends waiting for their rows to be read back (at most
        :data:`~arbiter.bridge.committing.MAX_RECALLS`)."""

    # --- lifecycle ---

    async def run(self) -> None:
        """Serve the connection until it closes."""
        if not await self._authenticate():
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
            # (fragmented messages, those queued before this line), in the order they came.
            self.ws.on_message = self.receive
        try:
            async for frame in self.ws:
                self.receive(frame)
        except ConnectionClosed:
            pass
        finally:
            if isinstance(self.ws, Connection):
                self.ws.on_message = None  # a session that left decides nothing more
            self.server.leave(self)

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
        """Handle one message of an authenticated connection; its answer follows the commit."""
        if self.outbox.dropped or self.server.stale is not None:
            # Dropped for not reading (close 4008), or the world is lost (4009): decide
            # nothing more for it, but read on, so its reply to the close gets through.
            return
        self.outcome_row = None
        self.on_commit_failure = None
        reply = self.handle(frame)
        # An outcome may rest on rows not yet committed: the server sends it once they are,
        # and never an outcome whose row did not make it to disk. Nothing waits here (no
        # future, no wake-up per message); replies keep their order.
        self.server.answer(self, reply, self.outcome_row, self.on_commit_failure)

    async def _authenticate(self) -> bool:
        """Read hellos until one is welcomed (True) or the connection is refused (False).

        A good hello the store cannot record (a full disk) is answered ``unavailable`` and the
        connection stays up for another hello.
        """
        while True:
            hello = None if self.server.stale is not None else await self._hello()
            if self.server.stale is not None:
                # Another writer owns the world (arbiter.bridge.committing): serve nothing.
                await self.ws.close(CLOSE_STALE, "this server no longer owns the world")
                return False
            if hello is None:
                return False
            if await self._open(*hello):
                return True

    async def _hello(self) -> tuple[Hello, Player | None] | None:
        """The next message if it is a good hello, with the player its token names (None: the
        GM); otherwise refuse the connection (None)."""
        limits = self.server.config.limits
        try:
            frame = await asyncio.wait_for(self.ws.recv(), limits.auth_timeout_seconds)
        except TimeoutError:
            await self.ws.close(
                CLOSE_AUTH_TIMEOUT, f"no hello within {limits.auth_timeout_seconds:g} s"
            )
            return None
        except ConnectionClosed:
            return None
        try:
            read = self._parse(frame)
            message = read.message if isinstance(read, Sent) else read
            if not isinstance(message, Hello):
                raise ProtocolError(
                    "unauthorized", f"the first message must be a hello, not {message.type!r}"
                )
            player = self._identify(message.token)
        except ProtocolError as err:
            try:
                await self.ws.send(encode(err.reply()))
                await self.ws.close(CLOSE_AUTH_FAILED, "authentication failed")
            except ConnectionClosed:
                pass
            return None
        return message, player

    async def _open(self, hello: Hello, player: Player | None) -> bool:
        """Record the session and welcome it; False when the store failed or the client left."""
        try:
            self._welcome(hello, player)
            # The welcome promises a seed commitment the log keeps: make it durable first.
            await self.server.committed()
        except UnstorableText as err:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(
                    encode(ErrorMessage(id=None, code="invalid_message", message=str(err)))
                )
            return False
        except (sqlite3.Error, CommitFailed) as err:
            self.server.failures.report(f"session {self.id}: the hello could not be logged", err)
            # Another hello opens another session: this one's row may have landed although
            # its commit reported a failure (PostgreSQL), and its seed was never promised.
            self.id, self.seed = uuid.uuid4().hex, secrets.token_bytes(32)
            self.keyed = KeyedSource(self.seed)
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(
                    encode(ErrorMessage(id=None, code="unavailable", message=UNAVAILABLE_HELLO))
                )
            return False
        try:
            await self.ws.send(encode(self._welcome_message()))
        except ConnectionClosed:
            self.server.leave(self)
            return False
        return True

    def _identify(self, token: str) -> Player | None:
        """The player ``token`` belongs to, None for the world secret (the GM); else refused.

        What the hello says of its role and participants never counts: only the token does.
        """
        secret = self.server.secret
        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), secret.encode()):
            return None
        player = players.by_token(self.server.store, token)
        if player is None:
            raise ProtocolError(
                "unauthorized",
                "wrong world secret or player token, or a revoked one (see `arbiter token` on "
                "the server)",
            )
        return player

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

    def _welcome(self, hello: Hello, player: Player | None) -> None:
        client = hello.client
        self.bind_player(player)
        self.user = player.name if player is not None else client.user or client.name
        self.events = frozenset(hello.events)
        self.since = hello.since
        self.head = self.server.commits.head
        self.server.store.open_session(
            Session(
                id=self.id,
                seed=self.seed.hex(),
                commitment=KeyedSource.commitment(self.seed),
                user=self.user,
                client=client.model_dump_json(),
                started=time.time(),
                ended=None,
            )
        )

    def _welcome_message(self) -> Welcome:
        server = self.server
        return Welcome(
            session=self.id,
            commitment=KeyedSource.commitment(self.seed),
            rulesets=server.rules.info(),
            server=server.server_info,
            limits=server.limits_info,
            scripted_dice=server.config.allow_scripted_dice,
            head=self.head,
            you=You(
                player=self.viewer.player,
                gm=self.viewer.gm,
                participants=sorted(self.viewer.participants),
            ),
            players=(
                {p.name: list(p.participants) for p in server.store.players() if p.active}
                if self.viewer.gm
                else None
            ),
        )

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
        read = (rules or self.server.rules).reader.read(frame)
        if read is not None:
            return read
        return parse_client(decode(frame))

    def handle(self, frame: str | bytes) -> str | bytes | Recall:
        """The answer to one frame (JSON text; bytes: UTF-8 JSON text); decides requests
        synchronously (see deciding). A resend of an id whose row the store does not hold in
        memory is answered :class:`~arbiter.bridge.committing.Recall`: the group commit reads
        the row back and answers it again (:meth:`_redo`)."""
        wait = self.bucket.take(asyncio.get_running_loop().time())
        if wait:
            return encode(self._rate_limited(frame, wait))
        # One snapshot reads and decides the message.
        reply = self._answer(frame, None, self.server.rules)
        if isinstance(reply, Recall):
            if self.recalls >= MAX_RECALLS:
                # Each read holds the world's replies behind it: a connection may not queue
                # many (nothing is decided; the resend is answered once retried).
                return encode(self._rate_limited(frame, RECALL_RETRY, recalls=True))
            self.recalls += 1
            return reply._replace(settled=self._recall_settled)
        return reply

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
            return self._request(message, rules)
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

    def _relayed(self, message: RequestMessage) -> Viewer:
        """The viewer a request is decided for: this connection's, or the relayed player's."""
        name = message.player
        if name is None:
            return self.viewer
        rid = message.request.id
        if not self.viewer.gm:
            raise ProtocolError("forbidden", "only a GM connection may relay for a player", rid)
        record = self.server.store.player(name)
        if record is None or not record.active:
            raise ProtocolError(
                "unknown_player",
                f"no active player {name!r}: `arbiter token --players` lists them; a GM "
                "connection adds one with bind",
                rid,
            )
        return Viewer(False, frozenset(record.participants), record.name)

    def _request(self, read: RequestMessage | Sent, rules: RulesSnapshot) -> str | bytes:
        server = self.server
        message = read.message if isinstance(read, Sent) else read
        viewer = self._relayed(message)
        request = message.request
        served = rules.served.get(request.ruleset)
        model = served.engine.requests.get(request.type) if served is not None else None
        # Before the idempotency lookup, the encounter and any die: the refusal depends on
        # nothing but the request as sent and who sent it.
        if not viewer.gm:  # the GM may send anything
            body = read.request["body"] if isinstance(read, Sent) else request.body
            authorize(request, model, viewer, body)
        ctx = self._context
        if ctx is None:
            # Who asks and under which limits does not change once the hello is done.
            ctx = self._context = Context(
                session=self.id,
                user=self.user,
                keyed=self.keyed,
                allow_scripted_dice=server.config.allow_scripted_dice,
                max_dice=server.config.limits.max_dice_per_request,
                player=self.viewer.player,
            )
        if viewer is not self.viewer:
            # ``user`` is the log's text for people; ``player`` says whose the row is.
            ctx = replace(
                ctx, user=f"{viewer.player} (relayed by {self.user})", player=viewer.player
            )
        # References to the GM's stored stat blocks become the blocks (the log keeps those).
        resolved = server.vault.resolve(
            read,
            viewer,
            lambda m: admitted(m, rules, server.store, ctx.allow_scripted_dice),
            rules,
        )
        try:
            decided = decide(
                resolved.read, rules, server.store, ctx, time.time(), resolved.unlogged
            )
        except ProtocolError as err:
            raise resolved.error(err) from None
        self.outcome_row = (message.request.id, decided.row.hash)
        if decided.refusal is not None:
            # Refused after dice: the refusal is the id's logged outcome. The error goes out
            # once its row is durable, and again on every resend; nobody else is told.
            code, why = resolved.refusal(decided.refusal)
            return encode(ProtocolError(code, why, message.request.id).reply())
        seq, text = decided.row.seq, decided.text
        if not decided.replayed:
            # Tell the other listeners once the row is durable. Even when nobody else listens
            # now: one may join before the commit, and only this event brings it the row
            # (arbiter.bridge.gap_replay); publishing skips a lone listener's own outcomes.
            server.announce(seq, text, origin=self, row=self.outcome_row)
        return outcome_message_bytes(seq, decided.replayed, text.shown_bytes(viewer))
