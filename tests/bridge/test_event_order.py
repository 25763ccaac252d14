"""Outcome events held for a batched write, over real websockets on loopback.

The server's event batches are given a clock the test moves (``ManualClock``): a flush runs
only when the test says the time came, so what arrives before and after it is exact.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from arbiter.bridge.event_batches import EventBatches
from arbiter.bridge.limits import Limits
from arbiter.bridge.outbox import CLOSE_TOO_SLOW
from tests.bridge.support import (
    Running,
    hello_message,
    receive,
    request,
    running,
    send,
    tiny_config,
)
from tests.bridge.test_event_batches import ManualClock

pytestmark = pytest.mark.usefixtures("tiny_engine")

DELAY = 0.05


def batched(srv: Running, max_bytes: int = 256 * 1024) -> ManualClock:
    """Give the server event batches on a clock the test moves (see :func:`advance`)."""
    clock = ManualClock()

    async def install() -> None:
        srv.server.event_batches = EventBatches(DELAY, max_bytes, clock)

    srv.call(install())
    return clock


def advance(srv: Running, clock: ManualClock, seconds: float = DELAY) -> None:
    """Move the clock on, on the server's loop: every flush due by then runs."""

    async def move() -> None:
        clock.advance(seconds)

    srv.call(move())


def fast_limits(**changes: Any) -> Limits:
    return Limits(rate_per_second=1e9, burst=10**9, auth_timeout_seconds=2.0, **changes)


def until_pong(ws: ClientConnection, pong_id: str) -> list[dict[str, Any]]:
    """Every message up to the pong ``pong_id`` (left out)."""
    seen = []
    while True:
        message = receive(ws)
        if message == {"v": 1, "type": "pong", "id": pong_id}:
            return seen
        seen.append(message)


def test_each_connection_of_a_storm_gets_its_replies_in_order_and_every_other_event_once_in_seq_order(
    tmp_path: Path,
) -> None:
    per_client = 25
    with running(tiny_config(tmp_path, limits=fast_limits())) as srv:
        clock = batched(srv)
        clients = [srv.hello(events=["outcome"])[0] for _ in range(4)]
        for n in range(per_client):
            for k, ws in enumerate(clients):
                send(ws, request(f"c{k}-{n}"))
            if n % 7 == 3:
                advance(srv, clock)  # some events go with a flush, the others with replies
        for k, ws in enumerate(clients):
            send(ws, {"v": 1, "type": "ping", "id": f"end-{k}"})
        streams = [until_pong(ws, f"end-{k}") for k, ws in enumerate(clients)]
        for ws in clients:
            ws.close()
    seq_of = {
        m["outcome"]["id"]: m["seq"] for stream in streams for m in stream if m["type"] == "outcome"
    }
    assert len(seq_of) == 4 * per_client
    for k, stream in enumerate(streams):
        mine = [m for m in stream if m["type"] == "outcome"]
        events = [m for m in stream if m["type"] == "event"]
        assert [m["outcome"]["id"] for m in mine] == [f"c{k}-{n}" for n in range(per_client)]
        # Every other client's outcome exactly once, none of its own, in log order, live.
        others = sorted(seq for rid, seq in seq_of.items() if not rid.startswith(f"c{k}-"))
        assert [e["seq"] for e in events] == others
        assert all(seq_of[e["outcome"]["id"]] == e["seq"] for e in events)
        assert all(e["event"] == "outcome" and "replayed" not in e for e in events)
        # A reply comes after the events of every row before its own (committed in its
        # group commit or an earlier one), as when every event was written at once.
        heard: set[int] = set()
        for message in stream:
            if message["type"] == "event":
                heard.add(message["seq"])
            else:
                assert {s for s in others if s < message["seq"]} <= heard


def test_a_listener_that_never_reads_delays_no_reply_and_no_other_listeners_flush(
    tmp_path: Path,
) -> None:
    # Outcomes of 5,000 dice (about 200 KB each): the stalled listener's buffers fill fast.
    limits = fast_limits(max_send_buffer_bytes=256 * 1024, max_dice_per_request=10_000)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        clock = batched(srv)
        stalled = srv.connect(max_queue=2)  # its reader stops once two frames wait unread
        send(stalled, hello_message(srv.server.secret, events=["outcome"]))
        assert receive(stalled)["type"] == "welcome"
        reader, _ = srv.hello(events=["outcome"])
        player, _ = srv.hello(events=[])
        sent = 0
        while srv.server.dropped == 0 and sent < 200:
            send(player, request(f"g-{sent}", "greedy", {"dice": 5000}))
            reply = receive(player)
            assert reply["type"] == "outcome" and reply["outcome"]["id"] == f"g-{sent}"
            # The bound: at the next flush due, the reader has the event, whatever the other
            # listener left unread.
            advance(srv, clock)
            event = receive(reader)
            assert event["type"] == "event" and event["seq"] == reply["seq"]
            sent += 1
        dropped = srv.server.dropped
        code = drained(stalled)
        reader.close()
        player.close()
    assert dropped == 1
    assert code == CLOSE_TOO_SLOW
    assert sent < 200


