"""The text of a request frame written as the client writes it: the shapes the reader's
envelope route (:meth:`arbiter.bridge.reading.FrameReader.read`) and its kept bodies
(:mod:`arbiter.bridge.pure.known_bodies`) recognise from the text alone, before any parse.
Compiled with the engine (:mod:`arbiter.bridge.pure`): every request frame goes through it."""

from __future__ import annotations

import re

_ENVELOPE = re.compile(
    r"""
    \s* \{ \s*
    (?: "v" \s* : \s* 1 \s* , \s* "type" \s* : \s* "request"
      | "type" \s* : \s* "request" \s* , \s* "v" \s* : \s* 1 )
    \s* , \s* "request" \s* : \s*
    """.replace("\\s", "[ \\t\\n\\r]"),  # JSON's whitespace only, not Unicode's
    re.VERBOSE,
)
"""The opening of a request frame whose members are ``v`` (1), ``type`` (``"request"``) and
then ``request``, written plainly (JSON's whitespace between tokens, no escapes): what the
client's ``JSON.stringify`` of ``{v: 1, type: "request", request}`` writes."""
_JSON_WHITESPACE = " \t\n\r"


_PLAIN_OPENINGS = ('{"v":1,"type":"request","request":', '{"v": 1, "type": "request", "request": ')
"""The openings :data:`_ENVELOPE` matches as ``JSON.stringify`` and ``json.dumps`` write them:
a prefix test is cheaper than the pattern."""


def _envelope_text(frame: str) -> str | None:
    """The text between a request frame's opening (:data:`_ENVELOPE`) and its closing brace,
    the whitespace around it trimmed; None for a frame that does not open and close so."""
    if frame.startswith(_PLAIN_OPENINGS[0]):
        start = len(_PLAIN_OPENINGS[0])
    elif frame.startswith(_PLAIN_OPENINGS[1]):
        start = len(_PLAIN_OPENINGS[1])
    else:
        opening = _ENVELOPE.match(frame)
        if opening is None:
            return None
        start = opening.end()
    if frame.endswith("}"):
        text = frame[start:-1]
    else:
        closed = frame.rstrip(_JSON_WHITESPACE)
        if not closed.endswith("}"):
            return None
        text = closed[start:-1]
    return text.rstrip(_JSON_WHITESPACE) if text.endswith(tuple(_JSON_WHITESPACE)) else text


_WS = " \t\n\r"
"""JSON's whitespace (not Unicode's)."""
_PLAIN = r'"([^"\\\x00-\x1f]*)"'  # a JSON string without escapes: its text is its value
_HEAD = re.compile(
    (
        r'\{W"id"W:W'
        + _PLAIN
        + r'W,W"ruleset"W:W'
        + _PLAIN
        + r'W,W"type"W:W'
        + _PLAIN
        + r'W,W"body"W:W'
    ).replace("W", f"[{_WS}]*")
)
"""The opening of a request envelope written plainly: ``id``, ``ruleset``, ``type`` (strings
without escapes: each one's text is its value) and then ``body``, whitespace between tokens."""
_ENCOUNTER = re.compile((r'"encounter"W:W(?:null|' + _PLAIN + r")W\}\Z").replace("W", f"[{_WS}]*"))
"""The end of such an envelope when its last member is ``encounter``, null or a string
without escapes (from the member's key on)."""


def _split(text: str, start: int) -> tuple[str, bool, str | None]:
    """The body's text of the envelope ``text`` whose body starts at ``start`` (after
    :data:`_HEAD`; the text ends with its closing brace), whether ``encounter`` is written
    after it (:data:`_ENCOUNTER`) and its string: the body is what lies between, one JSON value
    only when read as one."""
    at = text.rfind('"encounter"', start)
    if at >= 0:
        tail = _ENCOUNTER.match(text, at)
        before = text[start:at].rstrip(_WS)
        if tail is not None and before.endswith(","):
            return before[:-1], True, tail[1]
    return text[start:-1], False, None
