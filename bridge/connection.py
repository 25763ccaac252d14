"""The server's websocket connection: whole messages handed straight to the session.

``websockets``' asyncio connection puts every incoming data frame in a queue (its assembler),
wakes the task waiting in ``recv()``, and that task takes the frame out again: a future, a task
wake-up and five coroutine frames resumed per message. An authenticated
:class:`~arbiter.bridge.session.ClientSession` decides a message synchronously anyway (nothing it
does per message awaits), so once it sets :attr:`Connection.on_message`, a message that arrives
whole is handed to it from the protocol callback that received it, with no queue and no
wake-up.

Two ways lead there. The common one (:meth:`Connection.data_received`): the bytes read from the
socket start at a frame boundary (websockets' parser holds nothing), so the final, masked text
frames they hold whole are read here, the way websockets reads them (RFC 6455 section 5.2:
header, masking key, payload unmasked by websockets' own ``apply_mask``) but without its
generator-based parser, its frame objects and its event list (about 30k instructions less per
message under callgrind). The bytes from the first frame that is anything else on (a control
frame, a fragment, a frame cut by the read, one over the size limit, a payload that is not
UTF-8, a protocol violation) go to websockets, which handles them as it always does: so do all
the bytes of a read that does not start at a boundary. Frames websockets parses come to
:meth:`Connection.process_event`, which hands a whole message to the session in the same way.

Everything else takes websockets' own path, unchanged: control frames (ping, pong, close), a
message in fragments (the session's task still reads those through ``recv()``), a text frame
that is not UTF-8 (``recv()`` fails the connection with 1007, as before), and every message
while an earlier one still waits in the queue, so messages are always handled in the order
they came.

No connection is decided for long in one step of the event loop: a read (or websockets'
parse of one) hands on at most :data:`MESSAGES_PER_TURN` messages. The rest of the read's bytes
then go to websockets, whose parser queues every further data frame for ``recv()`` (and, once
its queue holds more than its high-water mark, 16 frames by default, pauses the transport's
reading until ``recv()`` has taken it down to the low-water mark, 4): the session's task takes
them from there, in the order they came, and yields to the event loop after every
:data:`MESSAGES_PER_TURN` it decides (:meth:`~arbiter.bridge.session.ClientSession.run`). So a
client that writes hundreds of requests at once (each up to the dice budget) is decided a turn
at a time, between the other connections' turns, rather than all in the step that read them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode, apply_mask
from websockets.protocol import OPEN, Event, Protocol
from websockets.streams import StreamReader

log = logging.getLogger("arbiter.connection")

_AT_EOF = StreamReader.at_eof.__code__
"""The code of the step websockets' parser waits in between two frames (with no byte held)."""

_FIN_TEXT = 0x81
"""The first header byte of a final text frame, without reserved bits (RFC 6455 5.2)."""

MESSAGES_PER_TURN = 16
"""The most messages one connection has decided in one callback of the event loop (a read
handed on here, or one step of the session's task taking websockets' queue): the rest wait for
later steps, in their order, while the other connections are served. A count, not a clock, so
the server stays deterministic and the check costs one comparison. 16: above what a table's
client writes at once (one message per action; a GM's group roll of a dozen), so the common
path never queues (every read of the benchmarks holds one frame); far below the 100 messages
of the default burst (``bridge/limits.py``) and the two thousand a 256 KiB read can hold, so the
wait one flooding connection imposes on the others is at most 16 decisions (each within the
dice budget) per step, twice over when its task and a read of it fall in the same step. Also
websockets' default high-water mark of its queue (``max_queue``), past which it pauses reading."""


def between_frames(protocol: Protocol) -> bool:
    """True when websockets' parser of ``protocol`` holds no byte and waits in the reader's
    ``at_eof`` (so the next byte read starts a frame); False mid-frame. After a close or a
    failure websockets' ``discard`` parser waits there too: the reading loop's check that the
    connection is OPEN is what keeps those bytes from being read as frames. (The benchmarks'
    client, ``benchmarks/bridge_client.py``, asks the same of its own connection.)"""
    if protocol.reader.buffer or protocol.cur_size is not None or protocol.extensions:
        return False  # a frame cut by a read, a message in fragments, or an extension
    # The server's parser (the handshake's) delegates to the frames' parser, which waits
    # in the reader's ``at_eof`` between two frames (a client's parser is the frames' own).
    step: object = protocol.parser
    for _ in range(3):
        step = getattr(step, "gi_yieldfrom", None)
        if step is None:
            return False
        if getattr(step, "gi_code", None) is _AT_EOF:
            return True
    return False


