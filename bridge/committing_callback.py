"""The group commit's callback path (:class:`arbiter.bridge.committing.GroupCommit`, whose base
this is): the groups of a store whose flush never suspends (SQLite's:
:attr:`~arbiter.bridge.stores.WorldStore.flush_now`), run by a plain callback of the event loop
(``call_soon``) rather than a task: the same steps in the same order as the task's, without the
coroutines and the task each group cost (at one connection, every request is a group of its
own). A group that must await a read (a :class:`~arbiter.bridge.awaiting_commit.Recall`, or rows
that landed unheard to announce first) is handed to the task, which runs it and every group
after it until none is left, as with any other store. When a read of a connection ends with that
callback the only one the loop has ready, it runs at once (:meth:`GroupCallback.read_done`): it
would have run next anyway, after one more poll of the sockets whose findings wait behind it.

Also the steps both paths share: taking a group (:meth:`GroupCallback._take`), publishing its
events, sending its replies and telling its waiters. The rules (what leaves when, and after a
failed flush) are in :mod:`arbiter.bridge.committing`'s doc.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arbiter.bridge.awaiting_commit import Answer, Event, LeaseEnded, OutcomeRow, Recall
from arbiter.bridge.committing_failures import GroupFailures
from arbiter.bridge.records import Roll

if TYPE_CHECKING:
    from arbiter.bridge.session import ClientSession

log = logging.getLogger("arbiter.server")


class GroupCallback(GroupFailures):
    """The callback path of the group commit; the attributes are
    :class:`~arbiter.bridge.committing.GroupCommit`'s."""

    _publish_late: Callable[[Sequence[Roll]], None] | None
    _waiters: list[asyncio.Future[None]]
    _answers: list[Answer]
    _callbacks: list[Callable[[], None]]
    _events: list[Event]
    _event_rows: list[OutcomeRow | None]
    _scheduled: bool
    _calling: bool
    _handle: asyncio.Handle | None
    _ready: deque[asyncio.Handle] | None
    _reads: bool
    _start_task: Callable[[asyncio.AbstractEventLoop], None]
    """Starts the task running the groups scheduled
    (:class:`~arbiter.bridge.committing.GroupCommit`'s)."""

    def read_done(self) -> None:
        """A read's messages were all decided (a connection's ``data_received`` ends): when
        the callback running the group is all the loop has ready, run it now, in this step,
        rather than after the loop polled the sockets again. Nothing else could run before it:
        the loop runs the callbacks it has ready in their order, and what its next poll finds
        (or a timer falling due) only after them, so it would be next anyway; this spares a
        turn of the loop (an ``epoll_wait`` and its bookkeeping) per group, every request's at
        one connection. It reads asyncio's private queue of ready callbacks; with a loop that
        has none, the callback runs in its turn."""
        handle = self._handle
        ready = self._ready
        if handle is not None and ready is not None and len(ready) == 1 and ready[0] is handle:
            # The left end: a worker thread's ``call_soon_threadsafe`` (a ``to_thread`` ending)
            # may append on the right between the test and here; it must stay queued.
            ready.popleft()
            self._run_now()

    def _run_now(self) -> None:
        """The callback of a store whose flush never suspends: run the groups scheduled, one
        after the other, each as :meth:`~arbiter.bridge.committing.GroupCommit._commit_group` would; hand the first that may await a
        read (and every one after it) to the task."""
        self._handle = None
        try:
            while self._scheduled:
                events = self._events
                flush_now = self.store.flush_now
                if (
                    flush_now is None
                    or self._reads
                    or (events and events[0][0] > self.head + 1 and self._publish_late is not None)
                ):
                    self._reads = False
                    self._start_task(asyncio.get_running_loop())
                    return
                self._scheduled = False
                try:
                    self._commit_group_now(flush_now)
                except Exception:
                    # A bug must not stop the groups queued behind this one.
                    log.exception("the group commit failed unexpectedly")
        finally:
            self._calling = False

    def _commit_group_now(self, flush_now: Callable[[], None]) -> None:
        """:meth:`_commit_group` of a group with no read to await (no :class:`Recall`, no
        rows landed unheard to announce), its flush a plain call: nothing is awaited, so the
        fence checked after the flush still holds when the replies leave."""
        waiters, answers, callbacks, events, event_rows = self._take()
        leased = self._fence is not None  # else no fence to check: not even the call
        try:
            if leased:
                self._check_fence()
            flush_now()
            # An answer never leaves after the lease's local deadline, even one committed.
            if leased:
                self._check_fence()
        except Exception as err:
            self._flush_failed(err, waiters, answers, events, event_rows)
            return
        if events:
            self._announce(events)
        for session, reply, _, _ in answers:
            if isinstance(reply, Recall):  # never: a recall hands the group to the task
                log.error("a recall in a group run without the task: left unanswered")
                continue
            _send(session, reply)
        if waiters or callbacks:
            _told(waiters, callbacks)

    def _announce(self, events: list[Event]) -> None:
        """Publish the events of a committed group (``head`` moves past them first); a failure
        is logged: the rows are committed, so their replies still go, their waiters are told."""
        last = events[-1][0]
        if last > self.head:  # max(), without the call
            self.head = last
        try:
            self._publish(events)
        except Exception:
            log.exception("a group's outcome events could not be published")

    def _take(
        self,
    ) -> tuple[
        list[asyncio.Future[None]],
        list[Answer],
        list[Callable[[], None]],
        list[Event],
        list[OutcomeRow | None],
    ]:
        """The group: everything given since the last one was taken (the lists start anew)."""
        waiters, self._waiters = self._waiters, []
        answers, self._answers = self._answers, []
        callbacks, self._callbacks = self._callbacks, []
        events, self._events = self._events, []
        event_rows, self._event_rows = self._event_rows, []
        return waiters, answers, callbacks, events, event_rows

    def _check_fence(self) -> None:
        if self._fence is not None and not self._fence():
            raise LeaseEnded("this host's lease on the world is no longer valid")


def _send(session: ClientSession, reply: str | bytes) -> None:
    """Send a committed group's reply; one session's bug costs the others behind it nothing."""
    try:
        session.outbox.send(reply)
    except Exception:
        log.exception("a reply could not be sent")


def _told(waiters: Sequence[asyncio.Future[None]], callbacks: Sequence[Callable[[], None]]) -> None:
    """Tell a committed group's waiters and run its after-commit callbacks."""
    for waiter in waiters:
        if not waiter.done():
            waiter.set_result(None)
    for callback in callbacks:
        callback()


__all__ = ["GroupCallback"]
