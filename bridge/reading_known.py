"""The request bodies the reader's envelope route validated and keeps
(:class:`~arbiter.bridge.pure.known_bodies._Known`, compiled with the engine): made here with
the bounds :class:`~arbiter.bridge.engine.envelope.Request` declares for an id, which that
module, free of pydantic, cannot read itself."""

from __future__ import annotations

from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.pure.known_bodies import NOT_KEPT, _Known, _new, _set


def _lengths(field: str) -> tuple[int, int]:
    """The (min, max) length :class:`Request` holds ``field`` to."""
    low, high = 0, 1 << 62
    for rule in Request.model_fields[field].metadata:
        low = getattr(rule, "min_length", None) or low
        high = getattr(rule, "max_length", None) or high
    return low, high


ID_LENGTHS = _lengths("id")


def known_bodies() -> _Known:
    """An empty keeper of validated bodies, taking the ids :class:`Request` takes."""
    return _Known(ID_LENGTHS)


__all__ = ["ID_LENGTHS", "NOT_KEPT", "_Known", "_new", "_set", "known_bodies"]
