"""The benchmarks' client connection: ``websockets``' own, which skips outcome events unparsed.

Why. With 100 connections all subscribed to outcome events, every request is followed by 99
events (one to every other connection, ~1.2 KB each). ``websockets``' client parses each of them
(its generator-based frame parser, a frame object, the UTF-8 decode, the queue ``recv()`` reads,
a wake-up of the waiting task) only for the benchmark's loop to look at its first bytes and throw
it away: about 1.1 ms of the client process's CPU per request, seven times its work per request
unsubscribed (issue #16, ``bridge_syscalls.py arbiter --connections 100 [--subscribed]`` with
the client's own CPU read: 3.7 s for 3,300 requests subscribed, 0.5 s unsubscribed). The single
client process was then the bottleneck of the ``arbiter-sub`` figures (about 300 requests a
second, the server using a fraction of a core), so those figures measured the client, not the
server; and since the server's event batches flush on a timer, a client that could not keep up
also raised the server's CPU per request (437-467 us against 260 us with this client, the same
minutes: more, smaller event writes per request).

What it does instead. :class:`EventSkippingClient` is the same ``websockets`` client connection
(same handshake, same sending, same ``recv()``), except that the bytes read from the socket are
cut into frames here first (RFC 6455 section 5.2; a server's frames are unmasked) and every whole
final text frame whose payload starts with ``{"v":1,"type":"event"`` is counted
(:attr:`EventSkippingClient.events_skipped`) and dropped before ``websockets`` sees it; every
other frame (replies, control frames) goes to ``websockets`` whole, in order, as it came.

Fair to every server: every benchmark connection is one (:func:`open_client`), whichever server
it talks to: the bare and the durable echo send no events, so for them (and for Arbiter's
unsubscribed connections) the client's work per reply grows by the look at each frame's first
bytes and nothing else. Only the work of skipping events is saved, which is not the server's.
"""

from __future__ import annotations

from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.protocol import OPEN

from arbiter.bridge.frame_bounds import between_frames

EVENT_PREFIX = b'{"v":1,"type":"event"'
"""How every event frame of Arbiter's starts (its compact JSON): such frames are skipped."""


class EventSkippingClient(ClientConnection):
    """A client connection that drops event frames unparsed (see the module's doc)."""

    events_skipped = 0
    """Event frames dropped so far on this connection."""

    _pending: bytes = b""
    """Bytes read that do not make a whole frame yet (once :attr:`_synced`)."""

    _synced = False
    """True once the bytes read are cut into frames here (``websockets``' parser then only
    ever gets whole frames, so it always waits between two)."""

    def data_received(self, data: bytes) -> None:
        if not self._synced:
            if self.protocol.state is not OPEN or not between_frames(self.protocol):
                super().data_received(data)
                return
            self._synced = True
        buffer = self._pending + data if self._pending else data
        end = len(buffer)
        at = 0
        kept: list[bytes] = []
        keep_from = 0
        while end - at >= 2:
            second = buffer[at + 1]
            length = second & 0x7F
            head = 2
            if second & 0x80:
                # A masked frame from a server is a protocol error: websockets says so.
                at = end
                break
            if length == 126:
                if end - at < 4:
                    break
                length = int.from_bytes(buffer[at + 2 : at + 4])
                head = 4
            elif length == 127:
                if end - at < 10:
                    break
                length = int.from_bytes(buffer[at + 2 : at + 10])
                head = 10
            stop = at + head + length
            if stop > end:
                break
            if buffer[at] == 0x81 and buffer.startswith(EVENT_PREFIX, at + head, stop):
                if keep_from < at:
                    kept.append(buffer[keep_from:at])
                keep_from = stop
                self.events_skipped += 1
            at = stop
        if keep_from < at:
            kept.append(buffer[keep_from:at])
        self._pending = buffer[at:]
        if kept:
            super().data_received(kept[0] if len(kept) == 1 else b"".join(kept))


async def open_client(url: str, **options: Any) -> EventSkippingClient:
    """Connect to ``url`` with :class:`EventSkippingClient` (``options``: ``connect``'s)."""
    ws = await connect(url, create_connection=EventSkippingClient, **options)
    assert isinstance(ws, EventSkippingClient)
    return ws


__all__ = ["EVENT_PREFIX", "EventSkippingClient", "open_client"]
