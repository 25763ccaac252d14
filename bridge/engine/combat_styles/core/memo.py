"""One bounded memo for the engine's pure functions of rule data.

A rules view (:class:`~arbiter.bridge.engine.combat_styles.core.view.RulesView`) lives as long as its
ruleset, and a few computations recur on nearly every request with the same arguments (derived
attributes of a stat block, a weapon's damage dice, the effects a pairing may choose, a parry's
reduction, a check's target). Each keeps its answers in a :class:`Memo` found by name in the
view's ``memo`` (:func:`memo_of`), so every one of them is bounded the same way: at
:data:`LIMIT` answers the memo starts afresh (the keys in play at a table are few; a flood of
distinct ones costs a recomputation, never unbounded memory).

A memo only ever holds what its function returned for that key, so it changes no outcome: a
cleared memo computes the same answers again.
"""

from __future__ import annotations

from typing import Any, Final, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

LIMIT: Final = 4096
"""Answers a memo keeps before it starts afresh."""


class Memo(Generic[K, V]):
    """Answers by key, at most ``limit`` of them (:data:`LIMIT` unless said)."""

    def __init__(self, limit: int = LIMIT) -> None:
        """``limit``: answers kept before starting afresh (:data:`LIMIT` unless the answers
        are large)."""
        self.found: dict[K, V] = {}
        self.limit = limit

    def get(self, key: K) -> V | None:
        """The answer kept for ``key``, or None."""
        return self.found.get(key)

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` as the answer for ``key`` (first emptying a full memo); returns it."""
        if len(self.found) >= self.limit:
            self.found.clear()
        self.found[key] = value
        return value

    def __len__(self) -> int:
        return len(self.found)


def memo_of(memos: dict[str, Any], name: str, limit: int = LIMIT) -> Memo[Any, Any]:
    """The memo named ``name`` among a view's ``memos`` (made on first use, keeping at most
    ``limit`` answers)."""
    found: Memo[Any, Any] | None = memos.get(name)
    if found is None:
        found = memos[name] = Memo(limit)
    return found


def recalled(memos: dict[str, Any], name: str, key: Any) -> Any | None:
    """The answer kept for ``key`` by the memo named ``name`` among ``memos``, or None (none
    kept, or no such memo yet): :func:`memo_of` and :meth:`Memo.get` in one call, for the
    lookups made on every request (a miss then keeps its answer through :func:`memo_of`)."""
    memo: Memo[Any, Any] | None = memos.get(name)
    return memo.found.get(key) if memo is not None else None
