"""What a host of many worlds (:mod:`arbiter.bridge.hosting`) reads from a connection's path,
and says in a "moved" close: the world ``/w/<world id>`` names, and the owner a 4010 names.

Free of the PostgreSQL driver, so ``arbiter serve`` checks its options without it.
"""

from __future__ import annotations

import json
import re
import urllib.parse

CLOSE_MOVED = 4010
"""This host does not serve the world: another host owns it. The close reason names it
(:func:`moved_reason`); reconnect there (docs/protocol.md)."""
CLOSE_TRY_AGAIN = 1013
"""The world could not be claimed or opened now (the database did not answer): try again."""
MAX_REASON_BYTES = 123
"""A websocket close reason's limit (RFC 6455: 125 bytes of payload, 2 of them the code)."""
MAX_WORLD_ID = 100
WORLD_PATH = re.compile(r"^/w/([^/]+)/?$")


def moved_reason(host_id: str, url: str) -> str:
    """The close reason of a "moved" close: ``{"owner": host id, "url": advertised URL}`` as
    compact JSON; without the URL when both would exceed the 123 bytes a close reason holds (the
    host id alone, cut to fit, after that). Each host checks at start that its own fits."""
    for value in ({"owner": host_id, "url": url}, {"owner": host_id}):
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        if len(text.encode()) <= MAX_REASON_BYTES:
            return text
    cut = host_id
    while True:  # escapes may make the text longer than the id: cut until it fits
        # (a character takes at most 6 bytes here, "\uXXXX": never cut more than needed)
        cut = cut[: len(cut) - max(1, (len(text.encode()) - MAX_REASON_BYTES) // 6)]
        text = json.dumps({"owner": cut}, separators=(",", ":"), ensure_ascii=False)
        if len(text.encode()) <= MAX_REASON_BYTES:
            return text


def check_reason_fits(host_id: str, url: str) -> None:
    """Raise ValueError when this host's "moved" reason would not hold its id and URL."""
    text = json.dumps({"owner": host_id, "url": url}, separators=(",", ":"), ensure_ascii=False)
    if len(text.encode()) > MAX_REASON_BYTES:
        raise ValueError(
            f"--host-id and --advertise-url are too long together ({len(text.encode())} bytes as "
            f"the 'moved' close reason {text}; a close reason holds {MAX_REASON_BYTES})"
        )


def world_of(path: str, default: str | None) -> str | None:
    """The world a connection's path names: ``/w/<id>`` (percent-decoded), or ``default`` at
    the bare path; None when the path names no world this host could serve."""
    path = path.split("?", 1)[0]
    if path in ("", "/"):
        return default
    match = WORLD_PATH.match(path)
    if match is None:
        return None
    world = urllib.parse.unquote(match.group(1))
    if not world or len(world) > MAX_WORLD_ID or not world.isprintable():
        return None
    return world


__all__ = [
    "CLOSE_MOVED",
    "CLOSE_TRY_AGAIN",
    "MAX_REASON_BYTES",
    "MAX_WORLD_ID",
    "check_reason_fits",
    "moved_reason",
    "world_of",
]
