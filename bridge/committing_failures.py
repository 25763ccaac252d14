"""What the group commit (:class:`arbiter.bridge.committing.GroupCommit`, whose base this is)
sends when a flush fails or the lease may have ended after it: the rules are in
:mod:`arbiter.bridge.committing`'s doc ("When a flush fails", "The lease fence"). Shared by the
group run from a callback and the one the task runs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from arbiter.bridge.awaiting_commit import (
    Answer,
    CommitFailed,
    Event,
    LeaseEnded,
    OutcomeRow,
    Recall,
)
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.protocol import ErrorMessage
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.stores import RowNotCached, StaleWriter, WorldStore


class GroupFailures:
    """The failure paths of the group commit; the attributes are :class:`GroupCommit`'s."""

    store: WorldStore
    failures: FailureLog
    head: int
    _on_failed: Callable[[], None] | None
    _fence: Callable[[], bool] | None
    _publish: Callable[[Sequence[Event]], None]
    _on_stale: Callable[[StaleWriter], None]
    _commit_failed: Callable[[str], ErrorMessage]

    def _flush_failed(
        self,
        err: Exception,
        waiters: Sequence[asyncio.Future[None]],
        answers: Sequence[Answer],
        events: list[Event],
        event_rows: list[OutcomeRow | None],
    ) -> None:
        """The group's flush failed with ``err`` (or the lease ended): see the module's doc."""
        if self._on_failed is not None:
            self._on_failed()
        # A full disk fails every commit until someone makes room: one line each.
        self.failures.report(
            f"the roll log could not commit; {len(waiters) + len(answers)} answer(s) say "
            "nothing was decided",
            err,
        )
        failed = CommitFailed(str(err))
        failed.__cause__ = err
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(failed)
        if not isinstance(err, StaleWriter) and (self._fence is None or self._fence()):
            self._publish_landed(events, event_rows)
        self._refuse(answers, err)
        if isinstance(err, StaleWriter):
            self._on_stale(err)

    def _refuse(self, answers: Sequence[Answer], err: Exception) -> None:
        """Send the replies of a failed flush (or of one whose lease ended after it): see the
        module's doc."""
        for session, reply, outcome_row, on_failure in answers:
            if isinstance(reply, Recall):
                # Nothing is answered from the log after a failed commit: the retry is.
                reply.settled()
                reply = encode(self._commit_failed(reply.request_id))
            elif outcome_row is not None:
                # An outcome goes only if its row is committed all the same: a commit whose
                # connection broke after COMMIT (PostgreSQL; the store reloaded the world),
                # or a resend answered from an older row. Else nothing was decided; and a
                # row of the same id that is not this one (an earlier decision of the id
                # that landed unheard) means this outcome is not the logged one.
                request_id, row_hash = outcome_row
                try:
                    found = self.store.find(request_id)
                except RowNotCached:
                    found = None  # an old row, let go since: the retry reads it back
                # Never from a stale writer (its replies all say nothing was decided),
                # nor once the lease may have ended (the flush may have outlasted it).
                stale = isinstance(err, StaleWriter) or self._fenced()
                if stale or found is None or found.hash != row_hash:
                    reply = encode(self._commit_failed(request_id))
            elif on_failure is not None:
                reply = encode(on_failure)
            session.outbox.send(reply)

    def _lease_lost(
        self, answers: Sequence[Answer], waiters: Sequence[asyncio.Future[None]]
    ) -> None:
        """The lease ended while the committer awaited a read after a good flush: the replies
        left say nothing was decided, the waiters fail, and the world is let go here."""
        err = LeaseEnded("this host's lease on the world is no longer valid")
        failed = CommitFailed(str(err))
        failed.__cause__ = err
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(failed)
        self._refuse(answers, err)
        self._on_stale(err)

    def _publish_landed(self, events: list[Event], rows: list[OutcomeRow | None]) -> None:
        """After a failed flush, publish the events whose very row the store holds all the
        same (a COMMIT that landed although its connection broke): their requesters are told
        their outcomes, and the listeners must be too, before :attr:`head` moves past them —
        a listener connected throughout is never replayed what it missed live."""
        landed: list[Event] = []
        for event, row in zip(events, rows, strict=True):
            try:
                found = None if row is None else self.store.find(row[0])
            except RowNotCached:
                # Let go already (a flush of more rows than the cache holds): unconfirmed, so
                # not published; the listener's next replay reads it.
                found = None
            if found is not None and row is not None and found.hash == row[1]:
                landed.append(event)
        if landed:
            self.head = max(self.head, landed[-1][0])
            self._publish(landed)

    def _fenced(self) -> bool:
        """The lease may have ended (an await outlasted it): nothing more may leave."""
        return self._fence is not None and not self._fence()


__all__ = ["GroupFailures"]
