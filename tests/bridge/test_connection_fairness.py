"""A flood written at once is parsed and decided a turn at a time (arbiter.bridge.connection's
``MESSAGES_PER_TURN``), never in one step of the event loop, whatever its frames (requests, empty
frames, pings): the other connections are served between its turns, and its pongs count toward
the unread output that drops a client with 4008. Every assertion is on an order of events (the
roll log's sequence, the frames of one socket, the frames parsed before a decision), never on the
clock."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel, Field
from websockets.asyncio.messages import Assembler
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import ClientConnection

from arbiter.bridge.connection import MESSAGES_PER_TURN
from arbiter.bridge.engine import registry
from arbiter.bridge.engine.contract import JSON, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.limits import Limits
from arbiter.bridge.outbox import CLOSE_TOO_SLOW
from arbiter.bridge.server import ArbiterServer
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.support import (
    Body,
    Running,
    TinyEngine,
    hello_message,
    receive,
    request,
    running,
    tiny_config,
)

FLOOD = 800
"""Requests the hostile player writes in one go (the brief's 800 of 1,000 dice)."""
DICE = 1000

WIDE = Limits(rate_per_second=1e9, burst=10**9, max_send_buffer_bytes=256 * 1024 * 1024)
"""No rate limit (the flood is hundreds of messages), and room for every reply and event: these
tests are about the turns, not about dropping a client that does not read."""


class Heavy(Body):
    """A player's request for as many dice as he likes (the tiny ``greedy`` is the GM's)."""

    acting: ClassVar[tuple[str, ...]] = ("owner",)
    owner: str
    dice: int = Field(ge=0, le=100_000)


class FloodEngine(TinyEngine):
    requests: ClassVar[dict[str, type[BaseModel]]] = {**TinyEngine.requests, "heavy": Heavy}

    def resolve(
        self, rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        if isinstance(body, Heavy):
            total = sum(dice.die(6) for _ in range(body.dice))
            return Resolution({"kind": "heavy", "total": total})
        return super().resolve(rules, kind, body, state, dice)


ENGINE = FloodEngine()


def flood_get_engine(ruleset_id: str) -> Any:
    if ruleset_id == "tiny":
        return ENGINE
    raise registry.UnknownRuleset(f"unknown ruleset {ruleset_id!r}")


@pytest.fixture
def flood_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "get_engine", flood_get_engine)


@pytest.fixture
def srv(tmp_path: Path, flood_engine: None) -> Iterator[Running]:
    with running(tiny_config(tmp_path, limits=WIDE)) as server:
        yield server


def heavy(rid: str, owner: str, dice: int = DICE) -> bytes:
    """One masked client frame holding a heavy request, as a browser writes it."""
    message = json.dumps(request(rid, "heavy", {"owner": owner, "dice": dice})).encode()
    return Frame(Opcode.TEXT, message).serialize(mask=True)


def write_flood(ws: ClientConnection, owner: str, count: int = FLOOD) -> None:
    """``count`` heavy requests ``flood-0``… in one write (one ``sendall``)."""
    ws.socket.sendall(b"".join(heavy(f"flood-{n}", owner) for n in range(count)))


def logged(srv: Running) -> list[str]:
    """The request ids of the roll log, in the order of its rows (the order decided)."""

    async def ids() -> list[str]:
        return [roll.entry.request_id for roll in srv.server.store.rolls()]

    found: list[str] = srv.call(ids())
    return found


def answers(ws: ClientConnection, count: int) -> list[str]:
    """The ids of the next ``count`` replies on ``ws`` (each an outcome)."""
    got = [receive(ws, 60) for _ in range(count)]
    assert all(reply["type"] == "outcome" for reply in got), [r["type"] for r in got][:5]
    return [reply["outcome"]["id"] for reply in got]


def test_a_players_request_sent_during_a_flood_is_decided_before_most_of_the_flood(
    srv: Running,
) -> None:
    mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
    alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
    write_flood(mallory, "orc")
    # The flood's first reply: the server is at work on it (today's code decided it all
    # before the first reply could leave).
    first = answers(mallory, 1)
    alice.send(json.dumps(request("alice-1", "heavy", {"owner": "elf", "dice": 1})))
    assert answers(alice, 1) == ["alice-1"]
    rest = answers(mallory, FLOOD - 1)
    order = logged(srv)
    mallory.close()
    alice.close()
    assert first + rest == [f"flood-{n}" for n in range(FLOOD)]  # each once, in order
    assert [rid for rid in order if rid != "alice-1"] == first + rest
    assert order.index("alice-1") < FLOOD // 2, order.index("alice-1")


def test_a_ping_during_a_flood_is_answered_before_the_flood_is_done(srv: Running) -> None:
    # The GM listens to every outcome: the events of the rows committed before his pong was
    # sent come ahead of it on his socket (a reply takes the events held for its connection
    # first), so the events before the pong count the flood decided by then.
    mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
    gm, _ = srv.hello(events=["outcome"])
    write_flood(mallory, "orc")
    first = answers(mallory, 1)
    gm.send(json.dumps({"v": 1, "type": "ping", "id": "during"}))
    before: list[str] = []
    while (message := receive(gm, 60))["type"] != "pong":
        assert message["type"] == "event", message
        before.append(message["outcome"]["id"])
    assert message["id"] == "during"
    after = [receive(gm, 60)["outcome"]["id"] for _ in range(FLOOD - len(before))]
    rest = answers(mallory, FLOOD - 1)
    mallory.close()
    gm.close()
    assert first + rest == [f"flood-{n}" for n in range(FLOOD)]
    assert before + after == first + rest  # every event once, in the log's order
    assert len(before) < FLOOD // 2, len(before)


def test_a_flooder_dropped_with_4008_midway_has_nothing_more_decided(
    tmp_path: Path, flood_engine: None
) -> None:
    # The flooder never reads: its replies (about 36 KB each) fill the kernel's buffers, then
    # its send buffer, and it is dropped. What was decided by then stays; the rest of the
    # flood, read but not yet decided, is never decided.
    limits = Limits(rate_per_second=1e9, burst=10**9, max_send_buffer_bytes=64 * 1024)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        decided_at_drop: list[int] = []
        dropped = threading.Event()
        server: ArbiterServer = srv.server
        count_drop = server.count_drop

        def counted() -> None:
            # Called in the step that drops it: every row decided so far is staged or committed.
            rows = server.store.rolls()
            decided_at_drop.append(sum(r.entry.request_id.startswith("flood-") for r in rows))
            count_drop()
            dropped.set()

        server.count_drop = counted  # type: ignore[method-assign]
        mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
        # A small receive window, so the drop does not hang on how much the host's TCP
        # buffers hold (with 16 MB buffers all 800 replies could fit, and none be dropped).
        mallory.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        write_flood(mallory, "orc")
        assert dropped.wait(120), "the flooder was never dropped with 4008"
        alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
        # Served after the drop (its reply waits behind every group commit before it): by
        # then the flooder's remaining messages have had turns to be wrongly decided in.
        for n in range(3):
            alice.send(json.dumps(request(f"alice-{n}", "heavy", {"owner": "elf", "dice": 1})))
            assert answers(alice, 1) == [f"alice-{n}"]
        closed = _close_code(mallory)
        order = [rid for rid in logged(srv) if rid.startswith("flood-")]
        alice.close()
    # Dropped (the server counted the 4008 drop); the close frame itself reaches the client
    # only if it read everything before it within the close timeout, else the server aborts.
    assert closed in (CLOSE_TOO_SLOW, None)
    assert len(decided_at_drop) == 1
    assert order == [f"flood-{n}" for n in range(len(order))]  # in order, none skipped
    assert len(order) == decided_at_drop[0] < FLOOD


def _close_code(ws: ClientConnection) -> int | None:
    """The code of the close frame the server sent, reading past the replies before it."""
    try:
        while True:
            ws.recv(60)
    except TimeoutError:
        raise AssertionError("no close frame came within 60 s of the last message") from None
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None


TINY = 8000
"""Frames of 6 bytes in one write (48 KB: the kernel's default receive buffer on loopback holds
them all, so the server's first read of them does)."""

EMPTY_BINARY = Frame(Opcode.BINARY, b"").serialize(mask=True)
PING = Frame(Opcode.PING, b"").serialize(mask=True)

EVERY_ONCE = (TINY, TINY + 1)
"""The frames parsed by websockets up to the request behind the flood: each of the flood's once,
and the request's own when websockets parsed it too (it was queued behind them)."""


@contextmanager
def loop_held(srv: Running) -> Iterator[None]:
    """The server's event loop blocked in one callback while the block runs: what the test
    writes meanwhile is all in the kernel when the loop next looks at its sockets, so the
    reads that follow hold it (an order of events, not a race)."""
    entered = threading.Event()
    go = threading.Event()

    def block() -> None:
        entered.set()
        go.wait(30)

    srv.loop.call_soon_threadsafe(block)
    assert entered.wait(30), "the server's loop never ran the block"
    try:
        yield
    finally:
        go.set()


@pytest.fixture
def trace(srv: Running, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the server did, in order: ``frame`` for each frame websockets parsed on the
    server's thread (binary frames and pings always take websockets' parser), ``decided
    OWNER`` for each heavy request decided."""
    seen: list[str] = []
    parse = Frame.parse.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Frame], *args: Any, **kwargs: Any) -> Generator[None, None, Frame]:
        if threading.current_thread() is srv.thread:
            seen.append("frame")
        found: Generator[None, None, Frame] = parse(cls, *args, **kwargs)
        return found

    resolve: Callable[..., Resolution] = ENGINE.resolve

    def resolved(
        rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        if isinstance(body, Heavy):
            seen.append(f"decided {body.owner}")
        return resolve(rules, kind, body, state, dice)

    monkeypatch.setattr(Frame, "parse", classmethod(counted))
    monkeypatch.setattr(ENGINE, "resolve", resolved)
    return seen


def _parsed_before(trace: list[str], mark: int, event: str) -> int:
    """Frames parsed after ``trace[mark]`` and before ``event``."""
    assert event in trace[mark:], trace[mark:][-5:]
    return trace[mark : trace.index(event, mark)].count("frame")


def test_a_request_sent_during_a_flood_of_empty_frames_is_decided_after_at_most_a_turn_of_them(
    srv: Running, trace: list[str]
) -> None:
    # Eight thousand empty binary frames (each refused with an error) and a request behind
    # them, in one read; Alice's request is in the same step's other read. Today's parser
    # read every frame of a read in its step: Alice waited for all 8000.
    mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
    alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
    with loop_held(srv):
        mark = len(trace)
        mallory.socket.sendall(EMPTY_BINARY * TINY + heavy("flood-end", "orc", 1))
        alice.socket.sendall(heavy("alice-1", "elf", 1))
    assert answers(alice, 1) == ["alice-1"]
    replies = [receive(mallory, 60) for _ in range(TINY + 1)]
    mallory.close()
    alice.close()
    # At least a turn of the flood first: its read came before hers in that step (else the
    # bound would hold of a server that parses whole reads too).
    assert MESSAGES_PER_TURN <= _parsed_before(trace, mark, "decided elf") <= 2 * MESSAGES_PER_TURN
    assert trace[mark:].index("decided elf") < trace[mark:].index("decided orc")
    assert [r["type"] for r in replies[:TINY]] == ["error"] * TINY  # each frame answered once
    assert {r["code"] for r in replies[:TINY]} == {"binary_frame"}
    assert replies[TINY]["type"] == "outcome" and replies[TINY]["outcome"]["id"] == "flood-end"
    assert _parsed_before(trace, mark, "decided orc") in EVERY_ONCE


def test_a_request_sent_during_a_ping_flood_is_decided_after_at_most_a_turn_of_pings(
    srv: Running, trace: list[str]
) -> None:
    mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
    alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
    with loop_held(srv):
        mark = len(trace)
        mallory.socket.sendall(PING * TINY + heavy("flood-end", "orc", 1))
        alice.socket.sendall(heavy("alice-1", "elf", 1))
    assert answers(alice, 1) == ["alice-1"]
    # The client's own connection takes the 8000 pongs (unsolicited: ignored) before it.
    assert answers(mallory, 1) == ["flood-end"]
    mallory.close()
    alice.close()
    # At least a turn of the flood first: its read came before hers in that step (else the
    # bound would hold of a server that parses whole reads too).
    assert MESSAGES_PER_TURN <= _parsed_before(trace, mark, "decided elf") <= 2 * MESSAGES_PER_TURN
    assert trace[mark:].index("decided elf") < trace[mark:].index("decided orc")
    assert _parsed_before(trace, mark, "decided orc") in EVERY_ONCE


def test_a_client_sending_pings_and_reading_nothing_is_dropped_with_4008_and_not_read_on(
    tmp_path: Path, flood_engine: None
) -> None:
    # Each ping is answered with a pong the client never reads: once those pongs are over
    # the send buffer, the client is dropped as one that does not read its replies, and
    # nothing more it writes is read until they are (its pings would only owe more pongs).
    # Today's server read on and buffered every pong: the client could write all of its 64 MB.
    limit = 64 * 1024
    limits = Limits(rate_per_second=1e9, burst=10**9, max_send_buffer_bytes=limit)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        dropped = threading.Event()
        server: ArbiterServer = srv.server
        count_drop = server.count_drop

        def counted() -> None:
            count_drop()
            dropped.set()

        server.count_drop = counted  # type: ignore[method-assign]
        mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
        sock = mallory.socket
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        pings = Frame(Opcode.PING, b"p" * 125).serialize(mask=True) * 512  # 67 KB
        cap = 64 * 1024 * 1024
        written = 0
        sock.settimeout(1)
        view = memoryview(pings)
        at = 0
        idle = 0
        # Write until the server drops the client, or until 64 MB are written (a server that
        # reads on whatever it owes), or until ten seconds pass with every write refused.
        while not dropped.is_set() and written < cap and idle < 10:
            try:
                sent = sock.send(view[at:])
            except TimeoutError:
                idle += 1
                continue
            except OSError:
                break  # aborted once the close timed out
            idle = 0
            written += sent
            at = (at + sent) % len(pings)
        assert dropped.wait(30), f"not dropped after {written} bytes of pings"
        assert written < cap
        assert server.dropped == 1

        async def reading() -> list[tuple[bool, bool]]:
            return [(c.ws.transport.is_reading(), c.ws._backed) for c in server.clients]

        # Its pongs still unread (it reads nothing): the server reads nothing from it, for
        # that reason (not, say, because bytes of a turn are kept).
        assert srv.call(reading()) == [(False, True)]
        mallory.socket.close()


def test_messages_written_with_the_hello_wait_in_the_kernel_not_in_websockets_queue(
    srv: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before the welcome every message is queued for recv() (the session reads the hello
    # there). Today's parser queued all of a read's 400 at once (each a frame object); now
    # a turn is parsed only while websockets' queue is under its mark (16), so it never holds
    # more than that and one turn; the rest waits, unread.
    longest = [0]
    put = Assembler.put

    def measured(self: Assembler, frame: Frame) -> None:
        put(self, frame)
        longest[0] = max(longest[0], len(self.frames))

    monkeypatch.setattr(Assembler, "put", measured)
    count = 400
    ws = srv.connect()
    hello = json.dumps(hello_message(srv.server.secret)).encode()
    checks = [json.dumps(request(f"c-{n}")).encode() for n in range(count)]
    with loop_held(srv):
        ws.socket.sendall(
            b"".join(Frame(Opcode.TEXT, m).serialize(mask=True) for m in (hello, *checks))
        )
    replies = [receive(ws, 60) for _ in range(count + 1)]
    ws.close()
    assert replies[0]["type"] == "welcome"
    assert [(r["type"], r["outcome"]["id"]) for r in replies[1:]] == [
        ("outcome", f"c-{n}") for n in range(count)
    ]
    assert longest[0] <= 2 * MESSAGES_PER_TURN, longest[0]


def test_pings_written_behind_a_handshake_cut_in_its_empty_line_are_parsed_a_turn_at_a_time(
    srv: Running, trace: list[str]
) -> None:
    # A client need not wait for the handshake's answer: frames may follow its request in
    # the same write, and the request's empty line may be cut by a read. Today's server gave
    # all of such a read to websockets (it could not tell where the request ended).
    alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
    key = base64.b64encode(b"fairness-fairnes").decode()
    handshake = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()
    mallory = socket.create_connection(("127.0.0.1", srv.server.port), timeout=60)
    mallory.sendall(handshake[:-1])  # up to the middle of its empty line

    async def cut_read() -> bool:
        # websockets holds the request's last, unfinished line ("\r"): the first part is read.
        for _ in range(3000):
            handlers = srv.server._server.handlers
            if any(c.protocol.reader.buffer == b"\r" for c in handlers):
                return True
            await asyncio.sleep(0.01)
        return False

    assert srv.call(cut_read(), timeout=60), "the request's first part was never read"
    with loop_held(srv):
        mark = len(trace)
        mallory.sendall(handshake[-1:] + PING * TINY)
        alice.socket.sendall(heavy("alice-1", "elf", 1))
    assert answers(alice, 1) == ["alice-1"]
    mallory.close()
    alice.close()
    # At least a turn of the flood first: its read came before hers in that step (else the
    # bound would hold of a server that parses whole reads too).
    assert MESSAGES_PER_TURN <= _parsed_before(trace, mark, "decided elf") <= 2 * MESSAGES_PER_TURN


def test_a_read_ending_a_frame_cut_by_the_last_read_parses_that_frame_in_its_turn(
    srv: Running, trace: list[str]
) -> None:
    # The read that brings the rest of a frame websockets holds the start of ends that frame
    # in its step: it is one of the turn's frames (before, that read parsed a turn more).
    mallory, _ = srv.hello(token=srv.player("mallory", "orc"), events=[])
    alice, _ = srv.hello(token=srv.player("alice", "elf"), events=[])
    long_ping = Frame(Opcode.PING, b"p" * 125).serialize(mask=True)
    mallory.socket.sendall(long_ping[:50])  # its parse starts here (counted before the mark)

    async def cut_read() -> bool:
        for _ in range(3000):
            if any(c._owed for c in srv.server._server.handlers):
                return True
            await asyncio.sleep(0.01)
        return False

    assert srv.call(cut_read(), timeout=60), "the ping's first part was never read"
    with loop_held(srv):
        mark = len(trace)
        mallory.socket.sendall(long_ping[50:] + PING * 4 * MESSAGES_PER_TURN)
        alice.socket.sendall(heavy("alice-1", "elf", 1))
    assert answers(alice, 1) == ["alice-1"]
    mallory.close()
    alice.close()
    # Mallory's read first, in that step: the cut ping ended and 15 more parsed (16 frames).
    assert _parsed_before(trace, mark, "decided elf") == MESSAGES_PER_TURN - 1
