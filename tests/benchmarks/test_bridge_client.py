"""The benchmarks' client skips event frames before websockets parses them, and only those: every
other frame reaches ``recv()`` whole and in order, however the reads cut them."""

from __future__ import annotations

import asyncio
import json
import struct
from pathlib import Path

from websockets.asyncio.server import ServerConnection, serve

from benchmarks.bridge_client import EventSkippingClient, open_client
from tests.bridge.support import bundled_config, bundled_request, hello_message, running
from tests.support.apart import run_apart


def frame(payload: bytes, first: int = 0x81) -> bytes:
    """An unmasked server frame (RFC 6455 5.2) of ``payload``."""
    size = len(payload)
    if size < 126:
        return bytes((first, size)) + payload
    if size < 1 << 16:
        return struct.pack("!BBH", first, 126, size) + payload
    return struct.pack("!BBQ", first, 127, size) + payload


def event(seq: int, padding: int) -> bytes:
    return b'{"v":1,"type":"event","event":"outcome","seq":%d,"pad":"%s"}' % (seq, b"x" * padding)


async def _silent(ws: ServerConnection) -> None:
    await ws.wait_closed()


def test_event_frames_cut_anywhere_by_the_reads_are_skipped_and_every_reply_arrives_in_order() -> (
    None
):
    replies = [
        b'{"v":1,"type":"outcome","n":%d,"pad":"%s"}' % (n, b"y" * n * 400) for n in range(4)
    ]
    stream = b"".join(
        [
            frame(event(1, 10)),
            frame(replies[0]),
            frame(event(2, 300)),  # a 16-bit length
            frame(event(3, 70_000)),  # a 64-bit length
            frame(replies[1]),
            frame(b"", 0x89),  # a ping: websockets answers it
            frame(replies[2]),
            frame(event(4, 5)),
            frame(replies[3]),
        ]
    )

    async def scenario() -> tuple[list[str], int]:
        async with serve(_silent, "127.0.0.1", 0, compression=None) as server:
            port = server.sockets[0].getsockname()[1]
            ws = await open_client(f"ws://127.0.0.1:{port}", compression=None, max_size=2**22)
            # Fed as the socket might deliver it: in pieces that cut headers and payloads.
            for at in range(0, len(stream), 7):
                ws.data_received(stream[at : at + 7])
            got = [str(await ws.recv()) for _ in replies]
            skipped = ws.events_skipped
            await ws.close()
            return got, skipped

    got, skipped = run_apart(scenario())
    assert got == [reply.decode() for reply in replies]
    assert skipped == 4


def test_a_subscribed_connection_to_arbiter_skips_the_others_outcome_events_and_gets_its_reply(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:

        async def scenario() -> tuple[dict[str, object], int]:
            sockets: list[EventSkippingClient] = []
            for _ in range(2):
                ws = await open_client(srv.url, compression=None)
                hello = hello_message(srv.server.secret, events=["outcome"])
                await ws.send(json.dumps(hello))
                assert json.loads(await ws.recv())["type"] == "welcome"
                sockets.append(ws)
            first, second = sockets
            await first.send(json.dumps(bundled_request("r-1")))
            assert json.loads(await first.recv())["type"] == "outcome"
            # The event of r-1 reaches ``second`` ahead of its own reply, and is skipped.
            await second.send(json.dumps(bundled_request("r-2")))
            reply = json.loads(await second.recv())
            await asyncio.gather(*(ws.close() for ws in sockets))
            return reply, second.events_skipped

        reply, skipped = run_apart(scenario())
    assert reply["type"] == "outcome"
    assert reply["outcome"]["id"] == "r-2"  # type: ignore[index]
    assert skipped == 1
