"""The end of a client's stream read while bytes past a turn are kept (arbiter.bridge.connection's
``MESSAGES_PER_TURN``): every frame before the end is parsed, in order, before websockets is told
of the end. Over TLS the end (the client's close_notify) comes in the same step as the read that
kept them, and the transport writes nothing after that step; over plain TCP a FIN is read only
once reading resumes, after them."""

from __future__ import annotations

import base64
import json
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.frames import Frame, Opcode

from arbiter.bridge.connection import MESSAGES_PER_TURN, Connection
from arbiter.bridge.frame_bounds import frame_end
from arbiter.bridge.limits import Limits
from arbiter.bridge.outbox import CLOSE_TOO_SLOW
from tests.bridge.support import Running, hello_message, running, tiny_config
from tests.bridge.test_connection_fairness import WIDE, heavy, logged, loop_held
from tests.bridge.test_connection_fairness import flood_engine as flood_engine
from tests.bridge.test_tls import make_certificate, trusting

COUNT = 40
"""Requests written at once: more than two turns' worth."""

assert COUNT > 2 * MESSAGES_PER_TURN


class Ends:
    """What the server saw of its connections' ends: whether bytes were kept when each one's
    stream ended, its close code (the client's close frame's, 1006 without one), and every
    exception its event loop's callbacks raised."""

    def __init__(self) -> None:
        self.kept_at_end: list[bool] = []
        self.codes: list[int | None] = []
        self.errors: list[str] = []
        self.lost = threading.Event()


@pytest.fixture
def ends(monkeypatch: pytest.MonkeyPatch) -> Ends:
    seen = Ends()
    lost = Connection.connection_lost
    ended = Connection.eof_received

    def eof(self: Connection) -> None:
        seen.kept_at_end.append(bool(self._kept))
        ended(self)

    def recorded(self: Connection, exc: Exception | None) -> None:
        lost(self, exc)
        seen.codes.append(self.close_code)
        seen.lost.set()

    monkeypatch.setattr(Connection, "connection_lost", recorded)
    monkeypatch.setattr(Connection, "eof_received", eof)
    return seen


@pytest.fixture(params=[True, False], ids=["tls", "tcp"])
def served(
    request: pytest.FixtureRequest, tmp_path: Path, flood_engine: None, ends: Ends
) -> Iterator[tuple[Running, ssl.SSLContext | None]]:
    """A server (over TLS, or plain TCP) whose loop's callback exceptions go to ``ends``, and
    the client context to reach it with."""
    tls = request.param
    cert, key = make_certificate(tmp_path / "tls")
    config = tiny_config(tmp_path, limits=WIDE)
    if tls:
        config = tiny_config(tmp_path, limits=WIDE, certfile=cert, keyfile=key)
    with running(config) as srv:

        def handler(loop: Any, context: dict[str, Any]) -> None:
            ends.errors.append(f"{context.get('message')}: {context.get('exception')!r}")

        srv.loop.call_soon_threadsafe(srv.loop.set_exception_handler, handler)
        yield srv, trusting(cert) if tls else None


class Client:
    """A raw client stream: plain TCP, or TLS over a plain socket through memory buffers, so
    that the records the test writes at once (requests, close_notify) leave in one write."""

    def __init__(self, sock: socket.socket, context: ssl.SSLContext | None) -> None:
        self.sock = sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls: ssl.SSLObject | None = None
        if context is not None:
            self.tls = context.wrap_bio(self.incoming, self.outgoing, server_hostname="localhost")
            while True:
                try:
                    self.tls.do_handshake()
                    break
                except ssl.SSLWantReadError:
                    self._flush()
                    self._fill()
            self._flush()

    def _flush(self) -> None:
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, "the server closed the connection"
        self.incoming.write(chunk)

    def send(self, data: bytes) -> None:
        if self.tls is None:
            self.sock.sendall(data)
        else:
            self.tls.write(data)
            self._flush()

    def recv(self) -> bytes:
        if self.tls is None:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            return chunk
        while True:
            try:
                return self.tls.read(65536)
            except ssl.SSLWantReadError:
                self._fill()

    def end(self, data: bytes) -> None:
        """``data`` and then the stream's end: over TLS its close_notify, in the same write
        (so in the server's same read); over TCP a FIN."""
        if self.tls is None:
            self.sock.sendall(data)
            self.sock.shutdown(socket.SHUT_WR)
            return
        self.tls.write(data)
        with pytest.raises(ssl.SSLWantReadError):
            self.tls.unwrap()  # close_notify is written; the server's is not awaited
        self._flush()


def _frame(client: Client, held: bytearray) -> bytes:
    """The next whole frame the server wrote (read into ``held`` until it is there)."""
    while (end := frame_end(bytes(held), 0)) < 0 or end > len(held):
        held += client.recv()
    frame = bytes(held[:end])
    del held[:end]
    return frame


