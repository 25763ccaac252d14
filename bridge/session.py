"""One client connection: authenticate, then answer every message until the client leaves.

Each connection runs in the task ``websockets`` gives its handler. The first message must be a
``hello`` carrying the world secret within ``auth_timeout_seconds``: otherwise the connection is
closed (4001 bad hello, 1008 timeout). After that every message gets exactly one answer, an error
included, and the connection stays up whatever the client sends (frames over the websocket size
limit excepted: the websocket layer closes those with 1009). A client that stops reading what it
is sent (replies and events) is dropped with 4008 once over its send buffer (``bridge.outbox``).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import secrets
import sqlite3
import time
import uuid
from typing import TYPE_CHECKING

from pydantic import ValidationError
from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from bridge.deciding import Context, decide
from bridge.engine.dice import KeyedSource
from bridge.failures import UNAVAILABLE, UNAVAILABLE_HELLO
from bridge.limits import TokenBucket
from bridge.outbox import Outbox
from bridge.outcomes import OutcomeText
from bridge.protocol import (
    CLIENT_MESSAGE,
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
    decode,
    encode,
    guess_id,
    outcome_event_text,
    outcome_message_text,
    parse_client,
)
from bridge.store import Session

if TYPE_CHECKING:
    from bridge.server import ArbiterServer

log = logging.getLogger("arbiter.session")

INTERNAL_ERROR = encode(
    ErrorMessage(id=None, code="internal", message="the server failed on this message")
)


def commit_failed(request_id: str | None) -> ErrorMessage:
    """The answer to a request the store could not log (a full disk): nothing was decided."""
    return ErrorMessage(id=request_id, code="unavailable", message=UNAVAILABLE)


CLOSE_AUTH_FAILED = 4001
CLOSE_AUTH_TIMEOUT = 1008


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
        self.gm = False
        self.participants: frozenset[str] = frozenset()
        self.events: frozenset[EventName] = frozenset()
        self._context: Context | None = None
        self.outcome_id: str | None = None
        """The request id of the outcome the current reply carries (None: not an outcome)."""
        loop = asyncio.get_running_loop()
        self.bucket = TokenBucket(limits.rate_per_second, limits.burst, loop.time())

    # --- lifecycle ---

    async def run(self) -> None:
        """Serve the connection until it closes."""
        if not await self._authenticate():
            return
        self.server.join(self)
        try:
            async for frame in self.ws:
                if self.outbox.dropped:
                    # Dropped for not reading (close 4008): decide nothing more for it, but read
                    # on, so its reply to the close gets through behind what it had sent.
                    continue
                self.outcome_id = None
                reply = self.handle(frame)
                # An outcome may rest on rows not yet committed: wait for them, and never send
                # an outcome whose row did not make it to disk.
                try:
                    await self.server.committed()
                except Exception:
                    if self.outcome_id is not None:
                        reply = encode(commit_failed(self.outcome_id))
                self.outbox.send(reply)
        except ConnectionClosed:
            pass
        finally:
            self.server.leave(self)

    async def _authenticate(self) -> bool:
        """Read hellos until one is welcomed (True) or the connection is refused (False).

        A good hello the store cannot record (a full disk) is answered ``unavailable`` and the
        connection stays up for another hello.
        """
        while True:
            hello = await self._hello()
            if hello is None:
                return False
            if await self._open(hello):
                return True

    async def _hello(self) -> Hello | None:
        """The next message if it is a good hello; otherwise refuse the connection (None)."""
        limits = self.server.config.limits
        try:
            frame = await asyncio.wait_for(self.ws.recv(), limits.auth_timeout_seconds)
        except TimeoutError:
            await self.ws.close(
                CLOSE_AUTH_TIMEOUT, f"no hello within {limits.auth_timeout_seconds:g} s"
            )
            return False
        except ConnectionClosed:
            return False
        try:
            message = self._parse(frame)
            if not isinstance(message, Hello):
                raise ProtocolError(
                    "unauthorized", f"the first message must be a hello, not {message.type!r}"
                )
            if not hmac.compare_digest(message.token.encode(), self.server.secret.encode()):
                raise ProtocolError(
                    "unauthorized", "wrong world secret (see `arbiter token` on the server)"
                )
        except ProtocolError as err:
            try:
                await self.ws.send(encode(err.reply()))
                await self.ws.close(CLOSE_AUTH_FAILED, "authentication failed")
            except ConnectionClosed:
                pass
            return None
        return message

    async def _open(self, hello: Hello) -> bool:
        """Record the session and welcome it; False when the store failed or the client left."""
        try:
            self._welcome(hello)
            # The welcome promises a seed commitment the log keeps: make it durable first.
            await self.server.committed()
        except sqlite3.Error as err:
            self.server.failures.report(f"session {self.id}: the hello could not be logged", err)
            try:
                await self.ws.send(
                    encode(ErrorMessage(id=None, code="unavailable", message=UNAVAILABLE_HELLO))
                )
            except ConnectionClosed:
                return False
            return False
        try:
            await self.ws.send(encode(self._welcome_message()))
        except ConnectionClosed:
            self.server.leave(self)
            return False
        return True

    def _welcome(self, hello: Hello) -> None:
        client = hello.client
        self.user = client.user or client.name
        self.gm = client.role == "gm"
        self.participants = frozenset(client.participants)
        self.events = frozenset(hello.events)
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
        )

    # --- messages ---

    def _parse(self, frame: str | bytes) -> ClientMessage:
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
        try:
            # Fast path: parse and validate in one pass. Anything it refuses takes the slow path,
            # which names the problem precisely.
            return CLIENT_MESSAGE.validate_json(frame, strict=True)
        except ValidationError:
            return parse_client(decode(frame))

    def handle(self, frame: str | bytes) -> str:
        """The answer to one frame (JSON text); decides requests synchronously (see deciding)."""
        wait = self.bucket.take(asyncio.get_running_loop().time())
        if wait:
            return encode(self._rate_limited(frame, wait))
        message: ClientMessage | None = None
        try:
            message = self._parse(frame)
            return self._dispatch(message)
        except ProtocolError as err:
            return encode(err.reply())
        except sqlite3.Error as err:
            # The store failed (a full disk): say so, once per failure in the log.
            self.server.failures.report(f"session {self.id}: the roll log failed", err)
            rid = message.request.id if isinstance(message, RequestMessage) else None
            return encode(commit_failed(rid))
        except Exception:
            # A bug must cost one error reply, never the connection.
            log.exception("session %s: unexpected failure", self.id)
            return INTERNAL_ERROR

    def _rate_limited(self, frame: str | bytes, wait: float) -> ErrorMessage:
        ident = None
        limits = self.server.config.limits
        if isinstance(frame, str) and len(frame) <= limits.max_message_bytes:
            try:
                ident = guess_id(decode(frame))
            except ProtocolError:
                ident = None
        return ErrorMessage(
            id=ident,
            code="rate_limited",
            message=f"too fast: at most {limits.rate_per_second:g} messages a second "
            f"(bursts of {limits.burst}); retry after {wait:.3f} s",
            retry_after=round(wait, 3),
        )

    def _dispatch(self, message: ClientMessage) -> str:
        if isinstance(message, RequestMessage):
            return self._request(message)
        if isinstance(message, Ping):
            return encode(Pong(id=message.id))
        if isinstance(message, Subscribe):
            self.events = frozenset(message.events)
            self.server.subscribed(self)
            return encode(Pong(id=message.id))
        raise ProtocolError("already_authenticated", "this connection has already said hello")

    def _request(self, message: RequestMessage) -> str:
        server = self.server
        ctx = self._context
        if ctx is None:
            # Who asks and under which limits does not change once the hello is done.
            ctx = self._context = Context(
                session=self.id,
                user=self.user,
                keyed=self.keyed,
                allow_scripted_dice=server.config.allow_scripted_dice,
                max_dice=server.config.limits.max_dice_per_request,
            )
        decided = decide(message, server.rules, server.store, ctx, time.time())
        self.outcome_id = message.request.id
        seq, text = decided.row.seq, decided.text
        if not decided.replayed and len(server.listeners) > (self in server.listeners):
            # Somebody else listens: tell them once the row is durable.
            server.after_commit(lambda: server.publish(seq, text, exclude=self))
        return outcome_message_text(seq, decided.replayed, text.shown(self.participants))

    def outcome_event(self, seq: int, outcome: OutcomeText) -> str | None:
        """The event text announcing another client's outcome, or None when not subscribed."""
        if "outcome" not in self.events:
            return None
        return outcome_event_text(seq, outcome.shown(self.participants))
