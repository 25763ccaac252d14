"""Bounded sending: a connection that stops reading is dropped, never buffered without end.

``websockets``' :func:`~websockets.asyncio.server.broadcast` writes whatever the state of the
connection's buffer ("there's no backpressure"), and its keepalive ping waits behind a full
buffer, so a subscriber that stops reading would grow the server's memory for as long as
others play. ``send()`` applies backpressure instead, but then the sender waits on the slowest
reader. Neither is what a server of many tables wants, so every frame after the hello goes
through an :class:`Outbox`:

* a frame is written at once (no waiting on the reader), unless the connection already holds
  more than ``limit`` unsent bytes;
* a connection over ``limit`` after a write is **dropped**: closed with code 4008
  (:data:`CLOSE_TOO_SLOW`, "too slow: stopped reading"); the close frame waits behind what is
  already buffered, so if the peer has not read up to it within ``close_timeout`` seconds the
  transport is aborted. Nothing more is written to it meanwhile.

So a connection never holds more than ``limit`` plus one frame in the server's memory (the
kernel's socket buffers aside). The server also gives websockets ``write_limit=limit``: its own
writes (the keepalive ping, the close frame) then only wait once a connection is over the
limit, which it no longer stays.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

log = logging.getLogger("arbiter.outbox")

CLOSE_TOO_SLOW = 4008
"""Close code of a connection dropped for not reading what it was sent (see docs/protocol.md)."""
TOO_SLOW_REASON = "too slow: stopped reading"


class Outbox:
    """The writing side of one connection, bounded to ``limit`` unsent bytes."""

    def __init__(
        self,
        ws: ServerConnection,
        limit: int,
        close_timeout: float,
        on_drop: Callable[[], None] | None = None,
    ) -> None:
        """``on_drop`` is called once, when the connection is dropped (the server counts them)."""
        self.ws = ws
        self.limit = limit
        self.close_timeout = close_timeout
        self._on_drop = on_drop
        self.dropped = False
        """True once the connection was dropped for being too slow (nothing is sent after)."""
        self._closing: asyncio.Task[None] | None = None

    def unsent(self) -> int:
        """Bytes written to the connection that the peer has not taken yet (kernel aside)."""
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def send(self, text: str) -> bool:
        """Write ``text`` as one frame without waiting; False when it was not written.

        Not written when the connection is closing or was dropped, or is over the limit already
        (then it is dropped now). Written, it may put the connection over the limit: it is then
        dropped, the frame staying queued ahead of the close.
        """
        if self.dropped or self.ws.state is not State.OPEN:
            return False
        if self.unsent() > self.limit:
            self.drop()
            return False
        broadcast([self.ws], text)
        if self.unsent() > self.limit:
            self.drop()
        return True

    def drop(self) -> None:
        """Close with 4008 and abort the transport if the close is not through in time."""
        if self.dropped:
            return
        self.dropped = True
        log.warning(
            "connection %s dropped: %d bytes unsent (limit %d); it stopped reading",
            self.ws.id,
            self.unsent(),
            self.limit,
        )
        self._closing = asyncio.get_running_loop().create_task(
            self._close(), name=f"drop-{self.ws.id}"
        )
        if self._on_drop is not None:
            self._on_drop()

    def abort(self) -> None:
        """Abort a dropped connection now (server shutdown: no waiting on its close)."""
        if self.dropped and self.ws.transport is not None:
            self.ws.transport.abort()

    async def _close(self) -> None:
        try:
            # close() queues the close frame behind the unsent bytes, then waits for the
            # buffer to drain: with a peer that never reads, forever, hence the timeout.
            await asyncio.wait_for(
                self.ws.close(CLOSE_TOO_SLOW, TOO_SLOW_REASON), self.close_timeout
            )
        except TimeoutError:
            self.ws.transport.abort()
