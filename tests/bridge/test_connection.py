"""Messages handed straight to the session (arbiter.bridge.connection) keep websockets' order and
its refusals: frames written by hand arrive in one segment, so one parse sees them all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import ClientConnection

from tests.bridge.support import (
    bundled_config,
    hello_message,
    receive,
    request,
    running,
    send,
    tiny_config,
)


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


@pytest.mark.parametrize("cut", [1, 3, 5, 7, 40])
def test_a_message_cut_across_two_reads_is_answered_in_its_turn(tmp_path: Path, cut: int) -> None:
    # Cut in its header (1: the length byte, 3: the 16-bit length, 5 and 7: the masking
    # key) or its payload: the server reads the start with a whole message before it, and
    # the rest only once that one is answered, together with a whole message after it.
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        long = b'{"v": 1, "type": "ping", "id": "b"' + b" " * 150 + b"}"  # a 16-bit length
        cut_frame = frame(Opcode.TEXT, long)
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), cut_frame[:cut])
        assert receive(ws)["id"] == "a"
        write_at_once(ws, cut_frame[cut:], frame(Opcode.TEXT, ping("c")))
        replies = [receive(ws)["id"] for _ in range(2)]
        ws.close()
    assert replies == ["b", "c"]


def test_control_frames_between_messages_are_answered_by_websockets_in_order(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        write_at_once(
            ws,
            frame(Opcode.TEXT, ping("a")),
            frame(Opcode.PING, b"unsolicited"),
            frame(Opcode.PONG, b"unsolicited"),
            frame(Opcode.TEXT, ping("b")),
        )
        replies = [receive(ws)["id"] for _ in range(2)]
        assert ws.ping().wait(5)  # still answering pings
        ws.close()
    assert replies == ["a", "b"]


def test_a_message_with_a_64_bit_length_is_answered(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        padded = b'{"v": 1, "type": "ping", "id": "big"' + b" " * 70_000 + b"}"
        write_at_once(ws, frame(Opcode.TEXT, padded), frame(Opcode.TEXT, ping("after")))
        replies = [receive(ws) for _ in range(2)]
        ws.close()
    assert replies[0]["code"] == "too_large"  # over max_message_bytes: refused, connection up
    assert replies[1]["id"] == "after"


def test_an_unmasked_frame_from_a_client_closes_the_connection_with_1002(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        unmasked = Frame(Opcode.TEXT, ping("b")).serialize(mask=False)
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), unmasked)
        assert receive(ws)["id"] == "a"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002


def test_a_frame_with_a_reserved_bit_closes_the_connection_with_1002(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        plain = frame(Opcode.TEXT, ping("b"))
        reserved = bytes((plain[0] | 0x40,)) + plain[1:]  # RSV1, with no extension agreed
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), reserved)
        assert receive(ws)["id"] == "a"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1002


def masked(data: bytes, key: bytes) -> bytes:
    """A final text frame of ``data`` masked with ``key`` (a browser draws one at random)."""
    assert len(data) < 126 and len(key) == 4
    return bytes((0x81, 0x80 | len(data))) + key + bytes(b ^ key[i % 4] for i, b in enumerate(data))


def test_bytes_inside_a_message_cut_by_a_read_are_never_read_as_a_frame_of_their_own(
    tmp_path: Path,
) -> None:
    # A hostile client picks its masks so that the bytes on the wire in the middle of one
    # message form a whole frame of their own (a ping "e"), and cuts the message just
    # before them: a reader that took the next read for the start of a frame would answer
    # a message that was never sent, and lose its place in the stream.
    inner = b'{"v":1,"type":"ping","id":"e"}'
    smuggled = masked(inner, b"\xe0" * 4)
    key = b"\xa0" * 4
    text = bytes(b ^ key[0] for b in smuggled).decode()  # printable: no quote, no backslash
    outer = json.dumps({"v": 1, "type": "ping", "id": "b" + text}).encode()
    carrier = masked(outer, key)
    cut = 6 + outer.index(text.encode())
    assert carrier[cut:].startswith(smuggled)
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        write_at_once(ws, frame(Opcode.TEXT, ping("a")), carrier[:cut])
        assert receive(ws)["id"] == "a"
        write_at_once(ws, carrier[cut:], frame(Opcode.TEXT, ping("c")))
        replies = [receive(ws)["id"] for _ in range(2)]
        ws.close()
    assert replies == ["b" + text, "c"]


@pytest.mark.usefixtures("tiny_engine")
def test_a_request_read_alone_is_committed_and_answered_before_its_read_returns(
    tmp_path: Path,
) -> None:
    """At the end of a read (nothing else ready on the loop), the group commit runs in the same
    step: the row staged by the read is committed and its reply written when the read ends."""
    with running(tiny_config(tmp_path)) as srv:
        commits = srv.server.commits
        # (staged when the read ended, still staged after read_done, replies sent by then)
        ends: list[tuple[bool, bool, int]] = []
        sent: list[str | bytes] = []
        read_done = commits.read_done

        def watched() -> None:
            staged = commits.store.pending
            read_done()
            ends.append((staged, commits.store.pending, len(sent)))

        commits.read_done = watched  # type: ignore[method-assign]
        gm, _ = srv.hello()

        async def watch() -> None:
            [session] = srv.server.clients
            send_reply = session.outbox.send

            def sending(reply: str | bytes) -> bool:
                sent.append(reply)
                return send_reply(reply)

            session.outbox.send = sending  # type: ignore[method-assign]

        srv.call(watch())
        send(gm, request("r-1"))
        reply = receive(gm)
        gm.close()
    assert reply["type"] == "outcome" and reply["outcome"]["id"] == "r-1"
    assert (True, False, 1) in ends  # committed and written within the read's own step
