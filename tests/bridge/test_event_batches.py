"""A listener's outcome events go out in one write per flush: at the loop's next turn when the
last flush is ``delay`` or more ago, else ``delay`` after it; at once past ``max_bytes``; and
always ahead of the next frame sent to it, in the same write."""

from __future__ import annotations

from collections.abc import Callable

from websockets.protocol import State

from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.outbox import Outbox, text_frame
from tests.bridge.test_outbox import FakeConnection, FakeTransport


class ManualClock:
    """A clock that moves when the test says, and keeps the callbacks it was asked to run."""

    def __init__(self) -> None:
        self.now = 100.0
        self.timers: list[tuple[float, Callable[[], None]]] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> object:
        self.timers.append((self.now + delay, callback))
        return None

    def advance(self, seconds: float) -> None:
        """Move the time on and run every callback due by then, in order."""
        self.now += seconds
        due = sorted((t for t in self.timers if t[0] <= self.now), key=lambda t: t[0])
        self.timers = [t for t in self.timers if t[0] > self.now]
        for _, callback in due:
            callback()


class BufferedTransport(FakeTransport):
    """A transport whose unsent bytes the test sets (a peer that stopped reading)."""

    def __init__(self) -> None:
        super().__init__()
        self.unsent = 0

    def get_write_buffer_size(self) -> int:
        return self.unsent


def listener(limit: int = 10_000) -> tuple[Outbox, BufferedTransport]:
    ws = FakeConnection()
    transport = ws.transport = BufferedTransport()
    return Outbox(ws, limit, 1.0), transport  # type: ignore[arg-type]


def hold(batches: EventBatches, box: Outbox, *frames: bytes) -> None:
    batches.hold(box, frames, sum(map(len, frames)))


def event(seq: int, size: int = 10) -> bytes:
    return text_frame(f'{{"seq":{seq}}}'.ljust(size).encode())


def test_events_held_after_a_quiet_spell_go_at_the_next_turn_in_one_write() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    box, transport = listener()
    hold(batches, box, event(1))
    hold(batches, box, event(2), event(3))  # another commit before the loop turns
    assert transport.written == []
    assert [when for when, _ in clock.timers] == [clock.now]  # one flush, due at once
    clock.advance(0.0)
    assert transport.written == [event(1) + event(2) + event(3)]


def test_events_held_within_the_delay_of_the_last_flush_wait_for_it_never_longer() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    box, transport = listener()
    hold(batches, box, event(1))
    clock.advance(0.0)
    clock.advance(0.01)
    hold(batches, box, event(2))
    clock.advance(0.02)
    hold(batches, box, event(3))
    # Due 50 ms after the last flush (40 ms after the first of them was held), not before.
    assert [round(when - 100.0, 3) for when, _ in clock.timers] == [0.05]
    clock.advance(0.019)
    assert transport.written == [event(1)]
    clock.advance(0.001)
    assert transport.written == [event(1), event(2) + event(3)]


def test_a_frame_sent_to_a_listener_takes_its_held_events_ahead_of_it_in_the_same_write() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    box, transport = listener()
    hold(batches, box, event(1), event(2))
    box.send(b'{"type":"outcome"}')
    assert transport.written == [event(1) + event(2) + text_frame(b'{"type":"outcome"}')]
    clock.advance(0.0)  # the flush finds nothing left to write
    assert len(transport.written) == 1


def test_a_listener_holding_max_bytes_is_written_at_once_and_the_others_wait() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 100, clock)
    busy, busy_sent = listener()
    quiet, quiet_sent = listener()
    hold(batches, quiet, event(1, 60))
    hold(batches, busy, event(1, 60))
    assert busy_sent.written == [] and quiet_sent.written == []
    hold(batches, busy, event(2, 60))  # over 100 bytes held: written now
    assert busy_sent.written == [event(1, 60) + event(2, 60)]
    assert quiet_sent.written == [] and busy.held_bytes == 0
    clock.advance(0.0)
    assert quiet_sent.written == [event(1, 60)]
    assert len(busy_sent.written) == 1


