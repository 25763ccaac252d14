"""Outcomes reach every subscribed client; private parts and encounter state only who may see."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bridge.support import receive, request, running, send, tiny_config

pytestmark = pytest.mark.usefixtures("tiny_engine")


def test_an_outcome_is_broadcast_to_other_clients_with_each_ones_private_view(
    tmp_path: Path,
) -> None:
    with running(tiny_config(tmp_path)) as srv:
        gm, _ = srv.hello(role="gm", user="gm")
        alice, _ = srv.hello(token=srv.player("alice", "alice-pc"))
        # What a hello declares counts for nothing: bob's token holds bob-pc only.
        bob, _ = srv.hello(token=srv.player("bob", "bob-pc"), participants=["alice-pc"])
        send(alice, request("hand-1", "secret", {"owner": "alice-pc"}))
        mine = receive(alice)
        seen_by_bob = receive(bob)
        seen_by_gm = receive(gm)
        for ws in (gm, alice, bob):
            ws.close()
    card = mine["outcome"]["private"]["alice-pc"]["card"]
    assert mine["type"] == "outcome" and 1 <= card <= 10
    assert seen_by_bob["type"] == "event" and seen_by_bob["event"] == "outcome"
    assert seen_by_bob["seq"] == mine["seq"]
    assert seen_by_bob["outcome"]["private"] == {}
    # The GM connection sees every private entry.
    assert seen_by_gm["outcome"]["private"] == {"alice-pc": {"card": card}}


def test_encounter_state_carries_between_requests_but_never_reaches_a_client(
    tmp_path: Path,
) -> None:
    with running(tiny_config(tmp_path)) as srv:
        gm, _ = srv.hello(role="gm", events=[])
        for n, add in enumerate((3, 4, 5)):
            send(gm, request(f"t{n}", "tally", {"add": add}, encounter="e-1"))
            last = receive(gm)
        send(gm, request("t3", "tally", {"add": 5}, encounter="e-1"))
        retried = receive(gm)
        send(gm, request("t0", "tally", {"add": 3}, encounter="e-1"))
        replayed = receive(gm)
        send(gm, {"v": 1, "type": "state", "id": "q1", "encounter": "e-1"})
        no_state_query = receive(gm)
        gm.close()
        stored = srv.server.store.encounter("e-1")
    assert last["outcome"]["result"]["total"] == 12 and last["outcome"]["state"] is None
    assert retried["outcome"]["result"]["total"] == 17
    assert replayed["replayed"] is True and replayed["outcome"]["result"]["total"] == 3
    assert replayed["outcome"]["state"] is None
    assert no_state_query["code"] == "invalid_message"
    assert stored is not None and stored.state == {"total": 17} and stored.seq == 4


def test_subscribe_changes_the_events_a_client_receives(tmp_path: Path) -> None:
    with running(tiny_config(tmp_path)) as srv:
        watcher, _ = srv.hello(events=["outcome"])
        actor, _ = srv.hello(events=[])
        send(watcher, {"v": 1, "type": "subscribe", "id": "s", "events": []})
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "s"}
        send(actor, request("quiet"))
        receive(actor)
        send(watcher, {"v": 1, "type": "ping", "id": "after"})
        # The next message is the pong: no outcome event came in between.
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "after"}
        # Subscribing again brings the events back, from the next outcome on.
        send(watcher, {"v": 1, "type": "subscribe", "id": "again", "events": ["outcome"]})
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "again"}
        send(actor, request("heard"))
        assert receive(actor)["type"] == "outcome"
        event = receive(watcher)
        assert event["type"] == "event" and event["event"] == "outcome"
        assert event["outcome"]["id"] == "heard"
        watcher.close()
        actor.close()
