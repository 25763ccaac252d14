"""A connection's hello: who it is, its session recorded, and its welcome.

:func:`authenticate` reads hellos until one is welcomed: the first message must be a ``hello``
within ``auth_timeout_seconds`` carrying the world secret (the GM) or a player token (that
player, holding his participants), else the connection is closed (4001 bad hello, 1008
timeout). What the hello says of its role and participants never counts: only the token does.
A good hello the store cannot record (a full disk) is answered ``unavailable`` and the
connection stays up for another. The session's row is durable before the welcome promises its
seed commitment. The rest of a connection is :class:`arbiter.bridge.session.ClientSession`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
import sqlite3
import time
import uuid
from typing import TYPE_CHECKING

from websockets.exceptions import ConnectionClosed

from arbiter.bridge import players
from arbiter.bridge.awaiting_commit import CommitFailed
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.failures import UNAVAILABLE_HELLO
from arbiter.bridge.protocol import ErrorMessage, Hello, Welcome, You
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.records import Player
from arbiter.bridge.store import Session
from arbiter.bridge.stores import UnstorableText

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession

CLOSE_AUTH_FAILED = 4001
CLOSE_AUTH_TIMEOUT = 1008
CLOSE_STALE = 4009
"""This server no longer owns the world: another writer committed to it (or claimed it), so it
serves it no more (docs/protocol.md, docs/scaling.md). Reconnect (to its owner)."""


async def authenticate(session: ClientSession) -> bool:
    """Read hellos until one is welcomed (True) or the connection is refused (False).

    A good hello the store cannot record (a full disk) is answered ``unavailable`` and the
    connection stays up for another hello.
    """
    while True:
        hello = None if session.server.stale is not None else await _hello(session)
        if session.server.stale is not None:
            # Another writer owns the world (arbiter.bridge.committing): serve nothing.
            await session.ws.close(CLOSE_STALE, "this server no longer owns the world")
            return False
        if hello is None:
            return False
        if await _open(session, *hello):
            return True


async def _hello(session: ClientSession) -> tuple[Hello, Player | None] | None:
    """The next message if it is a good hello, with the player its token names (None: the
    GM); otherwise refuse the connection (None)."""
    limits = session.server.config.limits
    try:
        async with asyncio.timeout(limits.auth_timeout_seconds):
            frame = await session.ws.recv()
    except TimeoutError:
        await session.ws.close(
            CLOSE_AUTH_TIMEOUT, f"no hello within {limits.auth_timeout_seconds:g} s"
        )
        return None
    except ConnectionClosed:
        return None
    try:
        read = session._parse(frame)
        message = read.message if isinstance(read, Sent) else read
        if not isinstance(message, Hello):
            raise ProtocolError(
                "unauthorized", f"the first message must be a hello, not {message.type!r}"
            )
        player = _identify(session, message.token)
    except ProtocolError as err:
        try:
            await session.ws.send(encode(err.reply()))
            await session.ws.close(CLOSE_AUTH_FAILED, "authentication failed")
        except ConnectionClosed:
            pass
        return None
    return message, player


async def _open(session: ClientSession, hello: Hello, player: Player | None) -> bool:
    """Record the session and welcome it; False when the store failed or the client left."""
    try:
        _welcome(session, hello, player)
        # The welcome promises a seed commitment the log keeps: make it durable first.
        await session.server.committed()
    except UnstorableText as err:
        with contextlib.suppress(ConnectionClosed):
            await session.ws.send(
                encode(ErrorMessage(id=None, code="invalid_message", message=str(err)))
            )
        return False
    except (sqlite3.Error, CommitFailed) as err:
        session.server.failures.report(f"session {session.id}: the hello could not be logged", err)
        # Another hello opens another session: this one's row may have landed although
        # its commit reported a failure (PostgreSQL), and its seed was never promised.
        session.id, session.seed = uuid.uuid4().hex, secrets.token_bytes(32)
        session.keyed = KeyedSource(session.seed)
        with contextlib.suppress(ConnectionClosed):
            await session.ws.send(
                encode(ErrorMessage(id=None, code="unavailable", message=UNAVAILABLE_HELLO))
            )
        return False
    try:
        await session.ws.send(encode(_welcome_message(session)))
    except ConnectionClosed:
        session.server.leave(session)
        return False
    return True


def _identify(session: ClientSession, token: str) -> Player | None:
    """The player ``token`` belongs to, None for the world secret (the GM); else refused.

    What the hello says of its role and participants never counts: only the token does.
    """
    secret = session.server.secret
    if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), secret.encode()):
        return None
    player = players.by_token(session.server.store, token)
    if player is None:
        raise ProtocolError(
            "unauthorized",
            "wrong world secret or player token, or a revoked one (see `arbiter token` on "
            "the server)",
        )
    return player


def _welcome(session: ClientSession, hello: Hello, player: Player | None) -> None:
    client = hello.client
    session.bind_player(player)
    session.user = player.name if player is not None else client.user or client.name
    session.events = frozenset(hello.events)
    session.since = hello.since
    session.head = session.server.commits.head
    session.server.store.open_session(
        Session(
            id=session.id,
            seed=session.seed.hex(),
            commitment=KeyedSource.commitment(session.seed),
            user=session.user,
            client=client.model_dump_json(),
            started=time.time(),
            ended=None,
        )
    )


def _welcome_message(session: ClientSession) -> Welcome:
    server = session.server
    return Welcome(
        session=session.id,
        commitment=KeyedSource.commitment(session.seed),
        rulesets=server.rules.info(),
        server=server.server_info,
        limits=server.limits_info,
        scripted_dice=server.config.allow_scripted_dice,
        head=session.head,
        you=You(
            player=session.viewer.player,
            gm=session.viewer.gm,
            participants=sorted(session.viewer.participants),
        ),
        players=(
            {p.name: list(p.participants) for p in server.store.players() if p.active}
            if session.viewer.gm
            else None
        ),
    )


__all__ = ["CLOSE_AUTH_FAILED", "CLOSE_AUTH_TIMEOUT", "CLOSE_STALE", "authenticate"]
