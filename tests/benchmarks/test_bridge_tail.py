"""benchmarks/bridge_tail.py: the server's events it times still exist under the names it
patches, and a request is counted against the events that ran while it waited."""

from __future__ import annotations

from arbiter.bridge.store import Store
from arbiter.bridge.stores.sqlite_checkpointer import Checkpointer
from benchmarks.bridge_tail import SERVER, overlapped


def test_the_wrapper_patches_methods_the_store_and_its_checkpointer_have() -> None:
    assert "Checkpointer.checkpoint = timed_checkpoint" in SERVER
    assert "Store._catch_up_now = timed_catch_up" in SERVER
    assert callable(Checkpointer.checkpoint)
    assert callable(Store._catch_up_now)


def test_a_request_is_counted_against_each_event_that_ran_while_it_waited() -> None:
    ms = 1_000_000
    trips = [
        (0, 1 * ms, 0),  # before everything
        (10 * ms, 12 * ms, 0),  # inside the checkpoint
        (19 * ms, 21 * ms, 0),  # the checkpoint ends and the catch-up begins inside it
        (30 * ms, 31 * ms, 0),  # after everything
    ]
    events = [
        ["catch-up", 20 * ms, 25 * ms],
        ["checkpoint", 5 * ms, 20 * ms, 4096, 3 * ms],
        ["gc0", 40 * ms, 41 * ms],
    ]

    assert overlapped(trips, events) == {
        "none of these": 2,
        "checkpoint": 1,
        "catch-up + checkpoint": 1,
    }
