"""What waits for the group commit (:mod:`arbiter.bridge.committing`): the replies
(:data:`Answer`), among them resends answered from a row read back (:class:`Recall`), the
outcome events (:data:`Event`), and the errors a wait ends with when the commit fails
(:class:`CommitFailed`, :class:`LeaseEnded`).

**A resend whose row is not in memory** (the PostgreSQL store holds only its most recent rows
whole): the session answers :class:`Recall` instead of a reply. It takes its place among the
replies like any other; when its turn comes (after the flush of its group), the committer awaits
``store.recall`` for the id and only then has the session answer the message again, now
synchronously from the row read back (the stored outcome, ``replayed: true``), and sends it
before the replies given after it. The id is never decided again: the store knows it is logged.
If the row cannot be read (the database away), the reply is ``unavailable`` (nothing decided).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from arbiter.bridge.protocol import ErrorMessage
from arbiter.bridge.records import Roll
from arbiter.bridge.stores import StaleWriter
from arbiter.bridge.views import OutcomeText

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession

OutcomeRow = tuple[str, str]
"""The row an outcome reply was made from: its request id and its hash."""


Redone = tuple[str | bytes, OutcomeRow | None, ErrorMessage | None]
"""A message answered again: its reply, the row of the outcome it carries, its failure reply."""


class Recall(NamedTuple):
    """A reply that needs the row of ``request_id`` read back first (a resend of an id logged
    in a row the store does not hold in memory): ``redo`` answers the message again once
    :meth:`~arbiter.bridge.stores.WorldStore.recall` read it, synchronously, in the same step."""

    request_id: str
    redo: Callable[[], Redone]
    settled: Callable[[], None] = lambda: None
    """Called once the recall is answered (or refused): the session counts its outstanding
    ones (at most ``MAX_RECALLS``)."""
    read: asyncio.Task[Roll | None] | None = None
    """The read of the row, started as soon as the recall is queued
    (:meth:`~arbiter.bridge.committing.GroupCommit.answer`), so that reads overlap while the
    replies keep their order."""


MAX_RECALLS = 8
"""At most this many resends of one connection wait for a row read back from the database;
more are refused ``rate_limited`` (each holds the world's replies until its read returns)."""


Answer = tuple["ClientSession", str | bytes | Recall, OutcomeRow | None, ErrorMessage | None]
"""A reply waiting for the commit: to whom, what, the row of the outcome it carries (None: not
an outcome), and the error to send instead should the commit fail (a bind's)."""

Event = tuple[int, OutcomeText, "ClientSession"]
"""An outcome to announce to the listeners once committed: its seq, its texts, its origin."""


class LeaseEnded(StaleWriter):
    """The host's lease on the world is no longer valid (lost to another host, or past its local
    deadline): nothing more may be answered or committed for the world here."""


class CommitFailed(Exception):
    """The group commit a waiter waited for failed: nothing staged in it was committed (the
    store's error is the cause)."""


def _retrieved(read: asyncio.Task[Roll | None]) -> None:
    """A read's failure is reported where it is awaited; one never awaited (its group's flush
    failed) is not an unhandled error."""
    if not read.cancelled():
        read.exception()
