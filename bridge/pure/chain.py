"""How a row of the roll log is hashed into the chain (re-exported by
:mod:`arbiter.bridge.records`, which defines the rows: :class:`~arbiter.bridge.records.NewRoll`)."""

from __future__ import annotations

import hashlib
import json
import math
import struct
from typing import Any, Final

import orjson

COLUMNS: Final = (
    "request_id",
    "session",
    "user",
    "ruleset",
    "type",
    "encounter",
    "rules_hash",
    "request",
    "dice",
    "outcome",
    "counter",
    "scripted",
    "time",
    "player",
)
"""The fields of a row, in the order :func:`roll_hash` reads them from it by position
(``NewRoll``'s: ``arbiter.bridge.records`` checks them on import)."""

_LENGTH: Final = struct.Struct(">Q").pack
"""A part's length prefix: 8 bytes, big-endian."""


def row_hash(prev_hash: str, fields: list[Any]) -> str:
    """SHA-256 over the previous hash and each field, every part prefixed by its byte length.

    Text fields go in as UTF-8, other fields as their JSON text (``null``, ``true``, ``17``,
    ``1700000000.25``); the length prefixes (8 bytes, big-endian) make the encoding unambiguous.
    A text field may be given as its UTF-8 bytes already (the same digest, without encoding
    the text again).
    """
    parts: list[bytes] = []
    for part in [prev_hash, *fields]:
        data: bytes
        kind = type(part)
        if kind is str:
            data = part.encode("utf-8")
        elif kind is bytes:
            data = part
        else:
            data = _text(part).encode("utf-8")
        parts.append(_LENGTH(len(data)))
        parts.append(data)
    # One update over the joined bytes: the same digest as an update per part, in one call.
    return hashlib.sha256(b"".join(parts)).hexdigest()


_SCRIPTED: Final = (_LENGTH(5) + b"false", _LENGTH(4) + b"true")
"""The ``scripted`` part of a row, length prefix included, by ``scripted``."""
_NULL: Final = _LENGTH(4) + b"null"
_PREVIOUS: Final = _LENGTH(64)
"""The length prefix of a ``prev_hash`` (64 hex digits)."""
_PREFIXES: Final = tuple(_LENGTH(n) for n in range(4096))
"""The length prefixes of parts under 4 KiB, by length: a tuple index instead of a
``struct`` call (each part of a row has one)."""
_MIDDLE: Final[dict[tuple[Any, ...], bytes]] = {}
"""The parts from ``session`` to ``rules_hash``, each prefixed by its length, by their values:
they repeat on every row of a connection, so they are encoded and framed once (bounded:
cleared when full)."""
_MIDDLE_MAX: Final = 1024


def _prefix(size: int) -> bytes:
    """The length prefix of a part of ``size`` bytes."""
    return _PREFIXES[size] if size < 4096 else _LENGTH(size)


def _prefixed(data: bytes) -> bytes:
    return _prefix(len(data)) + data


def roll_hash(
    prev_hash: str,
    seq: int,
    roll: tuple[Any, ...],
    request: bytes,
    dice: bytes,
    outcome: bytes,
) -> str:
    """:func:`row_hash` of ``prev_hash`` and the row ``seq`` logging ``roll`` (a
    :class:`~arbiter.bridge.records.NewRoll`: its fields in column order), whose ``request``,
    ``dice`` and ``outcome`` texts are given as their UTF-8 bytes: the same digest, each part
    written out for the one shape of row the server logs. The row's ``player`` is the last
    part when it has one (:meth:`~arbiter.bridge.records.Roll.chain_hash`).

    The parts that repeat on every row of a connection (``session`` to ``rules_hash``) are
    framed once and kept (:data:`_MIDDLE`); the others are framed into one join, with no
    intermediate concatenation."""
    # Read by position (:data:`COLUMNS`): an attribute of a named tuple is a Python-level
    # lookup, an index is one C call.
    encounter = roll[5]
    key = roll[1:7]
    middle = _MIDDLE.get(key)
    if middle is None:
        if len(_MIDDLE) >= _MIDDLE_MAX:
            _MIDDLE.clear()
        session: str = roll[1]
        user: str = roll[2]
        ruleset: str = roll[3]
        kind: str = roll[4]
        rules_hash: str = roll[6]
        middle = b"".join(
            [
                _prefixed(session.encode()),
                _prefixed(user.encode()),
                _prefixed(ruleset.encode()),
                _prefixed(kind.encode()),
                _NULL if encounter is None else _prefixed(_text(encounter).encode()),
                _prefixed(rules_hash.encode()),
            ]
        )
        _MIDDLE[key] = middle
    previous = prev_hash.encode()
    number = b"%d" % seq
    request_id = _text(roll[0]).encode()
    counter = roll[10]
    counted: bytes
    # ``counter`` is an int or None; ``time`` a float (its JSON text is its repr when finite).
    if type(counter) is int:
        counted = b"%d" % counter
    elif counter is None:
        counted = b"null"
    else:
        counted = _text(counter).encode()
    when = roll[12]
    stamp: bytes
    # orjson writes a float in this range as its repr (the shortest text that reads back as
    # it, without exponent) several times faster than repr's dtoa; any other goes by repr.
    if type(when) is float and 1e-4 <= when < 1e16:
        stamp = orjson.dumps(when)
    else:
        stamp = _text(when).encode()
    # Each length prefix its own part, beside its text: the join copies a text once (a
    # prefixed copy of each first would copy the request and the outcome twice).
    parts = [
        _PREVIOUS if len(previous) == 64 else _LENGTH(len(previous)),
        previous,
        _PREFIXES[len(number)],
        number,
        _prefix(len(request_id)),
        request_id,
        middle,
        _prefix(len(request)),
        request,
        _prefix(len(dice)),
        dice,
        _prefix(len(outcome)),
        outcome,
        _prefix(len(counted)),
        counted,
        _SCRIPTED[1 if roll[11] else 0],
        _PREFIXES[len(stamp)],
        stamp,
    ]
    player = roll[13] if len(roll) > 13 else None
    if player is not None:
        name = _text(player).encode()
        parts.append(_LENGTH(len(name)))
        parts.append(name)
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _text(value: Any) -> str:
    # The JSON text of a field, without the json module's overhead for the common scalars.
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)  # what json.dumps writes for a finite float
    dumped: str = json.dumps(value)
    return dumped


__all__ = ["COLUMNS", "roll_hash", "row_hash"]
