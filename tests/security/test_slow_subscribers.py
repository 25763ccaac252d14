"""Clients that stop reading what the server sends them, while another plays at full speed.

Before bounded send buffers, every outcome event was written to every subscriber whatever it
had left unread: five listeners that stopped reading grew the server from 63 to 264 MB in 60 s,
and the keepalive ping queued behind their full buffers, so they were never dropped.

The server runs in a process of its own so its resident memory (``VmRSS``) can be read. The
player sends requests of 1,000 dice each (an outcome of about 40 KB) as fast as the server
answers them: a bounded count that overflows each listener's send buffer many times over.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from arbiter.bridge.outbox import CLOSE_TOO_SLOW, TOO_SLOW_REASON
from tests.bridge.support import hello_message, write_rules
from tests.security.serving import ServerProcess
from tests.support.apart import run_apart

MB = 1024 * 1024
DICE = 1000
"""Dice per request: each outcome (and each event about it) is about 40 KB of JSON."""
FLOOD = 800
"""Requests in the flood: about 32 MB of events for each listener, 30 times its 1 MiB bound."""
WINDOW = 16
"""Requests the player keeps in flight: as fast as the server answers."""


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    options: tuple[str, ...] = getattr(request, "param", ())
    proc = ServerProcess(tmp_path / "data", write_rules(tmp_path / "rules"), *options)
    try:
        yield proc
    finally:
        proc.stop()


def greedy(rid: str) -> str:
    body = {"dice": DICE}
    req = {"id": rid, "ruleset": "tiny", "type": "greedy", "body": body}
    return json.dumps({"v": 1, "type": "request", "request": req})


async def joined(server: ServerProcess, events: list[str]) -> ClientConnection:
    """An authenticated connection (welcome read) that will read nothing unless told to.

    No keepalive pings of its own, and a receive queue of two frames: once two frames wait
    unread, the client stops reading its socket, as a stalled browser tab does.
    """
    secret = (server_data(server) / "world.secret").read_text().strip()
    ws = await connect(server.url, ping_interval=None, max_queue=2, open_timeout=10)
    await ws.send(json.dumps(hello_message(secret, events=events)))
    welcome = json.loads(await ws.recv())
    assert welcome["type"] == "welcome", welcome
    return ws


def server_data(server: ServerProcess) -> Path:
    args = server.proc.args
    assert isinstance(args, list)
    return Path(str(args[args.index("--data") + 1]))


async def play(
    ws: ClientConnection,
    count: int,
    prefix: str,
    sample: list[int] | None = None,
    server: ServerProcess | None = None,
) -> None:
    """Send ``count`` requests keeping ``WINDOW`` in flight; read and check every answer."""
    sent = answered = 0
    while answered < count:
        while sent < count and sent - answered < WINDOW:
            await ws.send(greedy(f"{prefix}-{sent}"))
            sent += 1
        reply = json.loads(await asyncio.wait_for(ws.recv(), 60))
        assert reply["type"] == "outcome", reply
        assert len(reply["outcome"]["dice"]) == DICE
        answered += 1
        if sample is not None and server is not None and answered % 50 == 0:
            sample.append(server.rss())


async def drain(ws: ClientConnection) -> tuple[int, Any]:
    """Read until the connection ends: the frames read, and the close frame received (None
    when it ended without one, or was still open after 10 s without a frame)."""
    frames = 0
    try:
        while True:
            await asyncio.wait_for(ws.recv(), 10)
            frames += 1
    except ConnectionClosed as closed:
        return frames, closed.rcvd
    except TimeoutError:
        return frames, None


HEALTH_TIMEOUT = 180
"""How long ``/healthz`` may take to answer. The server decides the requests of one socket read
in one step of its loop, and answers nothing else meanwhile: the mute player's 800 requests
arrive in one or two reads and are all decided before ``/healthz`` is served (33 s measured
under load 12, where 10 s timed out). A bound on a wait, not a timing."""


def health(server: ServerProcess) -> dict[str, Any]:
    url = server.url.replace("ws://", "http://") + "/healthz"
    with urllib.request.urlopen(url, timeout=HEALTH_TIMEOUT) as answer:
        return dict(json.loads(answer.read()))


async def settled(server: ServerProcess, key: str, count: int) -> int:
    """``key`` of the server's ``/healthz`` once it is ``count``, or after 600 polls (30 s)."""
    value = health(server).get(key)
    for _ in range(600):
        if value == count:
            break
        await asyncio.sleep(0.05)
        value = health(server).get(key)
    return int(value or 0)


