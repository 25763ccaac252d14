"""The records of the roll log and the store, and how a row is hashed into the chain.

Immutable records: the store writes and reads them; commands and replays consume them. A
:class:`Roll` is a :class:`NewRoll` (what was decided) plus its place in the log and its link in
the hash chain.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

GENESIS = "0" * 64
"""The ``prev_hash`` of the first row."""


_FALLBACK = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_SORTED = orjson.OPT_SORT_KEYS


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 text unescaped. Equal values give equal text.

    The form is orjson's. For strings, integers, booleans, null, lists, string-keyed objects and
    floats from 1e-4 up it is exactly the text of ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``, written several times faster; a float under
    1e-4 is written ``0.000025`` and ``1e-7`` where json writes ``2.5e-05`` and ``1e-07`` (both
    read back as the same float); NaN and the infinities, which JSON has not, are written
    ``null``. What orjson cannot write (an integer beyond 64 bits, a key that is not a string) is
    written by the json module, the same way for the same value (non-finite floats ``null``
    there too). A value neither can write (a lone surrogate, which is not Unicode; an object
    that is not JSON) raises TypeError or ValueError.
    """
    return canonical_bytes(value).decode()


def canonical_bytes(value: Any) -> bytes:
    """:func:`canonical` as UTF-8 bytes (what is hashed and sent), without a text in between."""
    try:
        return orjson.dumps(value, option=_SORTED)
    except TypeError:
        # A lone surrogate raises UnicodeEncodeError (a ValueError) here.
        return _FALLBACK.encode(_finite(value)).encode("utf-8")


def canonical_around(value: dict[str, Any], key: str, text: bytes) -> bytes:
    """:func:`canonical_bytes` of ``value``, whose ``key`` (when present) holds the value that
    ``text`` is the canonical JSON of: that part is not serialised a second time."""
    if key not in value:
        return canonical_bytes(value)
    try:
        return orjson.dumps({**value, key: orjson.Fragment(text)}, option=_SORTED)
    except TypeError:
        return canonical_bytes(value)


def _finite(value: Any) -> Any:
    # ``value`` with NaN and the infinities replaced by None, as orjson writes them.
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def kept(outcome: dict[str, Any], encounter: str | None) -> dict[str, Any]:
    """The outcome envelope as the roll log keeps it.

    Encounter state is kept only for an encounter: the server reads a state back only from the
    encounter a request names (the ``encounters`` row its log row updates), and clients never
    see state. A request that names no encounter (a combat-styles exchange carrying its stat
    blocks, a karmic hand dealt on the spot) has nowhere its state could be read again, so it
    is logged as ``null`` rather than stored, hashed and sent on every such row.
    """
    if encounter is None and outcome.get("state") is not None:
        return {**outcome, "state": None}
    return outcome


class NewRoll(NamedTuple):
    """A decided request about to be logged: every field of its row but the chain's.

    A named tuple rather than a frozen dataclass: as immutable, and built several times faster
    (one per decided request, one per row read back); its fields iterate in column order.
    """

    request_id: str
    session: str
    user: str
    ruleset: str
    type: str
    encounter: str | None
    rules_hash: str
    request: str
    """JSON of the request envelope (a retry is compared with it in canonical form)."""
    dice: str
    """Canonical JSON of the outcome's dice records."""
    outcome: str
    """Canonical JSON of the outcome envelope as kept (:func:`kept`). Its ``state`` (when not
    null) becomes the encounter's state."""
    counter: int | None
    """Keyed-dice counter before the first die; None when the dice were scripted."""
    scripted: bool
    time: float
    player: str | None = None
    """The player record (its name, the store's key) the request was decided for: his own
    connection's, or the GM's relay for him; None for the GM's own request, and for every row
    logged before the column was (an old row's owner is unknown). Whose a row is comes from
    here, never from ``user``, which is text a client chose (the GM's user name, a relay's
    ``NAME (relayed by GM-USER)`` label) and may spell another's name."""


