"""Reading a client message on the slow path: JSON decoded leniently enough to name what is
wrong (:func:`decode`), then validated strictly against the protocol's models
(:func:`parse_client`); a message that fails raises :class:`ProtocolError`, which becomes an
``error`` reply."""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import ValidationError

from arbiter.bridge.jsontext import LongInteger, find, read_int
from arbiter.bridge.protocol import CLIENT_MESSAGE, VERSION, ClientMessage, ErrorMessage


class ProtocolError(ValueError):
    """A client message that cannot be accepted; becomes an ``error`` reply."""

    def __init__(
        self, code: str, message: str, id: str | None = None, unstored: str | None = None
    ) -> None:
        message = printable(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.id = id if id is None or printable(id) == id else None
        self.unstored = unstored
        """The participant whose block must be stored (``ErrorMessage.unstored``), if that
        is why; its id is in ``message`` too."""

    def reply(self) -> ErrorMessage:
        return ErrorMessage(id=self.id, code=self.code, message=self.message,  # type: ignore[arg-type]
                            unstored=self.unstored)  # fmt: skip


def printable(text: str) -> str:
    """``text`` made safe to send: lone surrogates (valid in JSON escapes, not in UTF-8) escaped."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def guess_id(data: Any) -> str | None:
    """The id a client meant for a message, read leniently from whatever JSON it sent."""
    if not isinstance(data, dict):
        return None
    candidate = data.get("id")
    request = data.get("request")
    if candidate is None and isinstance(request, dict):
        candidate = request.get("id")
    if isinstance(candidate, str) and 0 < len(candidate) <= 128:
        return candidate
    return None


def decode(text: str) -> Any:
    """JSON from a text frame; raises ProtocolError ``bad_json`` naming the position.

    An integer too long to read becomes a :class:`LongInteger` (see :func:`parse_client`).
    """
    try:
        return json.loads(text, parse_int=read_int)
    except (json.JSONDecodeError, RecursionError) as err:
        detail = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
        where = f" at position {err.pos}" if isinstance(err, json.JSONDecodeError) else ""
        raise ProtocolError("bad_json", f"not JSON: {detail}{where}") from None


def parse_client(data: Any) -> ClientMessage:
    """A message validated strictly from decoded JSON; raises ProtocolError naming the problem."""
    ident = guess_id(data)
    if not isinstance(data, dict):
        raise ProtocolError(
            "invalid_message", f"a message must be a JSON object, not {type(data).__name__}"
        )
    long = find(data, lambda value: isinstance(value, LongInteger))
    if long is not None:
        raise ProtocolError(
            "invalid_message",
            f"{long[0]}: an integer of {long[1].digits} digits, over the "
            f"{sys.get_int_max_str_digits()} this server reads",
            ident,
        )
    if "v" not in data:
        raise ProtocolError("invalid_message", "missing field 'v' (the protocol version, 1)", ident)
    version = data["v"]
    if type(version) is not int:
        written = json.dumps(version)[:32]
        raise ProtocolError(
            "invalid_message",
            f"v: the protocol version is the JSON integer {VERSION}, not {written}",
            ident,
        )
    if version != VERSION:
        raise ProtocolError(
            "unsupported_version",
            f"protocol version {version!r} is not supported; this server speaks v {VERSION}",
            ident,
        )
    try:
        # Strict, as the rule files are: decoded JSON holds exactly what the client wrote, so
        # this refuses what strict JSON-mode validation of the frame refuses ("5" for 5).
        return CLIENT_MESSAGE.validate_python(data, strict=True)
    except ValidationError as err:
        raise ProtocolError("invalid_message", describe(err, tag=data.get("type")), ident) from None


def describe(err: ValidationError, limit: int = 3, tag: Any = None) -> str:
    """One line naming each failing field (``request.body.skill: ...``), at most ``limit``.

    ``tag`` is the union member's tag, which pydantic puts first in every location; it is dropped
    so the location reads as the client's own field path.
    """
    parts = []
    for e in err.errors()[:limit]:
        path = list(e["loc"])
        if tag is not None and path and path[0] == tag:
            path = path[1:]
        loc = ".".join(str(p) for p in path)
        parts.append(f"{loc}: {e['msg']}" if loc else e["msg"])
    more = len(err.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)
