"""Outcomes reach every subscribed client; private parts and encounter state only who may see.

On the bundled rules: a karmic duel's hands are the private parts, a combat-styles encounter's
rounds the state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.bridge.support import bundled_config, bundled_request, receive, running, send
from tests.security.support import DEVON, SOLDIER

FIGHTER = {
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear"],
}


def karmic(rid: str, type: str, body: dict, encounter: str = "duel") -> dict:
    return bundled_request(rid, type, body, ruleset="karmic", encounter=encounter)


def deal_duel(gm: Any) -> dict:
    """Devon and the soldier's duel started, initiative drawn and hands dealt by ``gm``'s
    connection: the reply to the deal (its outcome's ``private`` holds both hands)."""
    setup = (
        karmic("k-1", "start_duel", {"combatants": [DEVON, SOLDIER]}),
        karmic("k-2", "draw_initiative", {"between": ["devon", "soldier"]}),
        karmic("k-3", "draw_hands", {}),
    )
    for message in setup:
        send(gm, message)
        dealt = receive(gm)
    return dealt


def test_an_outcome_is_broadcast_to_other_clients_with_each_ones_private_view(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm, _ = srv.hello(role="gm", user="gm")
        dealt = deal_duel(gm)
        alice, _ = srv.hello(token=srv.player("alice", "devon"))
        # What a hello declares counts for nothing: bob's token holds the soldier only.
        bob, _ = srv.hello(token=srv.player("bob", "soldier"), participants=["devon"])
        send(alice, karmic("view-1", "view", {"viewer": "devon"}))
        mine = receive(alice)
        seen_by_bob = receive(bob)
        seen_by_gm = receive(gm)
        for ws in (gm, alice, bob):
            ws.close()
    hands = dealt["outcome"]["private"]
    assert sorted(hands) == ["devon", "soldier"]  # the GM's own reply holds every hand
    assert mine["type"] == "outcome"
    assert mine["outcome"]["private"] == {"devon": hands["devon"]}
    assert len(hands["devon"]["hand"]) >= 1
    assert seen_by_bob["type"] == "event" and seen_by_bob["event"] == "outcome"
    assert seen_by_bob["seq"] == mine["seq"]
    assert seen_by_bob["outcome"]["private"] == {}
    # The GM connection sees every private entry of the view: Devon's.
    assert seen_by_gm["outcome"]["private"] == {"devon": hands["devon"]}


def test_encounter_state_carries_between_requests_but_never_reaches_a_client(
    tmp_path: Path,
) -> None:
    start = {"combatants": [{"id": "a", **FIGHTER}, {"id": "b", **FIGHTER}]}
    with running(bundled_config(tmp_path)) as srv:
        gm, _ = srv.hello(role="gm", events=[])
        send(gm, bundled_request("s0", "start_encounter", start, encounter="e-1"))
        started = receive(gm)
        send(gm, bundled_request("s1", "initiative", {}, encounter="e-1"))
        receive(gm)
        for n in range(3):
            send(gm, bundled_request(f"r{n}", "next_round", {}, encounter="e-1"))
            last = receive(gm)
        send(gm, bundled_request("r3", "next_round", {}, encounter="e-1"))
        retried = receive(gm)
        send(gm, bundled_request("r0", "next_round", {}, encounter="e-1"))
        replayed = receive(gm)
        send(gm, {"v": 1, "type": "state", "id": "q1", "encounter": "e-1"})
        no_state_query = receive(gm)
        gm.close()
        stored = srv.server.store.encounter("e-1")
    assert started["outcome"]["state"] is None
    assert last["outcome"]["result"]["round"] == 4 and last["outcome"]["state"] is None
    assert retried["outcome"]["result"]["round"] == 5
    # Resending the first round's id replays it: round 2, not a sixth round.
    assert replayed["replayed"] is True and replayed["outcome"]["result"]["round"] == 2
    assert replayed["outcome"]["state"] is None
    assert no_state_query["code"] == "invalid_message"
    assert stored is not None and stored.seq == 6
    assert stored.state is not None and stored.state["round"] == 5


def test_subscribe_changes_the_events_a_client_receives(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        watcher, _ = srv.hello(events=["outcome"])
        actor, _ = srv.hello(events=[])
        send(watcher, {"v": 1, "type": "subscribe", "id": "s", "events": []})
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "s"}
        send(actor, bundled_request("quiet"))
        receive(actor)
        send(watcher, {"v": 1, "type": "ping", "id": "after"})
        # The next message is the pong: no outcome event came in between.
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "after"}
        # Subscribing again brings the events back, from the next outcome on.
        send(watcher, {"v": 1, "type": "subscribe", "id": "again", "events": ["outcome"]})
        assert receive(watcher) == {"v": 1, "type": "pong", "id": "again"}
        send(actor, bundled_request("heard"))
        assert receive(actor)["type"] == "outcome"
        event = receive(watcher)
        assert event["type"] == "event" and event["event"] == "outcome"
        assert event["outcome"]["id"] == "heard"
        watcher.close()
        actor.close()
