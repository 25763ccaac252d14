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
        alice, _ = srv.hello(role="player", user="alice", participants=["alice-pc"])
        bob, _ = srv.hello(role="player", user="bob", participants=["bob-pc"])
        send(alice, request("hand-1", "secret", {"owner": "alice-pc"}))
        mine = receive(alice)
        seen_by_bob = receive(bob)
        seen_by_gm = receive(gm)
        for ws in (gm, alice, bob):
            ws.close()
    card = mine["outcome"]["private"]["alice-pc"]["card"]
    assert mine["type"] == "outcome" and 1 <= card <= 10
    assert seen_by_bob["type"] == "event" and seen_by_bob["event"] == "outcome"
    assert seen_by_bob["outcome"]["private"] == {}
    assert seen_by_bob["seq"] == mine["seq"]
    assert seen_by_gm["outcome"]["private"] == {"alice-pc": {"card": card}}


def test_encounter_state_carries_between_requests_and_only_gms_read_it(tmp_path: Path) -> None:
    with running(tiny_config(tmp_path)) as srv:
        gm, _ = srv.hello(role="gm", events=[])
        player, _ = srv.hello(role="player", events=[])
        for n, add in enumerate((3, 4, 5)):
            send(gm, request(f"t{n}", "tally", {"add": add}, encounter="e-1"))
            last = receive(gm)
        send(player, request("t9", "tally", {"add": 1}, encounter="e-1"))
        seen_by_player = receive(player)
        send(gm, {"v": 1, "type": "state", "id": "q1", "encounter": "e-1"})
        state = receive(gm)
        send(player, {"v": 1, "type": "state", "id": "q2", "encounter": "e-1"})
        refused = receive(player)
        gm.close()
        player.close()
    assert last["outcome"]["result"]["total"] == 12
    assert last["outcome"]["state"] == {"total": 12}
    assert seen_by_player["outcome"]["result"]["total"] == 13
    assert seen_by_player["outcome"]["state"] is None
    assert state == {
        "v": 1,
        "type": "state",
        "id": "q1",
        "encounter": "e-1",
        "ruleset": "tiny",
        "state": {"total": 13},
        "seq": 4,
    }
    assert refused["code"] == "unauthorized" and refused["id"] == "q2"


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
        watcher.close()
        actor.close()
