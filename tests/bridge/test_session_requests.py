"""A connection's requests over a real socket, as to what they leave behind them.

Every object of a request (its frame's parse, the decision, the outcome's texts, the row the
group commit answers, the futures awaiting it, a refusal's exception) is freed by reference
counting once the request is answered: none is left in a reference cycle for the cyclic
garbage collector, whose collections would otherwise cost every request (issue #16).
"""

from __future__ import annotations

import gc
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.bridge.support import bundled_config, bundled_request, receive, running, send

ARBITER = str(Path(__file__).resolve().parents[2])
"""The source tree: a frame whose code lives here is one of the server's own."""


@contextmanager
def cyclic_garbage() -> Iterator[list[Any]]:
    """The objects that only the cyclic collector frees among those made inside the block:
    automatic collections are off, so what reference counting does not free stays until the
    collection at the block's end, which keeps it (``DEBUG_SAVEALL``) in the yielded list."""
    found: list[Any] = []
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()


def the_servers_own(garbage: list[Any]) -> list[str]:
    """What of ``garbage`` the server made: instances of its classes, frames of its code (an
    exception kept with its traceback holds these). The test's client shares the process, so
    its own cycles (the websockets client's) are not the server's."""
    own = []
    for obj in garbage:
        if type(obj).__module__.startswith("arbiter."):
            own.append(f"{type(obj).__module__}.{type(obj).__qualname__}")
        elif isinstance(obj, types.FrameType) and obj.f_code.co_filename.startswith(ARBITER):
            own.append(f"frame of {obj.f_code.co_qualname} ({obj.f_code.co_filename})")
    return own


def test_answered_requests_and_refusals_leave_nothing_for_the_cyclic_collector(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        assert welcome["type"] == "welcome"

        def exchange(rid: str) -> None:
            # An outcome, its resend (the logged row's texts), and two refusals (a body
            # the engine's model rejects, an unknown ruleset): each answered before the next.
            send(ws, bundled_request(rid))
            assert receive(ws)["type"] == "outcome"
            send(ws, bundled_request(rid))
            assert receive(ws)["replayed"] is True
            send(ws, bundled_request(f"{rid}-bad", "check", {"skill": "high"}))
            assert receive(ws)["code"] == "invalid_request"
            send(ws, bundled_request(f"{rid}-chess", ruleset="chess"))
            assert receive(ws)["code"] == "unknown_ruleset"

        for i in range(5):  # first uses fill the server's caches: not a request's garbage
            exchange(f"warm-{i}")
        with cyclic_garbage() as garbage:
            for i in range(20):
                exchange(f"r{i}")
        ws.close()

    assert the_servers_own(garbage) == []
