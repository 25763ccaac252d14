"""Messages handed straight to the session (arbiter.bridge.connection) keep websockets' order and
its refusals: frames written by hand arrive in one segment, so one parse sees them all."""

from __future__ import annotations

import json
from pathlib import Path

from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import ClientConnection

from tests.bridge.support import bundled_config, hello_message, receive, running


def frame(opcode: Opcode, data: bytes, fin: bool = True) -> bytes:
    """One masked client frame, as a browser writes it."""
    return Frame(opcode, data, fin).serialize(mask=True)


def ping(ident: str) -> bytes:
    return json.dumps({"v": 1, "type": "ping", "id": ident}).encode()


def write_at_once(ws: ClientConnection, *frames: bytes) -> None:
    ws.socket.sendall(b"".join(frames))


def test_messages_sent_with_the_hello_are_answered_after_the_welcome_in_order(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws = srv.connect()
        hello = json.dumps(hello_message(srv.server.secret)).encode()
        write_at_once(ws, *(frame(Opcode.TEXT, m) for m in (hello, ping("a"), ping("b"))))
        replies = [receive(ws) for _ in range(3)]
        ws.close()
    assert [(r["type"], r.get("id")) for r in replies] == [
        ("welcome", None),
        ("pong", "a"),
        ("pong", "b"),
    ]


def test_a_whole_message_after_a_fragmented_one_waits_its_turn(tmp_path: Path) -> None:
    # The fragmented message goes through websockets' queue; the whole one after it, parsed
    # in the same callback, must not be answered before it.
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        split = ping("b")
        write_at_once(
            ws,
            frame(Opcode.TEXT, ping("a")),
            frame(Opcode.TEXT, split[:9], fin=False),
            frame(Opcode.CONT, split[9:]),
            frame(Opcode.TEXT, ping("c")),
            frame(Opcode.BINARY, b"\x00"),
        )
        replies = [receive(ws) for _ in range(4)]
        ws.close()
    assert [(r["type"], r.get("id") or r.get("code")) for r in replies] == [
        ("pong", "a"),
        ("pong", "b"),
        ("pong", "c"),
        ("error", "binary_frame"),
    ]


def test_a_text_frame_that_is_not_utf8_closes_the_connection_with_1007(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), frame(Opcode.TEXT, b'"\xff\xfe"'))
        assert receive(ws)["id"] == "a"
        try:
            ws.recv(5)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1007
        else:
            raise AssertionError("the connection stayed open")
