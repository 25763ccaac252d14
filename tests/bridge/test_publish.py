"""Outcome events of one group commit: each listener gets its view of every other client's
outcome, in log order, in one write (at the batches' next flush, or with its reply); a view
shared by all is framed once."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.outbox import _payload
from arbiter.bridge.protocol import SERVER_MESSAGE, OutcomeEvent
from arbiter.bridge.server import ArbiterServer
from arbiter.bridge.views import GM, NOBODY, OutcomeText, Viewer
from tests.bridge.test_event_batches import ManualClock


@dataclass(eq=False)
class FakeOutbox:
    writes: list[list[bytes]] = field(default_factory=list)
    held: list[bytes] = field(default_factory=list)

    @property
    def held_bytes(self) -> int:
        return sum(map(len, self.held))

    def send_frames(self, frames: Any) -> bool:
        self.writes.append([*self.held, *frames])
        self.held = []
        return True

    def hold(self, frames: Any, size: int | None = None) -> bool:
        self.held.extend(frames)
        return True

    def release(self, joined: Any = None) -> None:
        if self.held:
            self.send_frames(())


CLOCK = ManualClock()


@dataclass(eq=False)
class FakeClient:
    viewer: Viewer
    outbox: FakeOutbox = field(default_factory=FakeOutbox)


@dataclass
class FakeServer:
    listeners: set[FakeClient]
    event_batches: EventBatches = field(default_factory=lambda: EventBatches(0.05, 10**9, CLOCK))


def outcome(rid: str, private: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": rid,
        "ruleset": "tiny",
        "type": "secret",
        "encounter": None,
        "rules_version": "1",
        "rules_hash": "h",
        "result": {"kind": "secret"},
        "dice": [{"expr": "1d10", "faces": 10, "result": 3}],
        "state": None,
        "private": private or {},
    }


def frames_in(data: bytes) -> list[bytes]:
    """The text frames (made by ``text_frame``) one write holds, in order."""
    frames = []
    while data:
        size, head = data[1], 2
        if size == 126:
            size, head = int.from_bytes(data[2:4], "big"), 4
        elif size == 127:
            size, head = int.from_bytes(data[2:10], "big"), 10
        assert data[0] == 0x81  # a final, unmasked text frame
        frames.append(data[: head + size])
        data = data[head + size :]
    return frames


def events_of(client: FakeClient) -> list[list[dict[str, Any]]]:
    """Every write the client got, as the messages it holds."""
    return [
        [json.loads(_payload(frame)) for part in write for frame in frames_in(part)]
        for write in client.outbox.writes
    ]


def publish(listeners: list[FakeClient], events: list[tuple[int, OutcomeText, Any]]) -> None:
    """Publish as the server does, then let the batches' flush run."""
    ArbiterServer.publish(FakeServer(set(listeners)), events)  # type: ignore[arg-type]
    CLOCK.advance(1.0)


def test_a_listener_gets_all_the_outcomes_of_a_commit_in_one_write_in_log_order() -> None:
    a, b, c = (FakeClient(GM) for _ in range(3))
    events = [(7, OutcomeText(outcome("r-7")), a), (8, OutcomeText(outcome("r-8")), b)]
    publish([a, b, c], events)
    assert [[m["seq"] for m in w] for w in events_of(c)] == [[7, 8]]
    # No reply came for a and b before the flush: their events went alone. Nobody hears of his own outcome (his reply says it).
    assert [[m["seq"] for m in w] for w in events_of(a)] == [[8]]
    assert [[m["seq"] for m in w] for w in events_of(b)] == [[7]]
    for write in events_of(c):
        for message in write:
            assert isinstance(SERVER_MESSAGE.validate_python(message), OutcomeEvent)


def test_each_listener_gets_its_own_view_of_a_private_outcome() -> None:
    origin = FakeClient(GM)
    ann = FakeClient(Viewer(False, frozenset({"ann-pc"}), "ann"))
    bo = FakeClient(Viewer(False, frozenset({"bo-pc"}), "bo"))
    gm = FakeClient(GM)
    nobody = FakeClient(NOBODY)
    secret = OutcomeText(outcome("r-1", {"ann-pc": {"card": 4}}))
    publish([origin, ann, bo, gm, nobody], [(1, secret, origin)])
    [[for_ann]], [[for_bo]] = events_of(ann), events_of(bo)
    [[for_gm]], [[for_nobody]] = events_of(gm), events_of(nobody)
    assert for_ann["outcome"]["private"] == {"ann-pc": {"card": 4}}
    assert for_bo["outcome"]["private"] == {} and for_nobody["outcome"]["private"] == {}
    assert for_gm["outcome"]["private"] == {"ann-pc": {"card": 4}}
    assert origin.outbox.writes == []


