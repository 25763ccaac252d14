"""The server's websocket connection: whole messages handed straight to the session, and at most
:data:`MESSAGES_PER_TURN` frames of one connection parsed in one step of the event loop.

``websockets``' asyncio connection puts every incoming data frame in a queue (its assembler),
wakes the task waiting in ``recv()``, and that task takes the frame out again: a future, a task
wake-up and five coroutine frames resumed per message. An authenticated
:class:`~arbiter.bridge.session.ClientSession` decides a message synchronously anyway (nothing it
does per message awaits), so once it sets :attr:`Connection.on_message`, a message that arrives
whole is handed to it from the protocol callback that received it, with no queue and no
wake-up.

Once websockets has read the handshake's request, this class reads where every frame of the
byte stream starts (RFC 6455 section 5.2: a header gives each frame's length), so it always
knows where the next frame begins without asking websockets' parser. The final, masked text
frames a read holds whole are read here, the way websockets reads them (payload unmasked by
websockets' own ``apply_mask``) but without its generator-based parser, its frame objects and
its event list (about 30k instructions less per message under callgrind). Every other frame (a
control frame, a fragment, a binary frame, a text frame that is not UTF-8 or is over the size
limit, a protocol violation) goes to websockets whole, or as much of it as was read (websockets
keeps the rest of it for the next read), which handles it as it always does; its data frames
come to :meth:`Connection.process_event`, which hands a whole message to the session in the same
way, unless an earlier one still waits in websockets' queue (``recv()``, the session's task,
takes those, in the order they came), so messages are always handled in the order they came.

No connection is parsed or decided for long in one step of the event loop: a read parses at
most :data:`MESSAGES_PER_TURN` frames, of any kind (a ping costs websockets as much as a
request's frame; an empty frame as much as a full one). What is past them is kept here, the
transport's reading is paused (so the kernel's buffers, and TCP's flow control, hold the rest
of a flood, not the server's memory; but over TLS, Python's TLS transport reads on from the
socket while "paused" until the records it holds undecrypted reach 256 KiB, so up to about
512 KiB more of a flood wait in the server's memory per connection, its last read past that
mark included), and a later step (``loop.call_soon``) parses the next turn's frames; reading
resumes once the kept bytes are parsed. The stream's end waits for them too: over plain TCP a
FIN is read only once reading resumes; over TLS the end (a close_notify) can come in the very
step of the read that kept them, and the transport writes nothing after that step, so
:meth:`Connection.eof_received` parses all that is kept at once (at most one read's worth, once
per connection) before websockets is told of the end. Reading is paused by websockets' queue
too (over its high-water mark, 16 frames, until ``recv()`` has taken it down to 4): the kept
bytes wait while it is paused, and reading resumes only once neither holds it. The session's
task decides the queued messages :data:`MESSAGES_PER_TURN` per step of its own
(:meth:`~arbiter.bridge.session.ClientSession.run`).

Pongs and close frames websockets writes go to the transport outside the session's outbox; a
client that sends pings and reads nothing would grow that buffer without end. So whenever the
frames given to websockets leave more unsent bytes than the connection's write limit (the
server's ``max_send_buffer_bytes``, given to websockets as ``write_limit``), the connection is
handed to :attr:`Connection.on_overflow` (the session drops it with 4008, as it drops a client
that does not read its replies), and nothing more it sends is read until the transport has
written those bytes down to its low-water mark (``resume_writing``): a client that reads again
has its answer to the close read, one that never does is aborted after the close timeout.
Once the server has sent its close frame (a 4008 drop, or any other close), the frames read
after it are skipped (:meth:`Connection._closing`, by their headers) but for the client's own
close frame, which ends the closing handshake: websockets would answer every ping with a pong
while closing, and a client dropped for flooding pings could go on costing pongs until the
close timeout.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable

from websockets.asyncio.server import ServerConnection
from websockets.frames import Frame, Opcode, apply_mask
from websockets.protocol import CONNECTING, OPEN, Event

from arbiter.bridge.frame_bounds import frame_end, parser_at_eof

log = logging.getLogger("arbiter.connection")

_FIN_TEXT = 0x81
"""The first header byte of a final text frame, without reserved bits (RFC 6455 5.2)."""

MESSAGES_PER_TURN = 16
"""The most frames of one connection parsed in one callback of the event loop (a read, or a
later step parsing what a read kept), and the most messages its session's task decides in one of
its steps: the rest wait for later steps, in their order, while the other connections are
served. A count, not a clock, so the server stays deterministic and the check costs one
comparison. 16: above what a table's client writes at once (one message per action; a GM's
group roll of a dozen), so the common path never keeps bytes (every read of the benchmarks holds
one frame); far below the 100 messages of the default burst (``bridge/limits.py``) and the
forty thousand empty frames a 256 KiB read can hold, so the wait one flooding connection imposes
on the others is at most 16 frames parsed (each message within the dice budget) per step, twice
over when its task and a parse of it fall in the same step. Also websockets' default high-water
mark of its queue (``max_queue``), past which it pauses reading."""


class Connection(ServerConnection):
    """A server connection that hands whole messages to :attr:`on_message` once it is set, and
    parses at most :data:`MESSAGES_PER_TURN` frames per step of the event loop."""

    on_message: Callable[[str | bytes], None] | None = None
    """Called with each message that arrives whole while no earlier one is queued; None (the
    default, before the hello is welcomed): every message is queued for ``recv()``."""

    on_overflow: Callable[[], None] | None = None
    """Called when the frames given to websockets (pings: it answers each with a pong) leave
    more bytes unsent than the write limit (the session drops the connection with 4008); the
    connection is not read until they are written. None: nothing is called."""

    on_read_done: Callable[[], None] | None = None
    """Called at the end of each read, and of each later step parsing what a read kept, that
    may have handed messages to :attr:`on_message` (the group commit's
    :meth:`~arbiter.bridge.committing.GroupCommit.read_done`)."""

    _plain = False
    """True while the next byte read starts a frame, nothing is kept and reading is not
    paused here: the common state, in which a read is parsed with no other check."""

    _known = False
    """True once the handshake's request is read: from then on this class knows where every
    frame starts (websockets' parser is fed whole frames, or a frame's first part and then,
    :attr:`_owed`, its rest)."""

    _request_tail = b""
    """The last three bytes of the handshake's request read so far (while not :attr:`_known`)."""

    _owed = 0
    """Bytes of a frame websockets was given the first part of, still to come."""

    _owed_dropped = False
    """True when the frame :attr:`_owed` is the rest of was dropped, not given to websockets
    (after this server's close frame: :meth:`_closing`)."""

    _kept = b""
    """Bytes read and not yet parsed, from :attr:`_kept_at` on: a frame's header cut by the read
    (reading goes on), or what was past a read's turn (:attr:`_held`)."""

    _kept_at = 0
    """Where the bytes of :attr:`_kept` not yet parsed start (a turn moves it on, rather than
    copying the rest of a 256 KiB read every 16 frames)."""

    _held = False
    """True while reading is paused for :attr:`_kept` (a later step parses it)."""

    _scheduled = False
    """True while a call of :meth:`_go_on` is scheduled."""

    _stopped = False
    """True once websockets' reader is at its end (the stream's end was read, or the connection
    is lost): nothing more may be fed to it."""

    _ending = False
    """True while the stream's end waits for what is kept to be parsed (:meth:`eof_received`):
    reading is not resumed."""

    _backed = False
    """True while reading waits for the unsent bytes to be written (over the write limit after
    frames given to websockets: :attr:`on_overflow`), until ``resume_writing``."""

    _send_limit = 0
    """The transport's high-water mark of unsent bytes (websockets' ``write_limit``)."""

    _frames: deque[object] | None = None
    """The frames websockets' queue holds for ``recv()`` (its ``frames`` queue's deque, read
    by :meth:`_queued`); None when this websockets keeps none: every message then takes the
    queue, as without this class."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._send_limit = self.transport.get_write_buffer_limits()[1]
        # Kept: asked for every message, and the queue's own ``len`` is a Python call.
        queue = getattr(getattr(self.recv_messages, "frames", None), "queue", None)
        self._frames = queue if isinstance(queue, deque) else None
        # websockets' queue resumes reading once recv() has taken it down; bytes kept here
        # must be parsed first (and reading resumed only after them).
        self.recv_messages.resume = self._read_on

    def connection_lost(self, exc: Exception | None) -> None:
        # websockets' reader is at its end: nothing kept may be fed to it any more.
        self._kept = b""
        self._plain = False
        self._stopped = True
        super().connection_lost(exc)

    def eof_received(self) -> None:
        """The stream's end: what is kept is parsed first, all of it in this step, and then
        websockets is told. Over TLS the end can come in the same step as the read that kept
        bytes (sslproto hands all it decrypted, then the client's close_notify, or a FIN it
        read while this connection's reading was paused), and the transport then closes and
        writes nothing more: a later step would be too late to parse them, or to answer them.
        (Over plain TCP a FIN is read only once reading resumes, after everything kept.) At
        most what one read kept (over TLS, all sslproto decrypted at once: its buffer of
        received records, 256 KiB, and one more socket read), once per connection. Kept bytes
        of a connection over its write limit (:attr:`_backed`, dropped with 4008) are not
        parsed: nothing more it sends is read."""
        if self._kept and not (self._stopped or self._backed):
            self._ending = True
            while self._held and self._kept and not (self._stopped or self._backed):
                data, at, self._kept = self._kept, self._kept_at, b""
                self._read(data, at)
                if self._held and not self._kept:
                    self._held = False  # _read's common end returned before _rest
            rest = self._kept[self._kept_at :]
            self._kept = b""
            if rest and not (self._stopped or self._backed):
                # A frame cut by the end: websockets is given its first part, as it would be
                # without this class, and fails the connection at the end as it always does.
                self._feed(rest)
            self._read_done()
        self._stopped = True
        self._kept = b""
        self._plain = False
        super().eof_received()

    def data_received(self, data: bytes) -> None:
        """Parse ``data``'s frames, at most :data:`MESSAGES_PER_TURN`, keeping the rest."""
        if self._plain:
            self._read(data)
        else:
            self._received(data)
        done = self.on_read_done
        if done is not None:
            try:
                done()
            except Exception:
                # As in _hand: a bug must not escape into the transport.
                log.exception("connection %s: unexpected failure after a read", self.id)

    def _received(self, data: bytes) -> None:
        """:meth:`data_received` off the common state."""
        if self._stopped:
            return
        if self._held:
            # A transport may hand on what it held when its reading was paused (TLS): after
            # what is kept, in order, for the steps that parse it.
            self._kept = self._kept[self._kept_at :] + data
            self._kept_at = 0
            return
        if self._kept:
            data = self._kept[self._kept_at :] + data
            self._kept = b""
        if not self._known:
            data = self._handshake(data)
            if not self._known:
                return
        turn = MESSAGES_PER_TURN
        if self._owed:
            # The rest of a frame websockets holds the first part of (counted when its header
            # was read).
            if len(data) <= self._owed:
                self._owed -= len(data)
                self._feed_tail(data)
                self._settle()
                return
            owed, self._owed = self._owed, 0
            self._feed_tail(data[:owed])
            data = data[owed:]
            if self._stopped:
                return
            turn -= 1  # the frame it ends is parsed in this step: one of this turn's
        self._read(data, 0, turn)
        self._settle()

    def _handshake(self, data: bytes) -> bytes:
        """Give websockets the bytes of the handshake's request in ``data``; what follows it,
        once it is read (:attr:`_known`), is returned for this class to parse."""
        if parser_at_eof(self.protocol) and not self.protocol.reader.buffer:
            self._known = True
            return data
        if self.protocol.state is CONNECTING:
            # The request ends at its first empty line; frames a client writes right after it
            # (without waiting for the answer) are this class's to parse.
            # The empty line may begin in an earlier read: its last three bytes are kept.
            tail = self._request_tail
            found = (tail + data).find(b"\r\n\r\n")
            self._request_tail = (tail + data[-3:])[-3:]
            if found >= 0:
                cut = found + 4 - len(tail)  # where the request ends in ``data`` (at least 1)
                super().data_received(data[:cut])
                rest = data[cut:]
                if parser_at_eof(self.protocol) and not self.protocol.reader.buffer:
                    self._known = True
                    return rest
                data = rest
        super().data_received(data)
        return b""

    def _read(self, data: bytes, at: int = 0, turn: int = MESSAGES_PER_TURN) -> None:
        """Parse the frames of ``data`` from ``at`` (where a frame starts), at most ``turn``
        (:data:`MESSAGES_PER_TURN`, one less when this step ended a frame cut by the last
        read): whole final text frames are handed to :attr:`on_message`, the others given to
        websockets, in order; the rest is kept for a later step."""
        left = turn  # locals: the common read (one frame) sets no attribute
        end = len(data)
        fed = at  # data[fed:at]: frames for websockets not yet given to it
        protocol = self.protocol
        while at < end:
            if not left:
                break  # this read's turn is spent: the rest is kept, for a later step
            left -= 1
            if data[at] == _FIN_TEXT and end - at >= 6:
                length = data[at + 1] ^ 0x80  # the mask bit must be set: a client's frame
                if length < 126:
                    start = at + 6
                elif length == 126 and end - at >= 8:
                    start = at + 8
                    length = data[at + 2] << 8 | data[at + 3]  # big-endian, without a slice
                else:
                    start = -1  # a 64-bit length or no mask bit: websockets' part
                stop = start + length
                max_size = protocol.max_size
                if start > 0 and stop <= end and (max_size is None or length <= max_size):
                    if fed < at:
                        self._feed(data[fed:at])
                        fed = at
                        if self._stopped:
                            return
                    handler = self.on_message
                    frames = self._frames
                    if (
                        handler is not None
                        and protocol.state is OPEN
                        and protocol.cur_size is None
                        and frames is not None
                        and not frames  # nothing queued for recv() (:meth:`_queued`)
                    ):
                        payload = apply_mask(data[start:stop], data[start - 4 : start])
                        try:
                            message = str(payload, "utf-8")
                        except UnicodeDecodeError:
                            pass  # websockets' part: recv() fails the connection (1007)
                        else:
                            fed = at = stop
                            try:
                                handler(message)
                            except Exception:
                                # As in _hand (written out: the call per message is spared).
                                log.exception(
                                    "connection %s: unexpected failure handling a message",
                                    self.id,
                                )
                            continue
                    at = stop
                    continue
            stop = frame_end(data, at)
            if stop < 0:
                left += 1  # not parsed: a cut header is kept for the next read
                break
            at = stop
        if at == end and fed == end:
            return  # the common read: whole frames, all handed on
        self._rest(data, fed, at, left)

    def _rest(self, data: bytes, fed: int, at: int, left: int) -> None:
        """The end of :meth:`_read`: the frames it passed go to websockets; what it did not
        parse is kept (reading paused when the turn was spent)."""
        end = len(data)
        if at > end:
            # The last frame was cut by the read: websockets keeps its first part.
            self._owed = at - end
            at = end
        if fed < at:
            self._feed(data[fed:at] if fed or at < end else data)
        if self._stopped:
            return
        if at < end and not left:
            self._kept = data  # not copied: a later step parses on from _kept_at
            self._kept_at = at
            self._hold()
            return
        self._kept = data[at:] if at < end else b""  # a cut header (a few bytes) or nothing
        self._kept_at = 0
        if self._held:
            self._release()
        self._settle()

    def _feed(self, data: bytes) -> None:
        """Give ``data`` to websockets' parser (whole frames, or a frame's first part), then
        stop reading if what it wrote back (pongs) is over the write limit. Once this server
        has sent its close frame, only the client's close frame is given (:meth:`_closing`)."""
        if self.protocol.close_sent is not None:
            data = self._closing(data)
            if not data:
                return
        self._give(data)

    def _feed_tail(self, data: bytes) -> None:
        """:meth:`_feed` for the rest of the frame :attr:`_owed` counts (the caller has
        counted it off): given to websockets unless the frame was dropped."""
        if self._owed_dropped:
            self._owed_dropped = self._owed > 0
            return
        self._give(data)

    def _closing(self, data: bytes) -> bytes:
        """The frames of ``data`` websockets still needs once this server's close frame is
        sent: the client's close frame (which ends the closing handshake). The others are
        dropped: websockets would answer each ping with a pong (it does while closing) and
        queue data frames nobody takes, for a client the server is done with (dropped with
        4008, say, and flooding on until the close timeout)."""
        wanted: list[bytes] = []
        at = 0
        end = len(data)
        while at < end:
            stop = frame_end(data, at)
            if stop < 0:
                wanted.append(data[at:])  # a header cut by the stream's end: websockets fails
                break
            if data[at] & 0x0F == Opcode.CLOSE:
                wanted.append(data[at:stop])  # its rest, if the read cut it, follows (_owed)
            elif stop > end:
                self._owed_dropped = True  # the read cut it: its rest is dropped too
            at = stop
        return b"".join(wanted)

    def _give(self, data: bytes) -> None:
        """Give ``data`` to websockets' parser; stop reading if what it wrote back (pongs) is
        over the write limit."""
        super().data_received(data)
        transport = self.transport
        if not self._backed and transport.get_write_buffer_size() > self._send_limit:
            self._back_off()

    def _back_off(self) -> None:
        """Read nothing from this connection until its unsent bytes (its pongs, its replies)
        are written (``resume_writing``); the session drops it (4008). The turn under way ends
        (at most :data:`MESSAGES_PER_TURN` frames: as many pongs more)."""
        self._backed = True
        self.transport.pause_reading()
        log.info(
            "connection %s: %d bytes unsent (limit %d) after its frames; not read until written",
            self.id,
            self.transport.get_write_buffer_size(),
            self._send_limit,
        )
        if self.on_overflow is not None:
            self.on_overflow()

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._backed:
            self._backed = False
            self._read_on()

    def _hold(self) -> None:
        """Pause reading (if not yet) and have a later step parse :attr:`_kept`."""
        self._plain = False
        if not self._held:
            self._held = True
            self.transport.pause_reading()
        self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            self.loop.call_soon(self._go_on)

    def _go_on(self) -> None:
        """Parse the next turn of the bytes kept (unless websockets' queue is over its mark:
        its resumption calls here again)."""
        self._scheduled = False
        if self._stopped or self._backed or not self._held or self.recv_messages.paused:
            return
        data, at, self._kept = self._kept, self._kept_at, b""
        self._read(data, at)
        if self._held and not self._kept:
            self._release()  # _read's common end returned before _rest
        self._settle()
        self._read_done()

    def _read_done(self) -> None:
        """Call :attr:`on_read_done` after a step parsing what a read kept."""
        done = self.on_read_done
        if done is not None:
            try:
                done()
            except Exception:
                # As in _hand: a bug must not escape into the transport.
                log.exception("connection %s: unexpected failure after a turn", self.id)

    def _release(self) -> None:
        """Everything kept is parsed: reading resumes, unless websockets' queue holds it."""
        self._held = False
        self._settle()
        if not (self.recv_messages.paused or self._backed or self._stopped or self._ending):
            self.transport.resume_reading()

    def _settle(self) -> None:
        """Set :attr:`_plain` from the state it sums up."""
        self._plain = self._known and not (self._owed or self._kept or self._held or self._stopped)

    def _read_on(self) -> None:
        """Parse what is kept, or read on, unless something still holds reading (the queue of
        websockets, unsent bytes over the limit, the connection's end)."""
        if self._stopped or self._backed:
            return
        if self._held:
            self._schedule()
        elif not self.recv_messages.paused:
            self.transport.resume_reading()

    def process_event(self, event: Event) -> None:
        handler = self.on_message
        if (
            handler is not None
            and isinstance(event, Frame)
            and event.fin
            and (event.opcode is Opcode.TEXT or event.opcode is Opcode.BINARY)
            and self.protocol.state is OPEN
            and not self._queued()
        ):
            # Not once the connection has left OPEN (a close frame earlier in this read): a
            # direct read and the session's queue decide nothing after it either. (The frames
            # websockets is given are within the turn of the read that parsed them.)
            if event.opcode is Opcode.TEXT:
                try:
                    message: str | bytes = str(event.data, "utf-8")
                except UnicodeDecodeError:
                    super().process_event(event)  # recv() fails the connection (1007)
                    return
            else:
                message = bytes(event.data)
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

    def _queued(self) -> bool:
        """True while the queue ``recv()`` reads holds frames (or when this websockets keeps
        no such queue: then every message takes the queue, as without this class)."""
        frames = self._frames
        return frames is None or len(frames) > 0


__all__ = ["MESSAGES_PER_TURN", "Connection"]
