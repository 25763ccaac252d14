"""``TokenBucket``: the rate limit, on a clock the test passes in (no wall clock)."""

from __future__ import annotations

import pytest

from arbiter.bridge.limits import TokenBucket


def test_a_full_bucket_gives_its_burst_then_says_how_long_until_the_next_token() -> None:
    bucket = TokenBucket(rate=2.0, capacity=3, now=100.0)
    assert [bucket.take(100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(100.0) == pytest.approx(0.5)
    assert bucket.take(100.2) == pytest.approx(0.3)


def test_tokens_come_back_at_the_rate_and_never_beyond_the_capacity() -> None:
    bucket = TokenBucket(rate=2.0, capacity=3, now=0.0)
    for _ in range(3):
        bucket.take(0.0)
    assert bucket.take(0.5) == 0.0  # one token after half a second at 2 a second
    assert bucket.take(0.5) == pytest.approx(0.5)
    # An hour idle refills to the capacity, not to 7200 tokens.
    assert [bucket.take(3600.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(3600.0) == pytest.approx(0.5)


def test_a_zero_rate_never_refills() -> None:
    bucket = TokenBucket(rate=0.0, capacity=1, now=0.0)
    assert bucket.take(0.0) == 0.0
    assert bucket.take(10**9) == float("inf")