# The close timeout is long enough for the listeners to read up to the close frame after the
# flood, so they can tell why they were dropped.
@pytest.mark.parametrize("server", [("--close-timeout", "300")], indirect=True)
def test_five_listeners_that_stop_reading_are_dropped_with_4008_and_memory_stays_flat(
    server: ServerProcess,
) -> None:
    async def scenario() -> tuple[int, list[int], list[tuple[int, Any]], Any]:
        listeners = [await joined(server, ["outcome"]) for _ in range(5)]
        player = await joined(server, [])
        # Warm up (imports, caches, the store's pages) before taking the baseline.
        await play(player, 40, "warm")
        baseline = server.rss()
        samples: list[int] = []
        await play(player, FLOOD, "flood", samples, server)
        samples.append(server.rss())
        dropped = health(server).get("dropped_too_slow")
        ends = [await drain(ws) for ws in listeners]
        await player.close()
        return baseline, samples, ends, dropped

    baseline, samples, ends, dropped = run_apart(scenario())
    growth = max(samples) - baseline
    assert growth < 20 * MB, f"server grew by {growth / MB:.1f} MB: {[s // MB for s in samples]}"
    assert dropped == 5
    for frames, rcvd in ends:
        # Each listener got what fit in its buffers, far from every event, then the close.
        assert frames < FLOOD
        assert rcvd is not None, "closed without a close frame"
        assert (rcvd.code, rcvd.reason) == (CLOSE_TOO_SLOW, TOO_SLOW_REASON)


@pytest.mark.parametrize("server", [("--close-timeout", "300")], indirect=True)
def test_a_player_that_sends_requests_but_never_reads_the_replies_is_dropped_with_4008(
    server: ServerProcess,
) -> None:
    async def scenario() -> tuple[int, Any, int]:
        ws = await joined(server, [])
        try:
            for n in range(FLOOD):
                await asyncio.wait_for(ws.send(greedy(f"mute-{n}")), 60)
        except ConnectionClosed:
            pass
        try:
            # Still not reading: the server answers into its buffers until it gives up on it.
            dropped = await settled(server, "dropped_too_slow", 1)
            frames, rcvd = await drain(ws)
        finally:
            # A failed wait must not leave the socket open: the server (close timeout 300 s)
            # would wait on it at its SIGTERM, and the fixture's stop would time out too.
            ws.transport.abort()
        return frames, rcvd, dropped

    frames, rcvd, dropped = run_apart(scenario())
    assert dropped == 1
    assert frames < FLOOD
    assert rcvd is not None
    assert (rcvd.code, rcvd.reason) == (CLOSE_TOO_SLOW, TOO_SLOW_REASON)


@pytest.mark.parametrize("server", [("--close-timeout", "0.2")], indirect=True)
def test_a_listener_that_never_reads_again_is_aborted_when_the_close_cannot_reach_it(
    server: ServerProcess,
) -> None:
    async def scenario() -> tuple[int, int, int]:
        stalled = await joined(server, ["outcome"])
        player = await joined(server, [])
        # How much the kernel buffers on loopback before the server's outbox fills depends on
        # TCP autotuning (several MB at times): flood in parts until the server drops the
        # listener, rather than betting that one part outgrows the kernel's buffers.
        sent = 0
        while sent < FLOOD and health(server).get("dropped_too_slow") != 1:
            await play(player, FLOOD // 8, f"flood-{sent}")
            sent += FLOOD // 8
        # The close frame waits behind a full buffer the listener never reads: after the close
        # timeout the server aborts the transport, leaving the player alone.
        held = await settled(server, "connections", 1)
        await player.close()
        frames, _ = await drain(stalled)
        return held, frames, sent

    held, frames, sent = run_apart(scenario())
    assert held == 1
    assert frames < sent
