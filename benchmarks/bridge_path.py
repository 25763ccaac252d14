"""The server path without sockets, for ``benchmarks/bridge.py``.

The process CPU time one client session takes to answer a batch of combat-styles exchanges
(parse, decide, log, and the server's own group commit every ``GROUP`` rows) beside the engine
alone resolving the very same requests with the very same dice; their difference is what the
server adds around the engine. The minimum and the median over the batches are shown (the
minimum is the figure least disturbed by other work on the machine).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PATH_BATCH = 200
GROUP = 10
"""Rows per commit in the server path measurement (what 10 busy connections give)."""


def engine_alone(served: Any, requests: list[dict[str, Any]], source: Any) -> float:
    """CPU seconds the engine alone takes to decide ``requests`` (their bodies validated
    beforehand, as the server hands them over) drawing from ``source``: the engine's own cost,
    without the server's reading, validation, logging and sending."""
    from arbiter.bridge.engine.envelope import Request, resolve

    engine, model, digest = served.engine, served.ruleset.model, served.ruleset.content_hash
    typed = [
        Request.model_validate(r).model_copy(
            update={
                "body": engine.requests[r["type"]].model_validate_json(
                    json.dumps(r["body"]), strict=True
                )
            }
        )
        for r in requests
    ]
    started = time.process_time()
    for request in typed:
        resolve(request, engine, model, digest, None, source)
    return time.process_time() - started


def engine_cpu_per_request(
    exchange: Callable[[int], dict[str, Any]], count: int = 400, rounds: int = 3
) -> float:
    """The engine's own CPU per request (µs) on ``count`` of the benchmark's requests, the
    minimum of ``rounds`` (the figure least disturbed by other work on the machine)."""
    from arbiter.bridge.engine.dice import KeyedSource
    from arbiter.bridge.rules import RuleSource, snapshot

    served = snapshot(RuleSource().load()).served["combat-styles"]
    requests = [exchange(i) for i in range(count)]
    source = KeyedSource(bytes(32))
    return min(engine_alone(served, requests, source) for _ in range(rounds)) / count * 1e6


def server_path(
    batches: int,
    exchange_body: dict[str, Any],
    exchange: Callable[[int], dict[str, Any]],
    label: str = "",
    blocks: list[dict[str, Any]] | None = None,
) -> None:
    """Print the server path's CPU per exchange beside the engine's, measured in this process.
    ``blocks``: stat blocks the GM stores first (``put_stat_block``), which the requests name
    by reference; ``label`` names the shape in the output."""
    if not exchange_body:
        print("server path: skipped (no combat-styles exchange example)")
        return
    from arbiter.bridge.engine.dice import KeyedSource
    from arbiter.bridge.limits import Limits
    from arbiter.bridge.server import ArbiterServer, ServerConfig, settle_heap
    from arbiter.bridge.session import ClientSession

    async def run() -> tuple[list[float], list[float]]:
        data = Path(tempfile.mkdtemp(prefix="arbiter-bench-path-"))
        limits = Limits(rate_per_second=1e9, burst=10**9)
        server = ArbiterServer(
            ServerConfig(data=data, port=0, build=False, reload_interval=None, limits=limits)
        )
        if "combat-styles" not in server.rules.served:
            await server.close()
            return [], []
        served = server.rules.served["combat-styles"]
        _ = server.rules.reader
        settle_heap()  # as ArbiterServer.start() does before it listens
        session = ClientSession(server, None)  # type: ignore[arg-type]  # no socket: handle() only
        session.user = "benchmark"
        session.bind_player(None)  # the GM's connection, as the socket benchmark's hello says
        for i, block in enumerate(blocks or []):
            put = {"v": 1, "type": "put_stat_block", "id": f"put-{i}",
                   "ruleset": "combat-styles", "stat_block": block}  # fmt: skip
            answer = session.handle(json.dumps(put))
            if '"ok":true' not in str(answer):
                raise RuntimeError(f"the stat block was not stored: {answer!r}")
            await server.committed()
        twin = KeyedSource(session.seed)  # the same dice the session's source draws
        totals, engine = [], []
        for batch in range(batches + 1):  # batch 0 warms up
            requests = [exchange(batch * PATH_BATCH + i) for i in range(PATH_BATCH)]
            frames = [json.dumps({"v": 1, "type": "request", "request": r}) for r in requests]
            started = time.process_time()
            for i, frame in enumerate(frames):
                reply = session.handle(frame)
                if i % GROUP == GROUP - 1:
                    # The server's own group commit, which also runs (and so releases) what
                    # each outcome left to do after its commit, as it does when serving.
                    await server.committed()
            await server.committed()
            total = time.process_time() - started
            text = reply.decode() if isinstance(reply, bytes) else reply
            if '"type":"outcome"' not in text:
                raise RuntimeError(f"not an outcome: {text[:300]}")
            filled = [{**r, "body": exchange_body} for r in requests]  # as the engine gets it
            alone = engine_alone(served, filled, twin)
            if twin.counter != session.keyed.counter:
                raise RuntimeError("the engine alone drew other dice than the session")
            if batch:
                totals.append(total / PATH_BATCH * 1e6)
                engine.append(alone / PATH_BATCH * 1e6)
        await server.close()
        return totals, engine

    totals, engine = asyncio.run(run())
    if not totals:
        print("server path: skipped (combat-styles not served)")
        return
    rest = [t - e for t, e in zip(totals, engine, strict=True)]
    print(
        f"server path without sockets{label} ({batches} x {PATH_BATCH} exchanges, commit "
        f"every {GROUP}; CPU us per exchange, min / median of batches):"
    )
    for label, values in (
        ("parse + decide + log", totals),
        ("engine alone, same dice", engine),
        ("server's own share", rest),
    ):
        print(f"  {label:<24} {min(values):7.0f} / {statistics.median(values):7.0f}")