def test_listeners_seeing_the_same_view_get_the_very_same_frame_bytes() -> None:
    a, b, c = (FakeClient(GM) for _ in range(3))
    publish([a, b, c], [(1, OutcomeText(outcome("r-1")), a), (2, OutcomeText(outcome("r-2")), a)])
    [[for_b]], [[for_c]] = b.outbox.writes, c.outbox.writes
    assert for_b is for_c and len(frames_in(for_b)) == 2


def test_nobody_listening_costs_nothing() -> None:
    publish([], [(1, OutcomeText(outcome("r-1")), FakeClient(GM))])


def test_a_listener_whose_reply_follows_gets_its_events_in_the_same_write_as_the_reply() -> None:
    a, b, c = (FakeClient(GM) for _ in range(3))
    events = [(7, OutcomeText(outcome("r-7")), a), (8, OutcomeText(outcome("r-8")), b)]
    ArbiterServer.publish(FakeServer({a, b, c}), events)  # type: ignore[arg-type]
    # Everyone's events wait for the flush, or for the next frame sent to them: a and b sent
    # outcomes of this commit, and their replies follow in this step.
    assert a.outbox.writes == [] and b.outbox.writes == [] and c.outbox.writes == []
    a.outbox.send_frames([b"reply-a"])
    assert [[m["seq"] for m in w[:-1]] for w in events_of_raw(a)] == [[8]]
    assert a.outbox.writes[0][-1] == b"reply-a"
    CLOCK.advance(1.0)  # b's reply did not come before the flush: its event goes alone, once
    CLOCK.advance(1.0)
    assert [[m["seq"] for m in w] for w in events_of(b)] == [[7]]
    assert [[m["seq"] for m in w] for w in events_of(c)] == [[7, 8]]
    assert len(a.outbox.writes) == 1


def events_of_raw(client: FakeClient) -> list[list[Any]]:
    """Every write the client got, its event frames as messages and anything else as is."""
    return [
        [json.loads(_payload(f)) if f[:1] == b"\x81" else f for f in write]
        for write in client.outbox.writes
    ]


def test_each_origin_of_a_commit_gets_every_other_outcome_in_log_order_but_its_own() -> None:
    a, b, c, d = (FakeClient(GM) for _ in range(4))
    events = [(n, OutcomeText(outcome(f"r-{n}")), who) for n, who in ((1, a), (2, b), (3, c))]
    publish([a, b, c, d], events)
    assert [[m["seq"] for m in w] for w in events_of(a)] == [[2, 3]]
    assert [[m["seq"] for m in w] for w in events_of(b)] == [[1, 3]]
    assert [[m["seq"] for m in w] for w in events_of(c)] == [[1, 2]]
    assert [[m["seq"] for m in w] for w in events_of(d)] == [[1, 2, 3]]


def test_a_client_with_several_outcomes_in_a_commit_hears_of_none_of_them() -> None:
    a, b, c = (FakeClient(GM) for _ in range(3))
    events = [(n, OutcomeText(outcome(f"r-{n}")), who) for n, who in ((1, a), (2, b), (3, a))]
    publish([a, b, c], events)
    assert [[m["seq"] for m in w] for w in events_of(a)] == [[2]]
    assert [[m["seq"] for m in w] for w in events_of(b)] == [[1, 3]]
    assert [[m["seq"] for m in w] for w in events_of(c)] == [[1, 2, 3]]


def test_an_origin_that_does_not_listen_changes_nothing_for_those_who_do() -> None:
    a, b = (FakeClient(GM) for _ in range(2))
    outsider = FakeClient(GM)
    events = [(1, OutcomeText(outcome("r-1")), outsider), (2, OutcomeText(outcome("r-2")), a)]
    publish([a, b], events)
    assert [[m["seq"] for m in w] for w in events_of(a)] == [[1]]
    assert [[m["seq"] for m in w] for w in events_of(b)] == [[1, 2]]
    assert outsider.outbox.writes == []