class Roll(NamedTuple):
    """A row of the roll log: its place in the log, what was logged, and its link in the chain."""

    seq: int
    entry: NewRoll
    prev_hash: str
    """The previous row's ``hash`` (:data:`GENESIS` for the first row)."""
    hash: str
    """:func:`row_hash` of ``prev_hash``, ``seq`` and every field of ``entry``."""

    def chain_hash(self) -> str:
        """The hash this row's contents give (equal to ``hash`` unless the row was altered)."""
        return row_hash(self.prev_hash, hashed_fields(self.seq, self.entry))


@dataclass(frozen=True)
class Session:
    id: str
    seed: str
    commitment: str
    user: str
    client: str
    started: float
    ended: float | None

    def row(self) -> tuple[str, str, str, str, str, float, float | None]:
        """The fields in the order of both stores' ``sessions`` columns."""
        return (
            self.id,
            self.seed,
            self.commitment,
            self.user,
            self.client,
            self.started,
            self.ended,
        )


@dataclass(frozen=True)
class Encounter:
    id: str
    ruleset: str
    state: dict[str, Any] | None
    seq: int | None


@dataclass(frozen=True, slots=True)
class Player:
    """One player record as the store keeps it (never the token itself)."""

    name: str
    participants: tuple[str, ...]
    token_hash: str | None
    created: float
    revoked: float | None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def row(self) -> tuple[str, str, str | None, float, float | None]:
        return (
            self.name,
            json.dumps(list(self.participants)),
            self.token_hash,
            self.created,
            self.revoked,
        )

    @classmethod
    def from_row(cls, row: tuple[str, str, str | None, float, float | None]) -> Player:
        name, participants, token_hash, created, revoked = row
        return cls(name, tuple(json.loads(participants)), token_hash, created, revoked)


def hashed_fields(seq: int, roll: NewRoll) -> list[Any]:
    """What :func:`row_hash` hashes of the row ``seq`` logging ``roll``: ``seq`` and every
    field of ``roll`` in column order, ``player`` only when the row has one.

    A row without a player (the GM's own, or one logged before the column was) hashes as every
    row did before it, so an old log verifies unchanged; a row with one hashes it last (the
    length prefixes keep the two shapes apart)."""
    fields: list[Any] = [seq, *roll]
    if roll.player is None:
        fields.pop()
    return fields


_LENGTH = struct.Struct(">Q").pack
"""A part's length prefix: 8 bytes, big-endian."""


def row_hash(prev_hash: str, fields: list[Any]) -> str:
    """SHA-256 over the previous hash and each field, every part prefixed by its byte length.

    Text fields go in as UTF-8, other fields as their JSON text (``null``, ``true``, ``17``,
    ``1700000000.25``); the length prefixes (8 bytes, big-endian) make the encoding unambiguous.
    A text field may be given as its UTF-8 bytes already (the same digest, without encoding
    the text again).
    """
    parts: list[bytes] = []
    append = parts.append
    for part in (prev_hash, *fields):
        kind = type(part)
        if kind is str:
            data = part.encode("utf-8")
        elif kind is bytes:
            data = part
        else:
            data = _text(part).encode("utf-8")
        append(_LENGTH(len(data)))
        append(data)
    # One update over the joined bytes: the same digest as an update per part, in one call.
    return hashlib.sha256(b"".join(parts)).hexdigest()


_SCRIPTED = {True: _LENGTH(4) + b"true", False: _LENGTH(5) + b"false"}
"""The ``scripted`` part of a row, length prefix included."""
_NULL = _LENGTH(4) + b"null"
_PREVIOUS = _LENGTH(64)
"""The length prefix of a ``prev_hash`` (64 hex digits)."""
_PREFIXES = tuple(_LENGTH(n) for n in range(4096))
"""The length prefixes of parts under 4 KiB, by length: a tuple index instead of a
``struct`` call (each part of a row has one)."""
_MIDDLE: dict[tuple[str, str, str, str, str | None, str], bytes] = {}
"""The parts from ``session`` to ``rules_hash``, each prefixed by its length, by their values:
they repeat on every row of a connection, so they are encoded and framed once (bounded:
cleared when full)."""
_MIDDLE_MAX = 1024
_dumps = orjson.dumps


