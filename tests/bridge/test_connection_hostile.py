"""A hostile client against the frames read straight from the socket (arbiter.bridge.connection):
frames cut at every byte, fragments with control frames between them, frames after a close,
text that is not UTF-8, declared lengths over the limit, reserved bits and opcodes. Each must
be answered or refused exactly as websockets' own parser does (RFC 6455)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.connection import Connection as WebsocketsConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close, Frame, Opcode
from websockets.sync.client import ClientConnection

from arbiter.bridge.limits import Limits
from tests.bridge.support import (
    Running,
    bundled_config,
    receive,
    request,
    running,
    tiny_config,
)
from tests.bridge.test_broadcast import deal_duel, karmic

FAST = Limits(rate_per_second=1e9, burst=10**9)
"""No rate limit: a test sends hundreds of messages."""


def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    """One masked client frame, as a browser writes it."""
    return Frame(opcode, data, fin).serialize(mask=True)


def ping(ident: str, pad: int = 0) -> bytes:
    return (json.dumps({"v": 1, "type": "ping", "id": ident}) + " " * pad).encode()


def write_at_once(ws: ClientConnection, *frames: bytes) -> None:
    ws.socket.sendall(b"".join(frames))


def close_code(ws: ClientConnection) -> int | None:
    """The code of the close frame the server sent, once no message comes before it."""
    with pytest.raises(ConnectionClosed) as closed:
        message = ws.recv(5)
        raise AssertionError(f"a message came instead of a close: {message!r}")
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


@pytest.fixture
def srv(tmp_path: Path) -> Iterator[Running]:
    with running(bundled_config(tmp_path, limits=FAST)) as server:
        yield server


@pytest.mark.parametrize("pad", [0, 200], ids=["7-bit length", "16-bit length"])
def test_a_message_cut_at_every_byte_is_answered_once_and_in_its_turn(
    srv: Running, pad: int
) -> None:
    ws, _ = srv.hello()
    size = len(frame(Opcode.TEXT, ping("x0", pad)))
    for cut in range(1, size):
        cut_frame = frame(Opcode.TEXT, ping(f"x{cut}", pad))
        write_at_once(ws, frame(Opcode.TEXT, ping(f"s{cut}")), cut_frame[:cut])
        assert receive(ws)["id"] == f"s{cut}"
        write_at_once(ws, cut_frame[cut:], frame(Opcode.TEXT, ping(f"t{cut}")))
        assert [receive(ws)["id"] for _ in range(2)] == [f"x{cut}", f"t{cut}"]
    ws.close()


@pytest.mark.parametrize("step", [1, 3])
def test_messages_trickled_a_few_bytes_per_read_are_answered_once_in_order(
    srv: Running, step: int
) -> None:
    # The pauses only make separate reads likely; nothing is asserted about time.
    ws, _ = srv.hello()
    stream = b"".join(
        (
            frame(Opcode.TEXT, ping("a", 200)),
            frame(Opcode.PING, b"x"),
            frame(Opcode.TEXT, ping("b")),
        )
    )
    for at in range(0, len(stream), step):
        ws.socket.sendall(stream[at : at + step])
        time.sleep(0.002)
    assert [receive(ws)["id"] for _ in range(2)] == ["a", "b"]
    ws.close()


def test_a_ping_cut_at_every_byte_between_two_messages_keeps_their_order(srv: Running) -> None:
    ws, _ = srv.hello()
    control = frame(Opcode.PING, b"are you there")
    for cut in range(1, len(control)):
        write_at_once(ws, frame(Opcode.TEXT, ping(f"a{cut}")), control[:cut])
        assert receive(ws)["id"] == f"a{cut}"
        write_at_once(ws, control[cut:], frame(Opcode.TEXT, ping(f"b{cut}")))
        assert receive(ws)["id"] == f"b{cut}"
    assert ws.ping().wait(5)
    ws.close()


def test_control_frames_between_fragments_are_answered_and_the_message_comes_whole(
    srv: Running,
) -> None:
    ws, _ = srv.hello()
    split = ping("b")
    write_at_once(ws, frame(Opcode.TEXT, ping("a")), frame(Opcode.TEXT, split[:5], fin=False))
    assert receive(ws)["id"] == "a"
    # Each in a read of its own: websockets' parser is between two frames at each, with a
    # message in fragments under way.
    write_at_once(ws, frame(Opcode.PING, b"1"))
    write_at_once(ws, frame(Opcode.CONT, split[5:9], fin=False), frame(Opcode.PONG, b"2"))
    assert ws.ping().wait(5)  # the server answers pings mid-message
    write_at_once(ws, frame(Opcode.CONT, split[9:]), frame(Opcode.TEXT, ping("c")))
    assert [receive(ws)["id"] for _ in range(2)] == ["b", "c"]
    ws.close()


def test_a_whole_text_frame_in_the_middle_of_a_fragmented_message_closes_with_1002(
    srv: Running,
) -> None:
    # The fragment ends a read: at the next one websockets' parser waits between frames,
    # but a continuation is due, so a new text frame is a protocol error, not a message.
    ws, _ = srv.hello()
    write_at_once(ws, frame(Opcode.TEXT, b'{"v": 1, ', fin=False))
    assert ws.ping().wait(5)  # the fragment is read before the next write
    write_at_once(ws, frame(Opcode.TEXT, ping("smuggled")))
    assert close_code(ws) == 1002


def test_a_continuation_frame_with_no_message_under_way_closes_with_1002(srv: Running) -> None:
    ws, _ = srv.hello()
    write_at_once(ws, frame(Opcode.TEXT, ping("a")), frame(Opcode.CONT, ping("b")))
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1002


def test_messages_after_a_close_frame_in_the_same_read_are_not_answered(srv: Running) -> None:
    ws, _ = srv.hello()
    write_at_once(
        ws,
        frame(Opcode.TEXT, ping("a")),
        frame(Opcode.CLOSE, Close(1000, "bye").serialize()),
        frame(Opcode.TEXT, ping("after-close")),
    )
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1000


def test_messages_after_a_close_frame_in_a_later_read_are_not_answered(srv: Running) -> None:
    ws, _ = srv.hello()
    write_at_once(
        ws, frame(Opcode.TEXT, ping("a")), frame(Opcode.CLOSE, Close(1000, "bye").serialize())
    )
    assert receive(ws)["id"] == "a"
    with contextlib.suppress(OSError):  # the server may have closed the TCP connection
        write_at_once(ws, frame(Opcode.TEXT, ping("after-close")))
    assert close_code(ws) == 1000


@pytest.mark.parametrize(
    "text",
    [
        b'"\xed\xa0\x80"',  # a UTF-16 surrogate encoded as UTF-8
        b'"\xc0\xaf"',  # an overlong encoding of "/"
        b'"\xf4\x90\x80\x80"',  # above U+10FFFF
        b'"abc\xe2\x82',  # a character cut at the end of the message
        b'"' + b"x" * 300 + b'\xff"',  # in a frame with a 16-bit length
    ],
    ids=["surrogate", "overlong", "above-max", "truncated", "16-bit"],
)
def test_a_text_frame_that_is_not_utf8_is_never_handed_on_and_closes_with_1007(
    srv: Running, text: bytes
) -> None:
    ws, _ = srv.hello()
    write_at_once(
        ws, frame(Opcode.TEXT, ping("a")), frame(Opcode.TEXT, text), frame(Opcode.TEXT, ping("b"))
    )
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1007


@pytest.mark.parametrize(
    "header",
    [
        bytes((0x81, 0x80 | 126)) + (2000).to_bytes(2),
        bytes((0x81, 0x80 | 127)) + (2000).to_bytes(8),
        bytes((0x81, 0x80 | 127)) + (1 << 62).to_bytes(8),
    ],
    ids=["16-bit", "64-bit", "2**62"],
)
def test_a_declared_length_over_the_frame_limit_closes_with_1009_before_its_payload(
    tmp_path: Path, header: bytes
) -> None:
    # Only the header is sent: the server must refuse at once, never wait for (or buffer)
    # the payload it announces.
    limits = Limits(rate_per_second=1e9, burst=10**9, max_frame_bytes=1000, max_message_bytes=500)
    with running(bundled_config(tmp_path, limits=limits)) as srv:
        ws, _ = srv.hello()
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), header + b"\x01\x02\x03\x04")
        assert receive(ws)["id"] == "a"
        assert close_code(ws) == 1009


@pytest.mark.parametrize(
    "first",
    [0x81 | 0x20, 0x81 | 0x10, 0x83, 0x8B, 0x09, 0x08],
    ids=["rsv2", "rsv3", "reserved-data-opcode", "reserved-control-opcode", "fragmented-ping",
         "fragmented-close"],
)  # fmt: skip
def test_a_frame_websockets_refuses_is_refused_with_1002(srv: Running, first: int) -> None:
    ws, _ = srv.hello()
    plain = frame(Opcode.TEXT, ping("b"))
    hostile = bytes((first,)) + plain[1:]
    write_at_once(ws, frame(Opcode.TEXT, ping("a")), hostile)
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1002


def test_a_ping_longer_than_125_bytes_closes_with_1002(srv: Running) -> None:
    ws, _ = srv.hello()
    too_long = bytes((0x89, 0x80 | 126)) + (130).to_bytes(2) + b"\0\0\0\0" + b"p" * 130
    write_at_once(ws, frame(Opcode.TEXT, ping("a")), too_long)
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1002


def test_a_raw_socket_that_never_masks_is_closed_with_1002(srv: Running) -> None:
    # Frames with the mask bit clear whose bytes happen to read as masked frames must not
    # be answered: the first one is the protocol error.
    ws, _ = srv.hello()
    unmasked = Frame(Opcode.TEXT, ping("b")).serialize(mask=False)
    write_at_once(ws, unmasked, frame(Opcode.TEXT, ping("c")))
    assert close_code(ws) == 1002


def test_whole_messages_in_one_read_are_read_without_websockets_parser(
    srv: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Guards the speed of issue #16 against a websockets upgrade: the fast path reads
    # websockets' private parser state, and if that changes it silently turns itself off
    # (every read then goes to websockets, correct but slow). This test then fails.
    calls: list[int] = []
    parse = WebsocketsConnection.data_received

    def counted(self: Any, data: bytes) -> None:
        calls.append(len(data))
        parse(self, data)

    ws, _ = srv.hello()
    write_at_once(ws, frame(Opcode.TEXT, ping("warm")))
    assert receive(ws)["id"] == "warm"
    monkeypatch.setattr(WebsocketsConnection, "data_received", counted)
    write_at_once(ws, *(frame(Opcode.TEXT, ping(f"m{i}")) for i in range(3)))
    assert [receive(ws)["id"] for _ in range(3)] == ["m0", "m1", "m2"]
    monkeypatch.undo()
    ws.close()
    assert calls == []


@pytest.mark.usefixtures("tiny_engine")
def test_a_client_that_never_reads_while_pipelining_is_dropped_with_4008(
    tmp_path: Path,
) -> None:
    # Requests in flight by the hundred, no answer read (about 40 KB each): the replies pile
    # up in the server's buffer until it drops the connection, so memory stays bounded by
    # max_send_buffer_bytes plus one read's worth of answers.
    limits = Limits(rate_per_second=1e9, burst=10**9, max_send_buffer_bytes=64 * 1024)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        ws, _ = srv.hello()
        dropped = 0
        sent = 0
        try:
            while not dropped and sent < 2000:
                batch = [
                    frame(Opcode.TEXT, json.dumps(request(f"g{sent + i}", "greedy",
                                                          {"dice": 1000})).encode())
                    for i in range(20)
                ]  # fmt: skip
                write_at_once(ws, *batch)
                sent += 20
                dropped = srv.call(_dropped(srv))
        except OSError:
            dropped = srv.call(_dropped(srv))
        ws.socket.close()
    assert dropped == 1


async def _dropped(srv: Running) -> int:
    return int(srv.server.health().get("dropped_too_slow", 0))


def view(rid: str, viewer: str) -> dict[str, Any]:
    return karmic(rid, "view", {"viewer": viewer})


def test_two_players_pipelining_in_the_same_commits_get_every_other_event_once_in_seq_order(
    tmp_path: Path,
) -> None:
    # Both connections' requests arrive in the same turns, so each is often the origin of one
    # outcome of a group commit and a listener of the other's: its events are held for its
    # reply (arbiter.bridge.broadcast). Nothing may be lost, doubled, reordered or leak a hand.
    rounds, per_round = 20, 4
    count = rounds * per_round
    with running(bundled_config(tmp_path, limits=FAST)) as srv:
        gm, _ = srv.hello(role="gm", user="gm", events=[])
        dealt = deal_duel(gm)
        hands = dealt["outcome"]["private"]
        alice, _ = srv.hello(token=srv.player("alice", "devon"))
        bob, _ = srv.hello(token=srv.player("bob", "soldier"))
        players = {"a": (alice, "devon"), "b": (bob, "soldier")}
        got: dict[str, list[dict[str, Any]]] = {who: [] for who in players}
        for round in range(rounds):
            # Both writes before reading: the server reads them in the same turn, mostly.
            for who, (ws, viewer) in players.items():
                ws.socket.sendall(
                    b"".join(
                        frame(Opcode.TEXT, json.dumps(view(f"{who}-{round}-{i}", viewer)).encode())
                        for i in range(per_round)
                    )
                )
            for who, (ws, _) in players.items():
                got[who] += [receive(ws, 30) for _ in range(2 * per_round)]
        for ws in (gm, alice, bob):
            ws.close()
    own_seqs = {}
    for who, messages in got.items():
        replies = [m for m in messages if m["type"] == "outcome"]
        assert len(replies) == count, [m for m in messages if m["type"] != "event"][:3]
        assert [r["outcome"]["id"] for r in replies] == [
            f"{who}-{r}-{i}" for r in range(rounds) for i in range(per_round)
        ]
        own_seqs[who] = [r["seq"] for r in replies]
        assert own_seqs[who] == sorted(own_seqs[who])
    for who, other in (("a", "b"), ("b", "a")):
        events = [m for m in got[who] if m["type"] == "event"]
        assert [e["seq"] for e in events] == own_seqs[other]  # each once, in seq order
        # A player never sees the other's hand in an event about it.
        mine = players[who][1]
        assert all(set(e["outcome"]["private"]) <= {mine} for e in events)
        assert all(e["outcome"]["private"] == {} for e in events)
    assert sorted(hands) == ["devon", "soldier"]


def test_a_client_offering_permessage_deflate_gets_no_extension_and_rsv1_closes_1002(
    srv: Running,
) -> None:
    # Compressed frames (RSV1) are never agreed, so never read as text: the server refuses
    # the offer, and a frame claiming compression anyway is a protocol error.
    ws = srv.connect(compression="deflate")
    assert ws.protocol.extensions == []
    assert "Sec-WebSocket-Extensions" not in (ws.response.headers if ws.response else {})
    ws.close()
    ws, _ = srv.hello()
    plain = frame(Opcode.TEXT, ping("b"))
    write_at_once(ws, frame(Opcode.TEXT, ping("a")), bytes((plain[0] | 0x40,)) + plain[1:])
    assert receive(ws)["id"] == "a"
    assert close_code(ws) == 1002
