"""Per-connection limits: a token-bucket rate limit and a dice budget per request.

Both are enforced at the edge (the server); the engine never sees a clock, and sees a budget only
as the dice source the server hands it (:class:`BudgetedSource`, compiled with the engine because
it runs for every die; re-exported here).
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.bridge.engine.dice import BudgetedSource


@dataclass(frozen=True)
class Limits:
    """What one connection may do. Defaults suit a table of humans; tests and benchmarks widen them."""

    max_message_bytes: int = 64 * 1024
    """Larger frames are answered with ``too_large`` (frames over ``max_frame_bytes`` close)."""
    max_frame_bytes: int = 1024 * 1024
    """The websocket layer closes the connection (1009) above this; between the two, we answer."""
    rate_per_second: float = 50.0
    burst: int = 100
    auth_timeout_seconds: float = 5.0
    max_dice_per_request: int = 2000
    """Every die and every card shuffle swap counts; an engine asking for more is refused."""
    max_send_buffer_bytes: int = 1024 * 1024
    """Bytes sent to a connection and not yet read by it; over this it is dropped (close 4008,
    see ``arbiter.bridge.outbox``). Far above what a client that reads ever holds."""
    close_timeout_seconds: float = 10.0
    """How long a closing handshake may take before the transport is aborted."""
    event_flush_seconds: float = 0.05
    """Outcome events are written to the listeners at most once per this many seconds (each
    listener's in one write), and never later than this after the previous write of events
    (``arbiter.bridge.event_batches``): after a quiet spell an event goes at the event loop's
    next turn; under a steady stream of outcomes, each waits at most this long, unless a
    frame sent to the listener (its own reply) takes it first."""
    event_flush_bytes: int = 256 * 1024
    """A listener holding this many bytes of events is written to at once, whatever the time
    (so a listener's held events stay under it plus one group commit's)."""
    max_replay_rows: int = 500
    """How many rows of the roll log a reconnecting client's ``since`` may lie behind the last
    outcome (``arbiter.bridge.gap_replay``): farther, nothing is replayed and it is told so
    (``gap_too_large``). The replay is read and sent in one event-loop step; it must also fit
    in half of :attr:`max_send_buffer_bytes`."""


class TokenBucket:
    """``rate`` tokens per second up to ``capacity``; each message takes one.

    The caller passes the time (a monotonic clock: ``time.monotonic()``), so the bucket is
    testable.
    """

    def __init__(self, rate: float, capacity: int, now: float) -> None:
        self.rate = rate
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self.updated = now

    def take(self, now: float) -> float:
        """0.0 when a token was taken; otherwise the seconds until one will be available."""
        tokens = self.tokens + (now - self.updated) * self.rate
        if not tokens < self.capacity:  # min(capacity, tokens), NaN included, without a call
            tokens = self.capacity
        self.updated = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return 0.0
        self.tokens = tokens
        return (1.0 - tokens) / self.rate if self.rate > 0 else float("inf")


__all__ = ["BudgetedSource", "Limits", "TokenBucket"]
