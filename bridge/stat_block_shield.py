"""What a player hears of a request that uses the GM's stat blocks, and of a resend.

A refusal of a player's request that used (or named) a block of somebody he does not hold says
one fixed thing (:data:`SHIELDED`): its reason may depend on that block. One refusal says more,
in words that depend on the participant's id alone: none is stored for somebody he does not hold
(:data:`MUST_BE_STORED`), which a request naming the id would tell him anyway (it is decided
when one is). Only the refusals that read no body
(:data:`~arbiter.bridge.admission.BODY_BLIND`) reach him as they are. A resend of an id logged
for somebody else is refused in words that depend on nothing he sent (:data:`ANOTHERS`,
:func:`written_by`: whose the row is, by the player record it logs, never by its ``user``
text). :mod:`arbiter.bridge.stat_block_vault` decides which applies.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

from arbiter.bridge.admission import BODY_BLIND
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.reading import Sent
from arbiter.bridge.records import NewRoll
from arbiter.bridge.refusals import Refusal
from arbiter.bridge.views import Viewer

log = logging.getLogger("arbiter.vault")

ANOTHERS = (
    "request id {!r} was already used for another's request; a retry must resend your own "
    "request, a new request needs a new id"
)
"""A player's resend of an id logged for somebody else, whatever its body."""
SHIELDED = (
    "refused; the request uses a stat block only the GM may read, so the reason is the GM's "
    "to see (the server's log names it)"
)
"""What a player hears of any refusal of a request that used a block he may not read (but
:data:`MUST_BE_STORED`)."""
MUST_BE_STORED = (
    "invalid {type!r} request: {path}: the stat block of {participant!r} must be the GM's: a "
    "player's request is decided with the stored block of every participant he does not hold, "
    "whatever it writes in, and no {ruleset} stat block of {participant!r} is stored on the "
    "server; the GM stores one with the stat-block editor (his client also stores by itself "
    "the game system's block of each actor on the scene he views that has none, and of each "
    "combatant when he begins a combat in the tracker), then the request can be sent again"
)
"""A player's request naming a participant he does not hold whose block is not stored."""


def written_by(row: NewRoll, viewer: Viewer) -> bool:
    """Whether the logged request ``row`` was decided for player ``viewer`` (sent by his own
    connection, or relayed for him by the GM's): its ``player`` is his record's name.

    Never read from the row's ``user``: that text is a client's choice (the GM's user name may
    be a player's name; a player's name may read ``NAME (relayed by GM-USER)``). A row with no
    ``player`` (the GM's own, or one logged before the column was) is nobody's player's, so
    a resend of its id is refused as another's, never compared.
    """
    return viewer.player is not None and row.player == viewer.player


class Resolved(NamedTuple):
    """A request message with its references resolved, and whether its refusals are
    shielded (a player used a block he may not read).

    A named tuple: as immutable as a frozen dataclass, without its per-field
    ``object.__setattr__`` (one is built per request)."""

    read: RequestMessage | Sent
    shielded: bool = False
    foreign: bool = False
    """A player's request naming a block of somebody he does not hold, written in or
    referenced: its refusal after dice, the id's logged outcome, is shielded. A resend of the
    id is answered the same, and the log cannot tell a block he wrote in from one filled in
    from a reference (which he never saw)."""
    unlogged: bool = False
    """The request's id was looked up and is not logged: the decision need not look again."""

    def error(self, err: ProtocolError) -> ProtocolError:
        """The refusal ``err`` as the requester may hear it: as it is, unless shielded and
        its code is not one of :data:`~arbiter.bridge.admission.BODY_BLIND` (whose words
        depend on no stat block)."""
        if not self.shielded or err.code in BODY_BLIND:
            return err
        log.info("a request using the GM's stat blocks was refused: %s: %s", err.code, err)
        return ProtocolError("invalid_request", SHIELDED, err.id)

    def refusal(self, refusal: Refusal) -> tuple[str, str]:
        """A logged refusal after dice (code, message) as the requester may hear it."""
        code, message = refusal
        if not (self.shielded or self.foreign):
            return code, message
        log.info("a request naming the GM's stat blocks was refused: %s: %s", code, message)
        return "invalid_request", SHIELDED


__all__ = ["ANOTHERS", "MUST_BE_STORED", "SHIELDED", "Resolved", "written_by"]
