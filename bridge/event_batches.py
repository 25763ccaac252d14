"""Outcome events go to each listener in batches: one write per listener per flush, not per commit.

Written at once, the events of every group commit cost each listener one system call (and the
kernel's loopback or network path, and a wake-up of the peer): with 100 listeners, about 100
writes per group commit, so the kernel's time per request grew as listeners × commits ÷
requests (2.2 to 2.7 times the unsubscribed server's CPU per request at 100 connections, when
the user-space work differed by 9%). Instead, a listener's events are held in its outbox
(:meth:`arbiter.bridge.outbox.Outbox.hold`) and leave:

* **with the next frame anything sends it**, in the same write, ahead of that frame: its own
  reply, a pong, a ``rules_updated``, a late or replayed event. So a listener's replies never
  wait, and the order on its wire is what it was when every event was written at once: each
  event ahead of everything sent to it after its commit, events in ``seq`` order;
* **at the batches' flush**: one timer per world writes every listener's held events, each in
  one write. After a quiet spell (no flush in the last ``delay`` seconds) it runs at the loop's
  next turn, so an outcome at a table of humans reaches the listeners as soon as before; while
  outcomes keep coming, at most one flush runs per ``delay`` (50 ms), and no event waits
  longer than that;
* **when the bytes it holds reach** ``max_bytes``: at once (its held memory stays under
  ``max_bytes`` plus one group commit's events, beside the send buffer limit).

What it costs per listener. Each commit's events are held for every listener that sees them
alike in one loop (:meth:`EventBatches.hold_many`), and the flush joins a sequence of held
frames once for every listener holding an equal one (:meth:`arbiter.bridge.outbox.Outbox.release`):
at 100 listeners most hold exactly the events since the last flush, so one copy of them is
written to all of those, instead of one copy made per listener. Equal bytes are all that is
ever shared, so no listener gets a frame another's view holds.

Holding changes nothing else: an event is held only once its row is committed (the group commit
publishes after its flush returned), a listener that stopped reading is dropped when a write puts
it over its send buffer limit (close 4008, :mod:`arbiter.bridge.outbox`) and nothing is held for it
after, and a connection the server closes (revoked, the world lost, shutting down) is given its
held events first, ahead of its close frame (``ArbiterServer.leave`` and ``close``).

Why a delay, and why this long. Holding events for one loop turn merges nothing: the group
commit already commits everything that arrived in a turn at the next one, so a second commit
never lands in the same turn (at 100 subscribed connections, under ``strace``: 7.4 ``sendto``
per request held for a turn, 7.9 written at once). What a delay saves is one write per listener
per commit it spans, so it must span several commits: at 100 subscribed connections, where commits come
every ~25 ms, ``sendto`` per request fell from 9.4 (written at once) to 5.9 with 20 ms, 4.3 to
6.2 with 50 ms, 3.4 with 100 ms and 2.3 with 200 ms (counted with ``perf stat``, the server's
system calls during ``benchmarks/bridge_syscalls.py``'s requests; a few ms would change
nothing). 50 ms is not felt at a table, and applies only under a steady stream.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from arbiter.bridge.outbox import Outbox

log = logging.getLogger(__name__)


class Clock(Protocol):
    """What the batches use of the event loop (tests give their own)."""

    def time(self) -> float:
        """Now, in seconds (monotonic)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> object:
        """Run ``callback`` after ``delay`` seconds (0: at the loop's next turn)."""
        ...


class EventBatches:
    """The listeners holding events, and the timer that writes them: see the module's doc."""

    def __init__(self, delay: float, max_bytes: int, clock: Clock | None = None) -> None:
        """``clock``: None (the running loop, taken when first needed)."""
        self.delay = delay
        self.max_bytes = max_bytes
        self._clock = clock
        self._waiting: dict[Outbox, None] = {}
        """The outboxes holding events since the last flush (in order, each once)."""
        self._armed = False
        """A flush is due (its timer is running)."""
        self._last = float("-inf")
        """When the last flush ran (the clock's time)."""

    def hold(self, outbox: Outbox, frames: Sequence[bytes], size: int) -> None:
        """Hold ``frames`` (outcome events, framed) for ``outbox``'s next write: at the next
        flush (at the loop's next turn, or ``delay`` after the previous flush if that was
        less than ``delay`` ago), at once when it holds ``max_bytes`` or more, or with the next
        frame sent to it. ``size``: the bytes of ``frames``. Nothing is held for a connection
        closing or dropped."""
        if not outbox.hold(frames, size):
            return
        if outbox.held_bytes >= self.max_bytes:
            _release(outbox)
            return
        self._waiting[outbox] = None
        if not self._armed:
            self._arm()

    def hold_many(self, outboxes: Iterable[Outbox], frames: Sequence[bytes], size: int) -> None:
        """:meth:`hold` the same ``frames`` for every one of ``outboxes`` (one commit's events
        that every one of them sees alike): the same as a :meth:`hold` each, without a call of
        it each, since with many listeners this runs for every one of them at every commit."""
        waiting = self._waiting
        limit = self.max_bytes
        held = False
        for outbox in outboxes:
            if not outbox.hold(frames, size):
                continue
            if outbox.held_bytes >= limit:
                # Guarded as the flush is: the listeners after it still get the commit's
                # events, and the group commit that publishes never sees the failure.
                _release(outbox)
                continue
            waiting[outbox] = None
            held = True
        if held and not self._armed:
            self._arm()

    def _arm(self) -> None:
        """Start the timer of the next flush (see :meth:`hold` for when it runs)."""
        self._armed = True
        clock = self._clock
        if clock is None or (
            isinstance(clock, asyncio.AbstractEventLoop) and not clock.is_running()
        ):
            # Kept: Python 3.11's get_running_loop() makes a system call (getpid) each time.
            clock = self._clock = asyncio.get_running_loop()
        wait = self._last + self.delay - clock.time()
        clock.call_later(wait if wait > 0.0 else 0.0, self.flush)

    def flush(self) -> None:
        """Write every event held (the timer's callback; also called when shutting down)."""
        self._armed = False
        if self._clock is not None:
            self._last = self._clock.time()
        waiting, self._waiting = self._waiting, {}
        # The listeners that heard nothing else since the last flush hold the very same events:
        # joined once for all of them (Outbox.release), not once each.
        joined: dict[tuple[bytes, ...], bytes] = {}
        for outbox in waiting:
            # One listener's failed write must not strand the others' events: an idle
            # listener would otherwise hold them until its next frame, which may never come.
            _release(outbox, joined)


def _release(outbox: Outbox, joined: dict[tuple[bytes, ...], bytes] | None = None) -> None:
    """Write ``outbox``'s held events; a write that raises drops that listener (logged) and
    raises nothing, so the caller goes on to the other listeners."""
    try:
        outbox.release(joined)
    except Exception:
        log.exception("writing a listener's held events failed; dropping it")
        try:
            outbox.drop()
        except Exception:
            log.exception("dropping a listener whose write failed failed too")


__all__ = ["Clock", "EventBatches"]
