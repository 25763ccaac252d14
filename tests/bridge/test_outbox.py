"""Frames written ready-made: the bytes websockets itself would write for a server's text frame."""

from __future__ import annotations

import pytest
from websockets.frames import OP_TEXT, Frame

from arbiter.bridge.outbox import _payload, text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 65535, 65536, 200_000])
def test_a_text_frame_is_the_frame_websockets_writes_for_that_text(size: int) -> None:
    payload = ("é" * size).encode()[:size]
    expected = Frame(OP_TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected
    assert _payload(text_frame(payload)) == payload
