"""The server's group commit: replies wait for the rows they rest on, one flush per group.

Every connection whose message arrives in one event-loop turn decides it and stages its row in
the world's store (:class:`arbiter.bridge.stores.WorldStore`); :class:`GroupCommit` then awaits
one ``store.flush()`` for all of them and only afterwards sends their replies, in the order they
were given. Nothing is told to anybody about a staged row before the flush that holds it
returned. One task runs the flushes, one at a time: while one is in flight (a PostgreSQL round
trip), what is decided meanwhile is staged for the next one, and every reply given meanwhile
waits behind those in flight, so a connection's replies never overtake each other.

A store whose flush never suspends (SQLite's) has its groups run by a plain callback of the
event loop rather than the task (:mod:`arbiter.bridge.committing_callback`, this class's base,
with the steps both share): the same steps in the same order; a group that must await a read
is handed to the task.

When a flush fails, a reply carrying an outcome whose row the store does not hold becomes
``unavailable`` (nothing was decided; the client retries and the id is decided anew); one whose
row it holds all the same goes as it is (a PostgreSQL commit that landed although its connection
broke, which the store found by reloading the world; a resend answered from an older row). "Its
row" is the very row the reply was made from (same hash), not merely a row of the same id: when
an earlier commit of the id landed unheard and the store could not reload then, the id's retry
is decided anew on a cache without that row; the reload of this flush finds the earlier row,
and the new outcome, which is not the logged one, must not go (the client's next retry gets the
logged outcome). The
outcome events of the rows that landed so are published too (and ``head`` moves past them),
before those replies: a listener connected throughout is never replayed what it missed live.
When the store could not reload then, the rows that landed are found by a later reload; the
next good flush publishes them (marked replayed, as a reconnect's) before its own events, so
``head`` never moves past a row whose event no listener was sent. A
reply with an error to send instead becomes that error, any other goes as it is. When it fails with
:class:`~arbiter.bridge.stores.StaleWriter` (another writer committed to the world, or claimed
it) the server must stop serving the world: ``on_stale`` is called once, after those replies.

**A resend whose row is not in memory** is answered
:class:`~arbiter.bridge.awaiting_commit.Recall` (:mod:`arbiter.bridge.awaiting_commit`).

**The lease fence** (a world served under a lease, docs/scaling.md "Many worlds per host"):
``fence()`` is asked before each flush and again before its replies leave. When it is false the
host's lease on the world may have ended (by its own clock) and another host may own it: no
reply of the group leaves as an outcome — every one becomes ``unavailable`` (its retry, at the
world's owner, gets the stored outcome if the row landed) — and ``on_stale`` is called with
:class:`LeaseEnded`.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from contextvars import Context
from typing import TYPE_CHECKING

from arbiter.bridge.awaiting_commit import (
    Answer,
    CommitFailed,
    Event,
    OutcomeRow,
    Recall,
    Redone,
    _retrieved,
)
from arbiter.bridge.committing_callback import GroupCallback, _send, _told
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.protocol import ErrorMessage
from arbiter.bridge.protocol_encoding import encode
from arbiter.bridge.records import Roll
from arbiter.bridge.stores import StaleWriter, WorldStore
from arbiter.bridge.views import OutcomeText

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession

log = logging.getLogger("arbiter.server")


class GroupCommit(GroupCallback):
    """The replies, waiters and events of the rows staged so far, and the task flushing them."""

    def __init__(
        self,
        store: WorldStore,
        failures: FailureLog,
        publish: Callable[[Sequence[Event]], None],
        on_stale: Callable[[StaleWriter], None],
        commit_failed: Callable[[str], ErrorMessage],
        on_failed: Callable[[], None] | None = None,
        fence: Callable[[], bool] | None = None,
        publish_late: Callable[[Sequence[Roll]], None] | None = None,
    ) -> None:
        """``on_failed``: told when a flush fails (what the store staged since the last good
        one is lost: the stat-block vault forgets the blocks it kept). ``fence``: None (a world
        served without a lease), or the lease's ``valid``. ``publish_late``: sends the listeners
        committed rows whose live event never went (see :meth:`_announce_late`)."""
        self.store = store
        self._publish_late = publish_late
        self._on_failed = on_failed
        self._fence = fence
        self.failures = failures
        self._publish = publish
        self._on_stale = on_stale
        self._commit_failed = commit_failed
        self._waiters: list[asyncio.Future[None]] = []
        self._answers: list[Answer] = []
        """Replies to send once the rows staged so far are committed, in the order given."""
        self._callbacks: list[Callable[[], None]] = []
        self._events: list[Event] = []
        """Outcomes staged so far to announce to the listeners once committed."""
        self._event_rows: list[OutcomeRow | None] = []
        """The row each of :attr:`_events` was made from (to tell, after a failed flush, the
        events whose very row landed all the same)."""
        self._scheduled = False
        """A group is waiting for the committer (which runs it next)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop the committer runs on (taken when the first group is scheduled)."""
        self._committer: asyncio.Task[None] | None = None
        """The task running the flushes, while there is one (a flush scheduled or in flight)."""
        self._calling = False
        """The callback running groups is scheduled or running (a store whose flush never
        suspends: :attr:`~arbiter.bridge.stores.WorldStore.flush_now`)."""
        self._handle: asyncio.Handle | None = None
        """The callback's handle while it waits in the loop's queue (see :meth:`read_done`)."""
        self._queued: asyncio.Handle | None = None
        """The handle :meth:`schedule` queues the callback with on the loop it runs on (one for
        all groups; it runs in a context of its own: the group reads no context variable)."""
        self._ready: deque[asyncio.Handle] | None = None
        """The loop's queue of callbacks ready to run (asyncio's private ``_ready``), or None
        (a loop without one: the callback always waits for its turn)."""
        self._plain = store.flush_now is not None
        """The store's flush never suspends (SQLite's): groups are scheduled as the callback,
        which asks :attr:`~arbiter.bridge.stores.WorldStore.flush_now` again for each group
        and hands the group to the task when it is None (a flush replaced to suspend)."""
        self._reads = False
        """A :class:`Recall` was queued since the task last started: the next group may await
        its read, so it is the task's."""
        self.head = store.count()
        """The last row whose outcome event was published (at start: the last row; they are
        numbered from 1). Every row at or below it is committed and announced, and every
        outcome above it still to announce waits here: a reconnecting client is replayed the
        rows up to it and hears the rest live (:mod:`arbiter.bridge.gap_replay`)."""

    async def committed(self) -> None:
        """Wait until every write staged so far is committed; raises :class:`CommitFailed`
        if the flush holding them failed. Each waiter has a future of its own, so a waiter
        cancelled (its connection closing) cancels nobody else's wait."""
        if self._committer is None and not self._calling and not self.store.pending:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self.schedule()
        await waiter

    def answer(
        self,
        session: ClientSession,
        reply: str | bytes | Recall,
        outcome_row: OutcomeRow | None = None,
        on_failure: ErrorMessage | None = None,
    ) -> None:
        """Send ``reply`` to ``session`` once every write staged so far is committed (at once
        when nothing is staged nor in flight), after the replies given before it (see the
        module's doc for a failed commit; a :class:`Recall` is answered when its turn comes,
        after its row is read back). The caller does not wait."""
        if isinstance(reply, Recall):
            self._reads = True
            if reply.read is None:
                # Started now, awaited in its turn: the committer waits for no read in sequence.
                read = asyncio.get_running_loop().create_task(self.store.recall(reply.request_id))
                read.add_done_callback(_retrieved)
                reply = reply._replace(read=read)
        elif (
            not self._answers
            and self._committer is None
            and not self._calling
            and not self.store.pending
            and (self._fence is None or self._fence())
        ):
            session.outbox.send(reply)
            return
        self._answers.append((session, reply, outcome_row, on_failure))
        self.schedule()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the writes staged so far are committed (never if that fails)."""
        self._callbacks.append(callback)

    def announce(
        self,
        seq: int,
        outcome: OutcomeText,
        origin: ClientSession,
        row: OutcomeRow | None = None,
    ) -> None:
        """Tell every listener but ``origin`` about an outcome once its row is committed
        (never if the commit fails, unless its very row ``row`` landed all the same). Called
        for every outcome decided, whoever listens now: a client may join (and be replayed up
        to :attr:`head`) before the row is committed."""
        self._events.append((seq, outcome, origin))
        self._event_rows.append(row)

    def schedule(self) -> None:
        """Make sure a flush runs for what is staged now, after the callbacks already ready to
        run: every connection whose message arrived in the same turn stages its row first."""
        if self._scheduled:
            return
        self._scheduled = True
        if self._committer is None and not self._calling:
            loop = self._loop
            if loop is None or not loop.is_running():
                # Kept: Python 3.11's get_running_loop() makes a system call (getpid) each time.
                loop = self._loop = asyncio.get_running_loop()
                ready = getattr(loop, "_ready", None)
                self._ready = ready if isinstance(ready, deque) else None
                self._queued = asyncio.Handle(self._run_now, (), loop, Context())
            if self._plain:
                self._calling = True
                ready, queued = self._ready, self._queued
                if ready is not None and queued is not None:
                    # What ``loop.call_soon(self._run_now)`` does, with one handle for every
                    # group rather than a new one (and a copy of the context) each: it is in
                    # the queue at most once (``_calling`` holds until it has run).
                    ready.append(queued)
                    self._handle = queued
                else:
                    self._handle = loop.call_soon(self._run_now)
            else:
                self._start_task(loop)

    async def drain(self) -> None:
        """Wait until no flush is scheduled or in flight (shutting down)."""
        while self._committer is not None or self._calling:
            if self._committer is not None:
                await asyncio.shield(self._committer)
            else:
                await asyncio.sleep(0)  # the callback scheduled before this step runs first

    def _start_task(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the task running the groups scheduled. When it cannot be started, nothing is
        left marked scheduled (the next :meth:`schedule` tries again) and the error goes up;
        a task an eager task factory ran to its end already is not kept as the committer."""
        run = self._run()
        try:
            task = loop.create_task(run, name="group-commit")
        except BaseException:
            run.close()
            self._scheduled = False
            raise
        if not task.done():
            self._committer = task

    async def _run(self) -> None:
        try:
            while self._scheduled:
                self._scheduled = False
                try:
                    await self._commit_group()
                except Exception:
                    # A bug must not stop the groups queued behind this one.
                    log.exception("the group commit failed unexpectedly")
        finally:
            # A Recall answered while this task ran was run by it: the next group is free.
            self._reads = False
            if self._committer is asyncio.current_task():
                self._committer = None

    async def _commit_group(self) -> None:
        waiters, answers, callbacks, events, event_rows = self._take()
        try:
            try:
                self._check_fence()
                await self.store.flush()
                # An answer never leaves after the lease's local deadline, even one committed.
                self._check_fence()
            except Exception as err:
                self._flush_failed(err, waiters, answers, events, event_rows)
                return
            # (Its test of the usual case written out: no coroutine per group for nothing late.)
            if (
                events
                and events[0][0] > self.head + 1
                and self._publish_late is not None
                and not await self._announce_late(events[0][0])
            ):
                # Rows before them landed unheard and could not be read: ``head`` stays at the
                # last row published, and this group's events go with those rows, late, once the
                # next group's read of them succeeds (its ``_announce_late`` reads them all).
                events = []
            if self._fenced():
                # The read of the rows landed unheard outlasted the lease: nothing leaves.
                self._lease_lost(answers, waiters)
                return
            if events:
                # In this step, with the flush's return: a row's event is published as soon as it
                # is committed, so ``head`` is never a row whose event is still to come.
                self._announce(events)
            for at, (session, reply, _, _) in enumerate(answers):
                if isinstance(reply, Recall):
                    redone, fresh = await self._recalled(reply)
                    if self._fenced():
                        # The read outlasted the lease: this reply and every one after it say
                        # nothing was decided (their retries go to the world's owner).
                        refused = encode(self._commit_failed(reply.request_id))
                        self._lease_lost(
                            [(session, refused, None, None), *answers[at + 1 :]], waiters
                        )
                        return
                    if fresh or self.store.pending:
                        # No row had the id after all (another id's digest): the message was
                        # decided now, its row is staged. Or rows were staged while the row was
                        # read (by other connections): the answer may rest on one of them (an id
                        # found absent, then decided by another). It and every reply after it
                        # wait for the next flush, in order.
                        self._answers[:0] = [(session, *redone), *answers[at + 1 :]]
                        self.schedule()
                        break
                    reply = redone[0]
                _send(session, reply)
            _told(waiters, callbacks)
        finally:
            # Cancelled (shutting down) or a bug: nobody waits for this group for ever.
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_exception(CommitFailed("the group commit stopped"))

    async def _recalled(self, recall: Recall) -> tuple[Redone, bool]:
        """The reply of a resend whose row had to be read back: the session's answer made
        again right after the read (no await between: :meth:`WorldStore.find` sees the row), or
        ``unavailable`` when the store could not read it (nothing is decided then). True with
        it when the store found no row (the id was not logged: decided now, staged)."""
        try:
            if recall.read is not None:
                await recall.read  # started when it was queued (it may be done already)
            # Served from memory now (the read above holds the row), unless let go meanwhile.
            found = await self.store.recall(recall.request_id)
            if self._fenced():
                # The read outlasted the lease: the caller refuses this and what follows.
                return (encode(self._commit_failed(recall.request_id)), None, None), False
            return recall.redo(), found is None
        except Exception as err:
            self.failures.report(
                f"a logged row of request {recall.request_id!r} could not be read back; its "
                "resend is answered unavailable",
                err,
            )
            return (encode(self._commit_failed(recall.request_id)), None, None), False
        finally:
            recall.settled()

    async def _announce_late(self, first: int) -> bool:
        """Before ``head`` moves to ``first`` or past it: publish the committed rows between
        that no live event announced. A failed flush whose COMMIT landed unheard, when the
        store could not reload then, left its events unpublished; a later reload found the
        rows, and the next good flush's events come after them. (Rows between that are
        refusals after dice have no event: nothing is sent for them.) False when the rows
        could not be read: nothing is published then, and ``head`` must not move."""
        if first <= self.head + 1 or self._publish_late is None:
            return True
        # Rows the store no longer holds in memory (more than its cache landed unheard) are
        # read first; no flush moves the cache while this committer awaits.
        held = self.store.cached_from() - 1
        rows: list[Roll] = []
        if self.head < held:
            try:
                rows = await self.store.read_rolls(self.head, min(held, first - 1))
            except Exception as err:
                self.failures.report("the rows that landed unheard could not be read", err)
                return False
        rows += [roll for roll in self.store.rolls(max(self.head, held)) if roll.seq < first]
        if rows and not self._fenced():  # else the caller lets the world go
            self._publish_late(rows)
            self.head = max(self.head, rows[-1].seq)
        return True
