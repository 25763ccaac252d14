"""Frames written ready-made (the bytes websockets itself would write for a server's text
frame), and frames held to go with the next write."""

from __future__ import annotations

import pytest
from websockets.frames import OP_TEXT, Frame
from websockets.protocol import State

from arbiter.bridge.outbox import Outbox, _payload, text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_a_text_frame_is_the_frame_websockets_writes_for_that_text(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    expected = Frame(OP_TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected
    assert _payload(text_frame(payload)) == payload


class FakeProtocol:
    def __init__(self) -> None:
        self.state = State.OPEN
        self.extensions: list[object] = []
        self.writes: list[bytes] = []


class FakeTransport:
    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return 0


class FakeConnection:
    """What an outbox uses of a websockets server connection, writing to a list."""

    def __init__(self) -> None:
        self.protocol = FakeProtocol()
        self.transport = FakeTransport()
        self.fragmented_send_waiter = None
        self.id = "fake"


def outbox() -> tuple[Outbox, FakeTransport]:
    ws = FakeConnection()
    return Outbox(ws, 1000, 1.0), ws.transport  # type: ignore[arg-type]


def test_held_frames_go_ahead_of_the_next_frame_in_the_same_write() -> None:
    box, transport = outbox()
    assert box.hold([text_frame(b"event-1"), text_frame(b"event-2")])
    assert transport.written == []
    box.send(b"reply")
    assert transport.written == [
        text_frame(b"event-1") + text_frame(b"event-2") + text_frame(b"reply")
    ]
    box.release()  # nothing left to write
    assert len(transport.written) == 1


def test_held_frames_no_frame_took_are_written_alone_on_release() -> None:
    box, transport = outbox()
    box.hold([text_frame(b"event")])
    box.release()
    box.release()
    assert transport.written == [text_frame(b"event")]


def test_nothing_is_held_for_a_closing_connection() -> None:
    box, transport = outbox()
    box.ws.protocol.state = State.CLOSING  # type: ignore[attr-defined]
    assert not box.hold([text_frame(b"event")])
    box.release()
    assert transport.written == []


def test_connections_holding_the_same_frames_share_one_joined_copy_and_others_get_their_own() -> (
    None
):
    same_a, sent_a = outbox()
    same_b, sent_b = outbox()
    other, sent_other = outbox()
    one, two = text_frame(b"event-1"), text_frame(b"event-2")
    same_a.hold([one, two])
    same_b.hold([text_frame(b"event-1"), two])  # equal bytes, another object: the same frames
    other.hold([one, text_frame(b"event-3")])
    joined: dict[tuple[bytes, ...], bytes] = {}
    for box in (same_a, same_b, other):
        box.release(joined)
    assert sent_a.written == [one + two] and sent_b.written == [one + two]
    assert sent_other.written == [one + text_frame(b"event-3")]
    assert len(joined) == 2


def test_a_chunk_of_several_frames_reaches_a_connection_websockets_frames_itself_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    box, transport = outbox()
    box.ws.protocol.extensions = ["permessage-deflate"]  # type: ignore[attr-defined]
    sent: list[str] = []
    monkeypatch.setattr("arbiter.bridge.outbox.broadcast", lambda _, text: sent.append(text))
    big = ("x" * 70_000).encode()
    box.hold([text_frame(b"event-1") + text_frame(big) + text_frame(b"event-3")])
    box.send(b"reply")
    assert sent == ["event-1", big.decode(), "event-3", "reply"]
    assert transport.written == []
