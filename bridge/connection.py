"""The server's websocket connection: whole messages handed straight to the session.

``websockets``' asyncio connection puts every incoming data frame in a queue (its assembler),
wakes the task waiting in ``recv()``, and that task takes the frame out again: a future, a task
wake-up and five coroutine frames resumed per message. An authenticated
:class:`~arbiter.bridge.session.ClientSession` decides a message synchronously anyway (nothing it
does per message awaits), so once it sets :attr:`Connection.on_message`, a message that arrives
whole is handed to it from the protocol callback that parsed it, with no queue and no wake-up
(about 30k instructions less per message under callgrind, 92k against 61k for a bare echo).

Everything else takes websockets' own path, unchanged: control frames (ping, pong, close), a
message in fragments (the session's task still reads those through ``recv()``), a text frame
that is not UTF-8 (``recv()`` fails the connection with 1007, as before), and every message
while an earlier one still waits in the queue, so messages are always handled in the order
they came.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode
from websockets.protocol import Event

log = logging.getLogger("arbiter.connection")


class Connection(ServerConnection):
    """A server connection that hands whole messages to :attr:`on_message` once it is set."""

    on_message: Callable[[str | bytes], None] | None = None
    """Called with each message that arrives whole while no earlier one is queued; None (the
    default, before the hello is welcomed): every message is queued for ``recv()``."""

    def process_event(self, event: Event) -> None:
        handler = self.on_message
        if (
            handler is not None
            and isinstance(event, Frame)
            and event.fin
            and (event.opcode is Opcode.TEXT or event.opcode is Opcode.BINARY)
            and not self._queued()
        ):
            if event.opcode is Opcode.TEXT:
                try:
                    message: str | bytes = str(event.data, "utf-8")
                except UnicodeDecodeError:
                    super().process_event(event)  # recv() fails the connection (1007)
                    return
            else:
                message = bytes(event.data)
            try:
                handler(message)
            except Exception:
                # The handler answers every failure itself; this is a bug in it, and it must
                # not escape into the transport (which would abort the connection).
                log.exception("connection %s: unexpected failure handling a message", self.id)
            return
        super().process_event(event)

    def _queued(self) -> bool:
        """True while the queue ``recv()`` reads holds frames (or when this websockets keeps
        no such queue: then every message takes the queue, as without this class)."""
        frames = getattr(self.recv_messages, "frames", None)
        return frames is None or len(frames) > 0


__all__ = ["Connection"]
