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

So a connection never holds more than ``limit`` plus one write in its transport (the kernel's
socket buffers aside), besides the events held for it (below).

Frames are written already framed (:func:`text_frame`): a server's frames are not masked, so
the bytes of one text frame are the same for every connection it goes to, and an outcome sent to
many connections (its events) is framed once. :meth:`Outbox.send_frames` writes several in one
write, and :meth:`Outbox.hold` keeps frames to go ahead of the next write (a listener's outcome
events, held by :mod:`arbiter.bridge.event_batches` until its next reply or the batches' flush:
one system call and one wake-up of the peer for many commits' events). The frames held count
toward no limit until they are written; the event batches keep them under their own bound
(``Limits.event_flush_bytes``), so a listener holds at most that plus ``limit`` plus one write.
The server also gives websockets ``write_limit=limit``: its own
writes (the keepalive ping, the close frame) then only wait once a connection is over the
limit, which it no longer stays.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Callable, Sequence

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import OPEN

log = logging.getLogger("arbiter.outbox")

CLOSE_TOO_SLOW = 4008
"""Close code of a connection dropped for not reading what it was sent (see docs/protocol.md)."""
TOO_SLOW_REASON = "too slow: stopped reading"


def text_frame(payload: bytes) -> bytes:
    """One unmasked, final text frame (RFC 6455 section 5.2) carrying ``payload`` (UTF-8 text):
    what websockets writes for ``send(text)`` on a server connection without extensions."""
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", 0x81, 126, size) + payload
    return struct.pack("!BBQ", 0x81, 127, size) + payload


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
        self._held: list[bytes] = []
        """Frames kept to go with the next write (:meth:`hold`)."""
        self.held_bytes = 0
        """The bytes of :attr:`_held` (bounded by whoever holds them: see
        :class:`arbiter.bridge.event_batches.EventBatches`)."""

    def unsent(self) -> int:
        """Bytes written to the connection that the peer has not taken yet (kernel aside)."""
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None else 0

    def send(self, text: str | bytes) -> bool:
        """Write ``text`` (bytes: UTF-8 text) as one text frame without waiting; False when it
        was not written.

        Not written when the connection is closing or was dropped, or is over the limit already
        (then it is dropped now). Written, it may put the connection over the limit: it is then
        dropped, the frame staying queued ahead of the close.
        """
        payload = text.encode() if isinstance(text, str) else text
        return self.send_frames((text_frame(payload),))

    def send_frames(self, frames: Sequence[bytes]) -> bool:
        """Write text frames already framed (:func:`text_frame`) in one write, as :meth:`send`
        writes one; the frames held (:meth:`hold`) go first, in the same write."""
        if self._held:
            frames = [*self._held, *frames]
            self._held = []
            self.held_bytes = 0
        ws = self.ws
        protocol = ws.protocol
        if self.dropped or protocol.state is not OPEN or not frames:
            return False
        transport = ws.transport
        if transport.get_write_buffer_size() > self.limit:
            self.drop()
            return False
        if protocol.extensions or protocol.writes or ws.fragmented_send_waiter is not None:
            # Not the plain case the frames were made for: let websockets frame them. A held
            # chunk may carry several frames (one commit's events, joined once for everybody).
            for chunk in frames:
                for payload in _payloads(chunk):
                    broadcast([ws], payload.decode())
        else:
            transport.write(frames[0] if len(frames) == 1 else b"".join(frames))
        if transport.get_write_buffer_size() > self.limit:
            self.drop()
        return True

    def hold(self, frames: Sequence[bytes], size: int | None = None) -> bool:
        """Keep ``frames`` to go ahead of the next frames sent, in the same write (one system
        call, one wake-up of the peer, for a listener's events and the reply that follows
        them); :meth:`release` writes them alone. ``size``: their bytes, when the caller knows
        them. False (nothing kept) when the connection is closing or was dropped."""
        if self.dropped or self.ws.protocol.state is not OPEN:
            return False
        self._held += frames
        self.held_bytes += sum(map(len, frames)) if size is None else size
        return True

    def release(self, joined: dict[tuple[bytes, ...], bytes] | None = None) -> None:
        """Write the frames still held (:meth:`hold`), if any.

        ``joined``: the bytes of frame sequences already joined for other connections, by
        sequence (their content: a sequence equal to another's is the very same bytes, so
        nothing one connection may not see can reach it this way); this connection's
        sequence is looked up there and added, so connections holding the same events since
        the last flush share one copy of them instead of a copy each."""
        held = self._held
        if not held:
            return
        if joined is not None and len(held) > 1:
            key = tuple(held)
            data = joined.get(key)
            if data is None:
                if len(joined) >= _JOINED_KEPT:
                    joined.clear()  # a bound on what the cache keeps alive during one flush
                data = joined[key] = b"".join(key)
            self._held = [data]
        self.send_frames(())

    def drop(self) -> None:
        """Close with 4008 and abort the transport if the close is not through in time."""
        if self.dropped:
            return
        self.dropped = True
        self._held = []  # nothing more is written to it: the frames held go nowhere
        self.held_bytes = 0
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
            async with asyncio.timeout(self.close_timeout):
                await self.ws.close(CLOSE_TOO_SLOW, TOO_SLOW_REASON)
        except TimeoutError:
            self.ws.transport.abort()


_JOINED_KEPT = 16
"""At most this many joined sequences are kept by one flush (:meth:`Outbox.release`)."""


def _payload(frame: bytes) -> bytes:
    """The payload of a frame made by :func:`text_frame`."""
    size = frame[1]
    return frame[2 + (2 if size == 126 else 8 if size == 127 else 0) :]


def _payloads(chunk: bytes) -> list[bytes]:
    """The payloads of the frames made by :func:`text_frame` that ``chunk`` holds end to end."""
    payloads = []
    at = 0
    while at < len(chunk):
        size = chunk[at + 1]
        head = 2
        if size == 126:
            size, head = struct.unpack_from("!H", chunk, at + 2)[0], 4
        elif size == 127:
            size, head = struct.unpack_from("!Q", chunk, at + 2)[0], 10
        payloads.append(bytes(chunk[at + head : at + head + size]))
        at += head + size
    return payloads