def _opened(srv: Running, context: ssl.SSLContext | None, send_buffer: int = 0) -> Client:
    """A raw client (its stream written by the test), welcomed as Mallory; ``send_buffer``:
    the size of the kernel's send buffer of the server's side (0: the system's)."""
    sock = socket.create_connection(("127.0.0.1", srv.server.port), timeout=30)
    if send_buffer:

        async def shrink() -> None:
            for connection in srv.server._server.handlers:
                server_side = connection.transport.get_extra_info("socket")
                server_side.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)

        srv.call(shrink())
    client = Client(sock, context)
    key = base64.b64encode(b"end-of-the-flow!").decode()
    client.send(
        f"GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    held = bytearray()
    while b"\r\n\r\n" not in held:
        held += client.recv()
    answer, _, rest = bytes(held).partition(b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 101"), answer
    held = bytearray(rest)
    hello = hello_message(srv.player("mallory", "orc") or "", events=[])
    client.send(Frame(Opcode.TEXT, json.dumps(hello).encode()).serialize(mask=True))
    assert b'"welcome"' in _frame(client, held)
    return client


@pytest.mark.parametrize("closing", [True, False], ids=["close-frame", "no-close-frame"])
def test_a_flood_whose_read_ends_the_stream_is_decided_whole_before_the_end(
    served: tuple[Running, ssl.SSLContext | None], ends: Ends, closing: bool
) -> None:
    # Forty requests (and a close frame) written in one go, then the stream's end (TLS:
    # close_notify, in the same read; TCP: a FIN). The server parses 16 of them in the read's
    # step and keeps the rest: the end must not overtake them. Before, over TLS, websockets
    # was told of the end first: 16 decided, the rest lost, 1006, and an EOFError raised in
    # the step that parsed the next turn.
    srv, context = served
    client = _opened(srv, context)
    flood = b"".join(heavy(f"m-{n}", "orc", 1) for n in range(COUNT))
    if closing:
        flood += Frame(Opcode.CLOSE, (1000).to_bytes(2, "big")).serialize(mask=True)
    with loop_held(srv):
        client.end(flood)
    assert ends.lost.wait(60), "the server never ended the connection"
    decided = logged(srv)
    client.sock.close()
    # The case under test came about: over TLS the end came in the read's own step, with the
    # frames past its turn kept; over TCP only once they were all parsed.
    assert ends.kept_at_end == [context is not None]
    assert decided == [f"m-{n}" for n in range(COUNT)]  # each once, in order
    assert ends.codes == [1000 if closing else 1006]
    assert ends.errors == []


def test_pings_read_after_the_servers_close_frame_are_not_answered(
    tmp_path: Path, flood_engine: None, ends: Ends
) -> None:
    # A client that pings and reads nothing is dropped with 4008. Websockets answers pings
    # while closing too: before, every ping read after the close frame (until the client's
    # own close frame, or the close timeout) cost a pong, megabytes of them. Now only the
    # client's close frame is parsed after the server's, which ends the closing handshake.
    limits = Limits(rate_per_second=1e9, burst=10**9, max_send_buffer_bytes=64 * 1024)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        # A small kernel buffer: the pongs it does not read are soon over the write limit.
        client = _opened(srv, None, send_buffer=16 * 1024)
        sock = client.sock
        pings = Frame(Opcode.PING, b"p" * 125).serialize(mask=True) * 512

        async def closing() -> bool:
            handlers = srv.server._server.handlers
            return any(c.protocol.close_sent is not None for c in handlers)

        # Pings until the server has sent its close frame (it reads nothing meanwhile: its
        # unsent pongs are over the limit), each write bounded by the socket's timeout.
        sock.settimeout(1)
        written = 0
        while not srv.call(closing()):
            assert written < 64 * 1024 * 1024, "never dropped"
            try:
                written += sock.send(pings)
            except TimeoutError:
                continue
        received = bytearray()

        def read_all() -> None:
            while chunk := sock.recv(65536):
                received.extend(chunk)

        sock.settimeout(60)
        reader = threading.Thread(target=read_all)
        reader.start()
        # Written after the server's close frame: read by it (it reads again once the client
        # has read what it owed) before the close frame behind them.
        sock.sendall(pings + Frame(Opcode.CLOSE, (1000).to_bytes(2, "big")).serialize(mask=True))
        reader.join(60)
        assert not reader.is_alive(), "the server never ended the connection"
        sock.close()  # the end of the closing handshake: the server's connection ends
        assert ends.lost.wait(60)
    frames = []
    at = 0
    while at < len(received):
        end = frame_end(bytes(received), at)
        assert 0 < end <= len(received), "a frame cut by the end"
        frames.append(bytes(received[at:end]))
        at = end
    closes = [n for n, frame in enumerate(frames) if frame[0] == 0x88]
    assert len(closes) == 1, closes
    assert int.from_bytes(frames[closes[0]][2:4]) == CLOSE_TOO_SLOW
    assert frames[closes[0] + 1 :] == []  # no pong after the close frame
    assert ends.codes == [1000]  # the client's close frame was read, after every ping