class Connection(ServerConnection):
    """A server connection that hands whole messages to :attr:`on_message` once it is set."""

    on_message: Callable[[str | bytes], None] | None = None
    """Called with each message that arrives whole while no earlier one is queued; None (the
    default, before the hello is welcomed): every message is queued for ``recv()``."""

    on_read_done: Callable[[], None] | None = None
    """Called at the end of each read that may have handed messages to :attr:`on_message`
    (the group commit's :meth:`~arbiter.bridge.committing.GroupCommit.read_done`)."""

    _synced = False
    """True when every byte since websockets' parser was last found between frames was read
    here, whole frames only (so it still is, and need not be looked at again)."""

    _left = MESSAGES_PER_TURN
    """How many more messages the current read may hand to :attr:`on_message` from
    :meth:`process_event` (set before each read's bytes go to websockets, which calls
    :meth:`process_event` only from a read)."""

    def data_received(self, data: bytes) -> None:
        """Hand the whole text frames ``data`` starts with to :attr:`on_message`, at most
        :data:`MESSAGES_PER_TURN`; the rest of the bytes (all of them, unless websockets'
        parser is between frames) to websockets."""
        if self.on_message is None:
            self._synced = False
            self._left = MESSAGES_PER_TURN
            super().data_received(data)
            return
        self._read(data)
        done = self.on_read_done
        if done is not None:
            try:
                done()
            except Exception:
                # As in _hand: a bug must not escape into the transport.
                log.exception("connection %s: unexpected failure after a read", self.id)

    def _read(self, data: bytes) -> None:
        """:meth:`data_received`'s work once :attr:`on_message` is set."""
        if not (self._synced or self._between_frames()):
            self._synced = False
            self._left = MESSAGES_PER_TURN
            super().data_received(data)
            return
        left = MESSAGES_PER_TURN  # a local: the common read (one frame) sets no attribute
        end = len(data)
        at = 0
        protocol = self.protocol
        while at < end:
            # The session may have been dropped, or the connection closed, by the last one.
            handler = self.on_message
            if handler is None or protocol.state is not OPEN or self._queued():
                break
            if not left:
                break  # this read's turn is spent: websockets queues the rest, in order
            if data[at] != _FIN_TEXT or end - at < 6:
                break  # anything but a final text frame, or too short to hold a header
            length = data[at + 1] ^ 0x80  # the mask bit must be set: a client's frame
            if length < 126:
                start = at + 6
            elif length == 126:
                start = at + 8
                if end < start:
                    break
                length = int.from_bytes(data[at + 2 : at + 4])
            else:
                break  # 64-bit lengths (or no mask bit): websockets' part
            stop = start + length
            max_size = protocol.max_size
            if stop > end or (max_size is not None and length > max_size):
                break  # cut by the read (websockets waits for the rest), or too large (1009)
            payload = apply_mask(data[start:stop], data[start - 4 : start])
            try:
                message = str(payload, "utf-8")
            except UnicodeDecodeError:
                break  # recv() fails the connection (1007)
            at = stop
            left -= 1
            self._hand(handler, message)
        self._synced = at == end
        if at < end:
            self._left = left
            super().data_received(data[at:] if at else data)

    def process_event(self, event: Event) -> None:
        handler = self.on_message
        if (
            handler is not None
            and isinstance(event, Frame)
            and event.fin
            and (event.opcode is Opcode.TEXT or event.opcode is Opcode.BINARY)
            and self._left > 0
            and self.protocol.state is OPEN
            and not self._queued()
        ):
            # Not once the connection has left OPEN (a close frame earlier in this read): a
            # direct read and the session's queue decide nothing after it either.
            if event.opcode is Opcode.TEXT:
                try:
                    message: str | bytes = str(event.data, "utf-8")
                except UnicodeDecodeError:
                    super().process_event(event)  # recv() fails the connection (1007)
                    return
            else:
                message = bytes(event.data)
            self._left -= 1
            self._hand(handler, message)
            return
        super().process_event(event)

    def _hand(self, handler: Callable[[str | bytes], None], message: str | bytes) -> None:
        try:
            handler(message)
        except Exception:
            # The handler answers every failure itself; this is a bug in it, and it must
            # not escape into the transport (which would abort the connection).
            log.exception("connection %s: unexpected failure handling a message", self.id)

    def _between_frames(self) -> bool:
        return between_frames(self.protocol)

    def _queued(self) -> bool:
        """True while the queue ``recv()`` reads holds frames (or when this websockets keeps
        no such queue: then every message takes the queue, as without this class)."""
        frames = getattr(self.recv_messages, "frames", None)
        return frames is None or len(frames) > 0


__all__ = ["MESSAGES_PER_TURN", "Connection", "between_frames"]