def drained(ws: ClientConnection) -> int | None:
    """Read until the connection ends: the close code it received (None: none came)."""
    try:
        while True:
            ws.recv(10)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else None
    except TimeoutError:
        return None


def test_no_event_leaves_before_its_row_is_committed_whatever_the_batches_flush(
    tmp_path: Path,
) -> None:
    with running(tiny_config(tmp_path, limits=fast_limits())) as srv:
        clock = batched(srv)
        listener, _ = srv.hello(events=["outcome"])
        player, _ = srv.hello(events=[])
        store = srv.server.store
        gate: list[asyncio.Event] = []
        flush = store.flush

        async def hold_commits() -> None:
            gate.append(asyncio.Event())

            async def gated() -> None:
                await gate[0].wait()
                await flush()

            store.flush = gated  # type: ignore[method-assign]

        srv.call(hold_commits())
        send(player, request("r-1"))
        for _ in range(5000):  # until the group commit's flush waits on the gate
            if srv.call(_staged(srv)):
                break
            time.sleep(0.001)
        assert srv.call(_staged(srv))
        advance(srv, clock)  # a flush of the batches now writes nothing: no event is held

        async def probe() -> None:
            [session] = srv.server.listeners
            session.outbox.send(b'{"v":1,"type":"probe"}')

        srv.call(probe())
        first = receive(listener)

        async def open_gate() -> None:
            gate[0].set()

        srv.call(open_gate())
        reply = receive(player)
        advance(srv, clock)
        event = receive(listener)
        listener.close()
        player.close()
    assert first == {"v": 1, "type": "probe"}
    assert reply["type"] == "outcome"
    assert event["type"] == "event" and event["seq"] == reply["seq"]
    assert event["outcome"]["id"] == "r-1"


async def _staged(srv: Running) -> bool:
    return bool(srv.server.commits._committer is not None)


def test_a_connection_the_server_closes_gets_the_events_held_for_it_ahead_of_the_close(
    tmp_path: Path,
) -> None:
    with running(tiny_config(tmp_path, limits=fast_limits())) as srv:
        clock = batched(srv)
        gm, _ = srv.hello(events=[])
        ann, _ = srv.hello(token=srv.player("ann", "devon"), events=["outcome"])
        send(gm, request("r-1"))
        reply = receive(gm)
        # The flush has not come (the clock stands still): ann's event is held when she is
        # revoked, and the server closes her connection at once.
        srv.revoke("ann")

        async def notice() -> None:
            srv.server.players_changed()

        srv.call(notice())
        event = receive(ann)
        code = drained(ann)
        gm.close()
    assert clock.timers and event["type"] == "event" and event["seq"] == reply["seq"]
    assert code == 4003


def test_no_event_is_held_for_a_listener_before_the_plain_flush_of_its_row_returned(
    tmp_path: Path,
) -> None:
    # SQLite's flush as the server runs it (``flush_now``, from the loop's callback): each
    # event is handed to the batches only once the commit of its row has returned.
    with running(tiny_config(tmp_path, limits=fast_limits())) as srv:
        listener, _ = srv.hello(events=["outcome"])
        player, _ = srv.hello(events=[])
        order: list[str] = []

        async def watch() -> None:
            store, batches = srv.server.store, srv.server.event_batches
            commit, hold, hold_many = store.commit, batches.hold, batches.hold_many
            assert store.flush_now is not None

            def flushing() -> None:
                order.append("flush")
                commit()
                order.append("flushed")

            def holding(outbox: Any, frames: Any, size: int) -> None:
                order.append("event")
                hold(outbox, frames, size)

            def holding_many(outboxes: Any, frames: Any, size: int) -> None:
                order.append("event")
                hold_many(outboxes, frames, size)

            store.commit = flushing  # type: ignore[method-assign]
            batches.hold = holding  # type: ignore[method-assign]
            batches.hold_many = holding_many  # type: ignore[method-assign]

        srv.call(watch())
        send(player, request("r-1"))
        reply = receive(player)
        event = receive(listener)
        listener.close()
        player.close()
    assert order == ["flush", "flushed", "event"]
    assert event["type"] == "event" and event["seq"] == reply["seq"]
