"""Gap replay over real websockets, on SQLite and on PostgreSQL: a client that reconnects with
the last ``seq`` it saw (hello ``since``) is sent the outcome events it missed, in order, marked
``replayed``, each in its own view, then goes on live with no gap and no duplicate; bad ``since``
values get clear answers and the connection stays up (docs/protocol.md, "Reconnect and retry
are safe")."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection

from arbiter.bridge.gap_replay import replay
from arbiter.bridge.limits import Limits
from arbiter.bridge.records import Roll
from arbiter.bridge.server_config import ServerConfig
from arbiter.bridge.views import GM, NOBODY, OutcomeText, Viewer
from arbiter.bridge.world import PostgresWorld
from tests.bridge.support import Running, receive, request, running, send, tiny_config
from tests.support.rolls import new_roll

pytestmark = pytest.mark.usefixtures("tiny_engine")

FAST = Limits(rate_per_second=1e6, burst=1_000_000, auth_timeout_seconds=2.0)


@pytest.fixture(params=["sqlite", "postgresql"])
def config(request: pytest.FixtureRequest, tmp_path: Path) -> ServerConfig:
    """A tiny-ruleset world with no rate limit, in SQLite or in PostgreSQL."""
    if request.param == "sqlite":
        return tiny_config(tmp_path, limits=FAST)
    dsn = request.getfixturevalue("postgres_database")
    return tiny_config(tmp_path, limits=FAST, postgres=PostgresWorld(dsn, "w"))


@pytest.fixture
def srv(config: ServerConfig) -> Iterator[Running]:
    with running(config) as server:
        yield server


def hello(
    srv: Running, since: Any = None, token: str | None = None, **extra: Any
) -> tuple[ClientConnection, dict[str, Any]]:
    """A connection that said hello (with ``since`` when given) and its welcome."""
    ws = srv.connect()
    message: dict[str, Any] = {
        "v": 1,
        "type": "hello",
        "token": token or srv.server.secret,
        "client": {"name": "tests", "user": "tester"},
        **extra,
    }
    if since is not None:
        message["since"] = since
    send(ws, message)
    welcome = receive(ws)
    assert welcome["type"] == "welcome", welcome
    return ws, welcome


def decide(ws: ClientConnection, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """Send the requests, then read their replies (in order)."""
    for message in messages:
        send(ws, message)
    return [receive(ws) for _ in messages]


def still_up(ws: ClientConnection) -> None:
    send(ws, {"v": 1, "type": "ping", "id": "up?"})
    assert receive(ws) == {"v": 1, "type": "pong", "id": "up?"}


def test_a_subscriber_that_reconnects_with_its_last_seq_gets_exactly_the_missed_outcomes_then_live(
    srv: Running,
) -> None:
    gm, _ = hello(srv, events=[])
    listener, _ = hello(srv)
    seen = decide(gm, request("a-1"))[0]["seq"]
    assert receive(listener)["seq"] == seen
    listener.close()
    # While it is away: outcomes, a refusal after dice (no event for anybody) and more outcomes.
    missed = decide(gm, request("a-2"), request("a-3", "tally", {"add": 2}, encounter="e"))
    refused = decide(gm, request("a-4", "greedy", {"dice": 5000}))[0]
    assert refused["type"] == "error" and refused["code"] == "dice_error"
    missed += decide(gm, request("a-5", "draw", {"table": "fumble"}))
    back, _ = hello(srv, since=seen)
    replayed = [receive(back) for _ in missed]
    assert [e["seq"] for e in replayed] == [m["seq"] for m in missed]
    for event, reply in zip(replayed, missed, strict=True):
        assert event["type"] == "event" and event["event"] == "outcome"
        assert event["replayed"] is True
        assert event["outcome"] == reply["outcome"]
    still_up(back)  # nothing else was replayed: the refusal and the rows it saw are not
    live = decide(gm, request("a-6"))[0]
    event = receive(back)
    assert event["seq"] == live["seq"] and "replayed" not in event


def test_a_reconnect_while_others_commit_hears_every_row_once_in_order(srv: Running) -> None:
    """Rows committed while the replay is read and sent are neither lost nor doubled: a writer
    keeps committing while listeners reconnect with their last seq, again and again."""
    gm, _ = hello(srv, events=[])
    first = decide(gm, request("w-0"))[0]["seq"]
    batches, size = 40, 10  # 400 rows: never more behind than a reconnect replays (500)
    last: list[int] = []

    def write() -> None:
        writer, _ = hello(srv, events=[])
        seqs = []
        for batch in range(batches):  # a few in each group commit, many groups
            for n in range(size):
                send(writer, request(f"w-{batch}-{n}"))
            seqs += [receive(writer)["seq"] for _ in range(size)]
        last.append(max(seqs))
        writer.close()

    thread = threading.Thread(target=write)
    thread.start()
    heard: list[int] = []
    since = first
    while not last or (heard[-1] if heard else since) < last[0]:
        ws, _ = hello(srv, since=since)
        for _ in range(7):  # a few events, then drop the connection as a network would
            try:
                event = receive(ws, timeout=0.5 if last else 5)
            except TimeoutError:
                break
            heard.append(event["seq"])
        ws.socket.shutdown(socket.SHUT_RDWR)  # dropped, as a network drops it
        ws.close()
        since = heard[-1] if heard else since
    thread.join(30)
    assert heard == list(range(first + 1, last[0] + 1))


def test_a_player_asking_for_every_row_gets_only_what_his_live_view_showed(srv: Running) -> None:
    """The hostile player: he says hello with ``since: 0`` to read the whole log. He gets each
    outcome as a live event showed it to him (his own private entries only; another's secret
    card, the encounter's state and a refusal never), nothing more."""
    token = srv.player("ann", "devon")
    assert token is not None
    live, _ = hello(srv, token=token)
    gm, _ = hello(srv, events=[])
    sent = decide(
        gm,
        request("s-1", "secret", {"owner": "devon"}),
        request("s-2", "secret", {"owner": "soldier"}),
        request("s-3", "tally", {"add": 7}, encounter="e-1"),
        request("s-4", "greedy", {"dice": 5000}),
        {**request("s-5", "secret", {"owner": "soldier"}), "player": "ann"},
    )
    assert sent[2]["outcome"]["state"] is None  # the GM's own view keeps no state either
    shown = [receive(live) for _ in range(3)]  # s-5: ann's relayed request, refused (forbidden)
    hostile, _ = hello(srv, since=0, token=token)
    replayed = [receive(hostile) for _ in range(3)]
    still_up(hostile)
    assert [{**e, "replayed": True} for e in shown] == replayed
    assert replayed[0]["outcome"]["private"] == sent[0]["outcome"]["private"]  # devon: his
    assert replayed[1]["outcome"]["private"] == {}
    assert "soldier" in sent[1]["outcome"]["private"]
    assert replayed[2]["outcome"]["state"] is None
    assert sent[3]["code"] == "dice_error" and sent[4]["code"] == "forbidden"


def test_since_beyond_the_last_row_or_below_zero_is_refused_naming_it_and_the_connection_stays_up(
    srv: Running,
) -> None:
    gm, _ = hello(srv, events=[])
    head = decide(gm, request("b-1"))[0]["seq"]
    ahead, welcome = hello(srv, since=head + 5)
    assert welcome["head"] == head  # where its outcome events begin
    error = receive(ahead)
    assert error["type"] == "error" and error["code"] == "invalid_message" and error["id"] is None
    assert error["message"].startswith(f"since: {head + 5} is beyond the last outcome")
    assert f"({head})" in error["message"]
    still_up(ahead)
    below, _ = hello(srv, since=-1)
    error = receive(below)
    assert error["code"] == "invalid_message"
    assert error["message"].startswith("since: -1 is not a seq")
    still_up(below)
    deaf, _ = hello(srv, since=0, events=["rules"])
    error = receive(deaf)
    assert error["message"].startswith("since: replays outcome events")
    still_up(deaf)
    # Each still hears live what it subscribed to.
    live = decide(gm, request("b-2"))[0]
    assert receive(ahead)["seq"] == live["seq"] and receive(below)["seq"] == live["seq"]


def test_a_since_too_far_behind_is_told_the_gap_and_goes_on_live(tmp_path: Path) -> None:
    limits = Limits(rate_per_second=1e6, burst=1_000_000, max_replay_rows=2)
    with running(tiny_config(tmp_path, limits=limits)) as srv:
        gm, _ = hello(srv, events=[])
        decide(gm, request("g-1"), request("g-2"), request("g-3"))
        far, _ = hello(srv, since=0)
        gap = receive(far)
        assert gap == {
            "v": 1,
            "type": "event",
            "event": "gap_too_large",
            "since": 0,
            "head": 3,
            "limit": 2,
            "message": "since: 0 is 3 rows behind the last outcome (3), over the 2 a reconnect "
            "replays: nothing was replayed; live events follow (`arbiter log` on the server "
            "lists every row)",
        }
        near, _ = hello(srv, since=1)
        assert [receive(near)["seq"] for _ in range(2)] == [2, 3]
        live = decide(gm, request("g-4"))[0]
        assert receive(far)["seq"] == live["seq"] == receive(near)["seq"]


def test_a_since_that_is_not_an_integer_makes_the_hello_invalid(tmp_path: Path) -> None:
    with running(tiny_config(tmp_path)) as srv:
        ws = srv.connect()
        send(ws, {"v": 1, "type": "hello", "token": srv.server.secret,
                  "client": {"name": "t"}, "since": "12"})  # fmt: skip
        error = receive(ws)
        assert error["code"] == "invalid_message" and error["message"].startswith("since:")


def test_a_row_in_flight_when_the_client_joins_is_not_replayed_but_comes_once_live(
    srv: Running,
) -> None:
    """The ordering against the group commit, made to happen: another's row is being committed
    (its flush held) at the very moment the reconnecting client joins. It must not be replayed
    (it is not committed yet), and must reach the client once, live, when it is."""
    server = srv.server
    gm, _ = hello(srv, events=[])
    since = decide(gm, request("f-1"))[0]["seq"]
    welcoming, armed = threading.Event(), threading.Event()
    flying, gate = asyncio.Event(), asyncio.Event()
    flush, committed = server.store.flush, server.committed

    async def held_flush() -> None:
        if armed.is_set() and not flying.is_set():
            flying.set()
            await gate.wait()
        await flush()

    async def held_committed() -> None:
        await committed()  # the session's seed row: durable before its welcome
        welcoming.set()
        await flying.wait()  # the welcome goes out while another's row is in flight

    server.store.flush = held_flush  # type: ignore[method-assign]
    server.committed = held_committed  # type: ignore[method-assign]
    back = srv.connect()
    send(back, {"v": 1, "type": "hello", "token": server.secret, "client": {"name": "t"},
                "since": since})  # fmt: skip
    assert welcoming.wait(10)
    server.committed = committed  # type: ignore[method-assign]
    armed.set()
    send(gm, request("f-2"))
    assert receive(back)["head"] == since  # the welcome: its events begin after f-1
    srv.loop.call_soon_threadsafe(gate.set)
    reply = receive(gm)
    event = receive(back)
    assert event["seq"] == reply["seq"] == since + 1 and "replayed" not in event
    still_up(back)


def test_a_replay_that_would_outgrow_its_byte_budget_is_not_sent_but_told() -> None:
    rows = [
        Roll(seq, new_roll(f"r-{seq}")._replace(outcome=json.dumps({"id": f"r-{seq}", "x": "y" * 100})), "", "")
        for seq in (1, 2, 3)
    ]  # fmt: skip
    fits = replay(0, 3, iter(rows), NOBODY, limit=10, max_bytes=1000)
    assert fits.rows == 3 and len(fits.frames) == 3
    over = replay(0, 3, iter(rows), NOBODY, limit=10, max_bytes=300)
    assert over.rows == 0
    [frame] = over.frames
    event = json.loads(frame[4:] if frame[1] == 126 else frame[2:])  # past the frame header
    assert event["event"] == "gap_too_large" and event["head"] == 3 and event["limit"] == 10
    assert "more than the 300 bytes a reconnect replays" in event["message"]


def _outcome_of(frame: bytes) -> bytes:
    """The outcome text inside a replayed event's frame (past the frame header), as sent."""
    text = frame[4:] if frame[1] == 126 else frame[2:]
    head = b'{"v":1,"type":"event","event":"outcome","seq":'
    assert text.startswith(head) and text.endswith(b"}")
    return text[text.index(b'"outcome":') + len(b'"outcome":') : -1]


def older_text(outcome: dict[str, Any]) -> str:
    """``outcome`` as an older server logged it: canonical JSON by the json module, whose
    floats read ``2.5e-05`` where orjson (today's canonical form) writes ``2.5e-5``."""
    return json.dumps(outcome, sort_keys=True, separators=(",", ":"))


def test_a_row_an_older_server_logged_is_replayed_as_logged_and_still_filtered_per_viewer() -> None:
    plain = {"id": "r-1", "result": {"weight": 2.5e-05}, "private": {}, "state": None, "dice": []}
    hands = {"ana": {"hand": ["ace-of-ana"]}, "bo": {"hand": ["king-of-bo"]}}
    dealt = {**plain, "id": "r-2", "private": hands}
    secret_die = {"expr": "shuffle", "faces": 52, "hidden": True, "result": 17}
    shuffled = {**plain, "id": "r-3", "dice": [secret_die]}
    rows = [
        Roll(seq, new_roll(o["id"])._replace(outcome=older_text(o), dice=older_text(o["dice"])), "", "")
        for seq, o in enumerate((plain, dealt, shuffled), start=1)
    ]  # fmt: skip
    assert b"2.5e-05" in rows[0].entry.outcome.encode()  # not today's canonical text
    viewers = {
        "gm": GM,
        "ana": Viewer(gm=False, participants=frozenset({"ana"}), player="ana-player"),
        "nobody": NOBODY,
    }
    shown = {
        name: [_outcome_of(f) for f in replay(0, 3, iter(rows), viewer, 10, 10**6).frames]
        for name, viewer in viewers.items()
    }
    # Nothing to withhold: the logged text itself, byte for byte, for every viewer; the GM's
    # view of the dealt hands withholds nothing from him either.
    for name in viewers:
        assert shown[name][0] == rows[0].entry.outcome.encode()
    assert shown["gm"][1] == rows[1].entry.outcome.encode()
    # A view that withholds something still withholds it, from the older text as from a new one.
    assert json.loads(shown["ana"][1])["private"] == {"ana": {"hand": ["ace-of-ana"]}}
    assert b"king-of-bo" not in shown["ana"][1] and b"ace-of-ana" not in shown["nobody"][1]
    assert json.loads(shown["nobody"][1])["private"] == {}
    for name in viewers:
        view = json.loads(shown[name][2])
        assert view["dice"] == [] and view["hidden_dice"] == 1 and b"shuffle" not in shown[name][2]
        assert json.loads(shown[name][1])["result"] == {"weight": 2.5e-05}
    # The same text a resend of each row's id is answered with (one reader of the log).
    for name, viewer in viewers.items():
        assert shown[name] == [OutcomeText.of_row(r.entry).shown_bytes(viewer) for r in rows]