def test_a_listener_that_stopped_reading_is_dropped_at_the_flush_and_the_others_still_written() -> (
    None
):
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    stalled, stalled_sent = listener(limit=1000)
    reader, reader_sent = listener(limit=1000)
    dropped: list[Outbox] = []
    stalled.drop = lambda: dropped.append(stalled)  # type: ignore[method-assign]
    hold(batches, stalled, event(1))
    hold(batches, reader, event(1))
    stalled_sent.unsent = 1001  # its peer read nothing of what it was sent
    clock.advance(0.0)
    # Dropped (close 4008) instead of written to: the server's memory never grows for it.
    assert dropped == [stalled] and stalled_sent.written == []
    assert reader_sent.written == [event(1)]


def test_nothing_is_held_for_a_connection_closing_or_dropped() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    closing, closing_sent = listener()
    closing.ws.protocol.state = State.CLOSING  # type: ignore[attr-defined]
    hold(batches, closing, event(1))
    assert closing.held_bytes == 0 and clock.timers == []
    held, held_sent = listener()
    hold(batches, held, event(1))
    held.dropped = True
    clock.advance(0.0)
    assert closing_sent.written == [] and held_sent.written == []


def test_a_listener_whose_write_fails_is_dropped_and_the_others_are_still_written() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 1000, clock)
    broken, _ = listener()
    reader, reader_sent = listener()
    dropped: list[Outbox] = []

    def fail(joined: object = None) -> None:
        raise OSError("the transport is gone")

    broken.release = fail  # type: ignore[method-assign]
    broken.drop = lambda: dropped.append(broken)  # type: ignore[method-assign]
    hold(batches, broken, event(1))
    hold(batches, reader, event(1))
    clock.advance(0.0)
    assert dropped == [broken]
    assert reader_sent.written == [event(1)]


def test_a_listener_whose_write_at_max_bytes_fails_is_dropped_and_the_others_still_held() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 100, clock)
    broken, _ = listener()
    full, full_sent = listener()
    quiet, quiet_sent = listener()
    dropped: list[Outbox] = []

    def fail(joined: object = None) -> None:
        raise OSError("the transport is gone")

    broken.release = fail  # type: ignore[method-assign]
    broken.drop = lambda: dropped.append(broken)  # type: ignore[method-assign]
    hold(batches, broken, event(1, 60))
    hold(batches, full, event(1, 60))
    # Past 100 bytes for the first two: written at once; the broken one's write raises.
    batches.hold_many([broken, full, quiet], (event(2, 60),), 60)
    assert dropped == [broken]
    assert full_sent.written == [event(1, 60) + event(2, 60)]
    hold(batches, broken, event(3, 60))  # the same through hold: dropped, nothing raised
    assert dropped == [broken, broken]
    clock.advance(0.0)
    assert quiet_sent.written == [event(2, 60)]


def test_holding_frames_for_many_listeners_at_once_is_a_hold_for_each_but_the_closed() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 100, clock)
    quiet, quiet_sent = listener()
    full, full_sent = listener()
    closing, closing_sent = listener()
    closing.ws.protocol.state = State.CLOSING  # type: ignore[attr-defined]
    hold(batches, full, event(1, 60))
    batches.hold_many([quiet, full, closing], (event(2, 60),), 60)
    # Over 100 bytes held: written at once; the others wait for the flush.
    assert full_sent.written == [event(1, 60) + event(2, 60)]
    assert quiet_sent.written == [] and closing.held_bytes == 0
    assert len(clock.timers) == 1
    clock.advance(0.0)
    assert quiet_sent.written == [event(2, 60)]
    assert closing_sent.written == [] and len(full_sent.written) == 1


def test_listeners_that_heard_the_same_events_since_the_last_flush_are_written_one_copy() -> None:
    clock = ManualClock()
    batches = EventBatches(0.05, 10_000, clock)
    (a, a_sent), (b, b_sent), (c, c_sent) = listener(), listener(), listener()
    for seq in (1, 2):
        batches.hold_many([a, b, c], (event(seq),), len(event(seq)))
    c.send(b"reply")  # c's reply took its events along
    batches.hold_many([a, b, c], (event(3),), len(event(3)))
    clock.advance(0.0)
    [for_a], [for_b] = a_sent.written, b_sent.written
    assert for_a == event(1) + event(2) + event(3) and for_a is for_b
    assert c_sent.written == [event(1) + event(2) + text_frame(b"reply"), event(3)]
