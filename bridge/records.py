"""The records of the roll log and the store, and how a row is hashed into the chain.

Immutable records: the store writes and reads them; commands and replays consume them. A
:class:`Roll` is a :class:`NewRoll` (what was decided) plus its place in the log and its link in
the hash chain.

The canonical JSON of a row's texts and its hash (:func:`canonical`, :func:`row_hash`,
:func:`roll_hash`) are written in :mod:`arbiter.bridge.pure`, which is compiled with the engine
(they run for every request), and named here with the records they serialise.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from arbiter.bridge.pure.canonical import canonical, canonical_around, canonical_bytes
from arbiter.bridge.pure.chain import COLUMNS, roll_hash, row_hash

GENESIS = "0" * 64
"""The ``prev_hash`` of the first row."""


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


# roll_hash reads a row's fields by position: a reordered NewRoll would hash other columns.
assert NewRoll._fields == COLUMNS, f"NewRoll's fields changed: {NewRoll._fields}"


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