def roll_hash(
    prev_hash: str, seq: int, roll: NewRoll, request: bytes, dice: bytes, outcome: bytes
) -> str:
    """:func:`row_hash` of ``prev_hash`` and the row ``seq`` logging ``roll``, whose ``request``,
    ``dice`` and ``outcome`` texts are given as their UTF-8 bytes: the same digest, each part
    written out for the one shape of row the server logs (the general loop's type dispatch
    per part costs as much as the rest of the hashing glue). The row's ``player`` is the last
    part when it has one (:meth:`Roll.chain_hash`).

    The parts that repeat on every row of a connection (``session`` to ``rules_hash``) are
    framed once and kept (:data:`_MIDDLE`); the others are framed into one join, with no
    intermediate concatenation."""
    encounter, counter, when, player = roll.encounter, roll.counter, roll.time, roll.player
    key = (roll.session, roll.user, roll.ruleset, roll.type, encounter, roll.rules_hash)
    middle = _MIDDLE.get(key)
    if middle is None:
        if len(_MIDDLE) >= _MIDDLE_MAX:
            _MIDDLE.clear()
        middle = _MIDDLE[key] = b"".join(
            _LENGTH(len(data)) + data
            for data in (
                key[0].encode(),
                key[1].encode(),
                key[2].encode(),
                key[3].encode(),
                b"null" if encounter is None else encounter.encode(),
                key[5].encode(),
            )
        )
    prefixes = _PREFIXES
    length = _LENGTH
    previous = prev_hash.encode()
    number = b"%d" % seq
    request_id = roll.request_id.encode()
    # ``counter`` is an int or None; ``time`` a float (its JSON text is its repr when finite).
    if type(counter) is int:
        counted = b"%d" % counter
        counted = prefixes[len(counted)] + counted
    else:
        counted = _NULL if counter is None else _framed(_text(counter).encode())
    # orjson writes a float in this range as its repr (the shortest text that reads back as
    # it, without exponent) several times faster than repr's dtoa; any other goes by repr.
    stamp = _dumps(when) if type(when) is float and 1e-4 <= when < 1e16 else _text(when).encode()
    ids, texts, dices, outcomes = (len(request_id), len(request), len(dice), len(outcome))
    parts = [
        _PREVIOUS if len(previous) == 64 else length(len(previous)),
        previous,
        prefixes[len(number)],
        number,
        prefixes[ids] if ids < 4096 else length(ids),
        request_id,
        middle,
        prefixes[texts] if texts < 4096 else length(texts),
        request,
        prefixes[dices] if dices < 4096 else length(dices),
        dice,
        prefixes[outcomes] if outcomes < 4096 else length(outcomes),
        outcome,
        counted,
        _SCRIPTED[bool(roll.scripted)],
        prefixes[len(stamp)],
        stamp,
    ]
    if player is not None:
        name = player.encode()
        parts.append(length(len(name)))
        parts.append(name)
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _framed(data: bytes) -> bytes:
    return _LENGTH(len(data)) + data


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
    return json.dumps(value)


__all__ = [
    "GENESIS",
    "Encounter",
    "NewRoll",
    "Roll",
    "Session",
    "canonical",
    "canonical_around",
    "canonical_bytes",
    "hashed_fields",
    "kept",
    "roll_hash",
    "row_hash",
]


def chain_problems(rolls: Iterable[Roll]) -> list[str]:
    """Problems with the hash chain of ``rolls`` read in log order from the first row (empty
    when every row links to the one before and hashes to its contents)."""
    problems = []
    prev = GENESIS
    for roll in rolls:
        if roll.prev_hash != prev:
            problems.append(f"row {roll.seq}: prev_hash does not match row {roll.seq - 1}")
        if roll.chain_hash() != roll.hash:
            problems.append(f"row {roll.seq}: hash does not match its contents")
        prev = roll.hash
    return problems
