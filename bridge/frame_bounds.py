"""Where frames start and end in a websocket byte stream (RFC 6455 section 5.2), and whether
websockets' parser waits between two of them: what :mod:`arbiter.bridge.connection` needs to
parse a client's frames a turn at a time, and the benchmarks' client to read whole frames
itself."""

from __future__ import annotations

from websockets.protocol import Protocol
from websockets.streams import StreamReader

_AT_EOF = StreamReader.at_eof.__code__
"""The code of the step websockets' parser waits in between two frames (with no byte held)."""


def between_frames(protocol: Protocol) -> bool:
    """True when websockets' parser of ``protocol`` holds no byte and waits in the reader's
    ``at_eof`` (so the next byte read starts a frame); False mid-frame. After a close or a
    failure websockets' ``discard`` parser waits there too (what it is fed is dropped, whatever
    it holds). (The benchmarks' client, ``benchmarks/bridge_client.py``, asks the same of its
    own connection.)"""
    if protocol.reader.buffer or protocol.cur_size is not None or protocol.extensions:
        return False  # a frame cut by a read, a message in fragments, or an extension
    return parser_at_eof(protocol)


def parser_at_eof(protocol: Protocol) -> bool:
    """True when websockets' parser of ``protocol`` waits in its reader's ``at_eof`` (between
    two frames, or in its ``discard`` parser after a close or a failure)."""
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


def frame_end(data: bytes, at: int) -> int:
    """Where the frame whose header starts at ``data[at]`` ends (past ``len(data)`` when the
    read cut its payload); -1 when the read cut its header (RFC 6455 5.2: 2 bytes, 2 or 8 more
    for a long length, 4 more for a mask)."""
    end = len(data)
    if end - at < 2:
        return -1
    second = data[at + 1]
    length = second & 0x7F
    head = 6 if second & 0x80 else 2
    if length == 126:
        head += 2
        if end - at < head:
            return -1
        length = int.from_bytes(data[at + 2 : at + 4])
    elif length == 127:
        head += 8
        if end - at < head:
            return -1
        length = int.from_bytes(data[at + 2 : at + 10])
    elif end - at < head:
        return -1
    return at + head + length


__all__ = ["between_frames", "frame_end", "parser_at_eof"]
