"""Review probes of the reader's kept bodies (readcost), written as the hostile clients they
describe: what a client can make the server hold on to.

The reader keeps, per snapshot of the rules (so for every connection of every world served
with those rules), the texts it has seen once (to keep a body the second time it comes) and the
bodies it kept. docs/protocol.md promises "up to 64 request bodies"; the texts seen once are
held too, each whole, and the bound on a text's length counts characters, not bytes: one
character outside Latin-1 makes CPython hold every character of the string in 4 bytes. And the
first frame of a connection, before any hello, is read by the same reader.

(Both pass on main, which keeps nothing: they are findings of the readcost branch.)
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arbiter.bridge.limits import Limits
from tests.bridge.support import receive, running, send, tiny_config

OPEN = '{"v":1,"type":"request","request":'

RETAINED_AT_MOST = 2 * 1024 * 1024
"""What a reader may hold of a flood of one player's frames: the 64 kept bodies the docs name,
each at most 16,384 characters, are about 1 MiB of UTF-8; twice that is room enough."""


def retained(known: object) -> int:
    """The bytes the reader's kept bodies hold of clients' texts (the texts seen once, the
    kept bodies' texts and their logged tails), as CPython stores them (None: a reader that
    keeps nothing)."""
    if known is None:
        return 0
    seen: set[object] = known._seen  # type: ignore[attr-defined]
    bodies: dict[object, object] = known._bodies  # type: ignore[attr-defined]
    return (
        sum(_texts(key) for key in seen)
        + sum(_texts(key) for key in bodies)
        + sum(sys.getsizeof(kept.tail) for kept in bodies.values())  # type: ignore[attr-defined]
    )


def _texts(key: object) -> int:
    """The bytes of the texts a key holds (a text, a tuple of keeper and text, or a hash)."""
    if isinstance(key, str):
        return sys.getsizeof(key)
    if isinstance(key, tuple):
        return sum(_texts(part) for part in key)
    return 0


@pytest.mark.usefixtures("tiny_engine")
def test_a_player_flooding_distinct_bodies_leaves_the_reader_holding_little_of_them(
    tmp_path: Path,
) -> None:
    # A player with no right to send a check (the tiny ruleset's check is the GM's): each of
    # his requests is refused, after the reader has read it. Each frame is 16 KiB of UTF-8
    # (under the 64 KiB message limit), a body padded with JSON whitespace and one emoji in
    # its text, each one new: the reader remembers each as seen once.
    config = tiny_config(tmp_path)
    config = replace(
        config, limits=Limits(auth_timeout_seconds=2.0, rate_per_second=10_000, burst=10_000)
    )
    pad = " " * 16_300
    with running(config) as srv:
        token = srv.player("flood", "devon")
        assert token is not None
        ws, welcome = srv.hello(role="player", token=token)
        assert welcome["type"] == "welcome", welcome
        known = getattr(srv.server.rules.reader, "_known", None)
        for n in range(255):
            frame = (
                OPEN + f'{{"id":"f-{n}","ruleset":"tiny","type":"check",'
                f'"encounter":"\U0001f600{n}","body":{{"skill":40{pad}}}}}}}'
            )
            assert len(frame.encode()) < 64 * 1024
            send(ws, frame)
            reply = receive(ws)
            assert reply["type"] == "error" and reply["code"] == "forbidden", reply
        held = retained(known)
        ws.close()
    assert held <= RETAINED_AT_MOST, (
        f"the reader holds {held / 2**20:.1f} MiB of one player's refused frames "
        f"({len(known._seen)} texts seen once, each whole)"  # type: ignore[union-attr]
    )


@pytest.mark.usefixtures("tiny_engine")
def test_a_client_that_never_said_hello_leaves_nothing_in_the_reader(tmp_path: Path) -> None:
    # Anybody who can reach the port, with no token and no secret: each connection's first
    # frame is a request instead of a hello, refused (4001) and closed. The reader has read
    # it all the same (the hello is read by the same reader, session._parse): what it keeps of
    # such frames is held for every world served with these rules, and a second connection
    # sending the same text makes it a kept body.
    with running(tiny_config(tmp_path)) as srv:
        known = getattr(srv.server.rules.reader, "_known", None)
        for n in range(6):
            ws = srv.connect()
            send(
                ws,
                OPEN + f'{{"id":"anon-{n}","ruleset":"tiny","type":"check",'
                f'"body":{{"skill":{40 + n // 2}}}}}}}',
            )
            reply = receive(ws)
            assert reply["type"] == "error" and reply["code"] == "unauthorized", reply
            ws.close()
        seen = [] if known is None else sorted(known._seen)
        kept = [] if known is None else sorted(known._bodies)
    assert (seen, kept) == ([], []), (
        f"a client that never said hello left {len(seen)} texts seen and {len(kept)} kept "
        f"bodies in the reader: {kept}"
    )
