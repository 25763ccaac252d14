"""Round trips through ``arbiter serve`` beside a bare ``websockets`` echo server, same run.

Run: ``.venv/bin/python benchmarks/bridge.py [--seconds S] [--rounds R] [--idle N]``

What it measures, and what makes the comparison like with like:

* Both servers run in their own process on 127.0.0.1, on the same ``websockets`` asyncio API,
  with compression off on both sides (no permessage-deflate: the client offers none, and both
  servers are told ``compression=None``) and the same 1 MiB frame limit.
* One client process (the same code, the same client library) drives each with 1, 10 and 100
  connections, each sending its next message as soon as the previous answer arrives. Both get
  the very same request frames; the echo server answers each with a frame as long as Arbiter's
  answer to that request (measured once at the start), so both move the same bytes each way.
* The Arbiter request is a combat-styles exchange when that ruleset is served (else the tiny
  test ruleset's d100 check, and the report says so), its two stat blocks carried in the body
  (no encounter). Every Arbiter request has a new id, so each one is decided by the engine and
  committed to the roll log before it is answered.
* Echo and Arbiter alternate in ``--rounds`` rounds and the median round is shown, so a burst of
  load from elsewhere on the machine hits both. The server's rate limit is raised for the run
  (a table of humans never comes near it).
* ``CPU us/req``: the server process's CPU time (user + system, from /proc) per round trip.
  Unlike the wall-clock figures it hardly moves when other work shares the machine, so it is
  the figure to compare between two versions of the server.
* Memory per idle connection: server RSS growth over ``--idle`` authenticated idle connections.

First, without sockets, the server path alone: the process CPU time one client session takes to
answer a batch of exchanges (parse, decide, log, and the server's own group commit every
``GROUP`` rows) beside the engine alone resolving the very same requests with the very same dice;
their difference is what the server adds around the engine. The minimum and the median over
``--path-batches`` batches are shown (the minimum is the figure least disturbed by other work on
the machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[1]
CONNECTIONS = (1, 10, 100)
MAX_REQUESTS = 200_000
"""A bound on each measurement besides its time."""

ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve

REPLY = "x" * int(sys.argv[1]) if len(sys.argv) > 1 else None

async def echo(ws):
    async for message in ws:
        await ws.send(message if REPLY is None else REPLY)

async def main():
    async with serve(echo, "127.0.0.1", 0, compression=None, max_size=2**20) as server:
        print("echo: ws://127.0.0.1:%d" % server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

asyncio.run(main())
"""

SERVE_ARGS = [
    "--port",
    "0",
    "--rate",
    "1e9",
    "--burst",
    "1000000000",
    "--reload-interval",
    "0",
    "--no-build",
    "--quiet",
]


def combat_styles_exchange(n: int) -> dict[str, Any]:
    """An attack parried (or not) between two stat blocks sent with the request."""
    return {
        "id": f"bench-{n}",
        "ruleset": "combat-styles",
        "type": "exchange",
        "body": EXCHANGE_BODY,
    }


EXCHANGE_BODY: dict[str, Any] = {}
"""Filled from ``docs/examples`` of the combat-styles engine when it is present."""


def tiny_check(n: int) -> dict[str, Any]:
    return {"id": f"bench-{n}", "ruleset": "tiny", "type": "check", "body": {"skill": 50}}


class Process:
    """A server subprocess; the first stdout line names its URL."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "ws://" not in line:
            self.stop()
            raise RuntimeError(f"server did not start: {line!r}")
        self.url = next(w for w in line.split() if w.startswith("ws://"))

    def cpu_seconds(self) -> float:
        """User + system CPU the server process has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


async def _open(url: str, secret: str | None) -> ClientConnection:
    ws = await connect(url, compression=None, max_size=2**22, open_timeout=30)
    if secret is not None:
        hello = {
            "v": 1,
            "type": "hello",
            "token": secret,
            "events": [],
            "client": {"name": "benchmark", "role": "gm"},
        }
        await ws.send(json.dumps(hello))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
    return ws


async def measure(
    url: str, secret: str | None, connections: int, seconds: float, make: Callable[[int], str]
) -> tuple[list[float], float]:
    """Round-trip times (s) of every message and the wall time the run took."""
    sockets = [await _open(url, secret) for _ in range(connections)]
    counter = iter(range(10**9))
    times: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def loop(ws: ClientConnection) -> None:
        while time.perf_counter() < stop_at and len(times) < MAX_REQUESTS:
            frame = make(next(counter))
            start = time.perf_counter()
            await ws.send(frame)
            reply = await ws.recv()
            times.append(time.perf_counter() - start)
            if secret is not None and '"type":"outcome"' not in str(reply):
                raise RuntimeError(f"not an outcome: {str(reply)[:300]}")

    started = time.perf_counter()
    await asyncio.gather(*(loop(ws) for ws in sockets))
    wall = time.perf_counter() - started
    await asyncio.gather(*(ws.close() for ws in sockets))
    return times, wall


async def idle_memory(server: Process, secret: str | None, count: int) -> float:
    """KiB of server memory per idle (authenticated) connection."""
    await asyncio.sleep(0.5)
    before = server.rss_kib()
    sockets = [await _open(server.url, secret) for _ in range(count)]
    await asyncio.sleep(1.0)
    after = server.rss_kib()
    await asyncio.gather(*(ws.close() for ws in sockets))
    return (after - before) / count


PATH_BATCH = 200
GROUP = 10
"""Rows per commit in the server path measurement (what 10 busy connections give)."""


def server_path(batches: int) -> None:
    """Print the server path's CPU per exchange beside the engine's, measured in this process."""
    if not EXCHANGE_BODY:
        print("server path: skipped (no combat-styles exchange example)")
        return
    sys.path.insert(0, str(ROOT))
    from bridge.engine.dice import KeyedSource
    from bridge.engine.envelope import Request, resolve
    from bridge.limits import Limits
    from bridge.server import ArbiterServer, ServerConfig, settle_heap
    from bridge.session import ClientSession

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
        settle_heap()  # as ArbiterServer.start() does before it listens
        session = ClientSession(server, None)  # type: ignore[arg-type]  # no socket: handle() only
        session.user = "benchmark"
        twin = KeyedSource(session.seed)  # the same dice the session's source draws
        totals, engine = [], []
        for batch in range(batches + 1):  # batch 0 warms up
            requests = [combat_styles_exchange(batch * PATH_BATCH + i) for i in range(PATH_BATCH)]
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
            if '"type":"outcome"' not in reply:
                raise RuntimeError(f"not an outcome: {reply[:300]}")
            parsed = [Request.model_validate(r) for r in requests]
            model, digest = served.ruleset.model, served.ruleset.content_hash
            started = time.process_time()
            for request in parsed:
                resolve(request, served.engine, model, digest, None, twin)
            alone = time.process_time() - started
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
        f"server path without sockets ({batches} x {PATH_BATCH} exchanges, commit every "
        f"{GROUP}; CPU us per exchange, min / median of batches):"
    )
    for label, values in (
        ("parse + decide + log", totals),
        ("engine alone, same dice", engine),
        ("server's own share", rest),
    ):
        print(f"  {label:<24} {min(values):7.0f} / {statistics.median(values):7.0f}")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def start_arbiter(data: Path) -> tuple[Process, str, Callable[[int], dict[str, Any]], str]:
    """Our server with the bundled rules, or with the tiny test ruleset when none is served."""
    server = Process(
        [sys.executable, "-m", "bridge.cli", "serve", "--data", str(data), *SERVE_ARGS]
    )
    secret = (data / "world.secret").read_text().strip()
    served = asyncio.run(_served(server.url, secret))
    if "combat-styles" in served and EXCHANGE_BODY:
        return server, secret, combat_styles_exchange, "combat-styles exchange"
    server.stop()
    rules = Path(tempfile.mkdtemp(prefix="arbiter-bench-rules-"))
    sys.path.insert(0, str(ROOT))
    from tests.bridge.support import write_rules

    write_rules(rules)
    server = Process(
        [
            sys.executable,
            "-m",
            "tests.bridge.serve_tiny",
            str(rules),
            "--data",
            str(data),
            *SERVE_ARGS,
        ]
    )
    why = "combat-styles not served here" if "combat-styles" not in served else "no exchange body"
    return server, secret, tiny_check, f"tiny d100 check (FALLBACK: {why})"


async def _reply_size(url: str, secret: str, make: Callable[[int], dict[str, Any]]) -> int:
    """The length of Arbiter's answer to one request (the echo server answers with as much)."""
    ws = await _open(url, secret)
    await ws.send(json.dumps({"v": 1, "type": "request", "request": make(-1)}))
    reply = await ws.recv()
    await ws.close()
    if '"type":"outcome"' not in str(reply):
        raise RuntimeError(f"not an outcome: {str(reply)[:300]}")
    return len(reply)


async def _served(url: str, secret: str) -> dict[str, Any]:
    ws = await connect(url, compression=None)
    hello = {"v": 1, "type": "hello", "token": secret, "client": {"name": "benchmark"}}
    await ws.send(json.dumps(hello))
    welcome = json.loads(await ws.recv())
    await ws.close()
    return dict(welcome["rulesets"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per measurement")
    parser.add_argument("--idle", type=int, default=300, help="idle connections for memory")
    parser.add_argument(
        "--path-batches", type=int, default=15, help="batches for the server path (0: skip)"
    )
    args = parser.parse_args(argv)
    _load_exchange_body()
    if args.path_batches > 0:
        server_path(args.path_batches)
    data = Path(tempfile.mkdtemp(prefix="arbiter-bench-"))
    arbiter, secret, make_request, what = start_arbiter(data)
    reply_bytes = asyncio.run(_reply_size(arbiter.url, secret, make_request))
    echo = Process([sys.executable, "-c", ECHO_SERVER, str(reply_bytes)])
    print(
        f"request: {what}; loopback; {os.cpu_count()} CPUs; {args.rounds} interleaved rounds of "
        f"{args.seconds:g} s per measurement, median shown"
    )
    print(
        f"{'server':<8} {'conns':>5} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>9} "
        f"{'CPU us/req':>10}"
    )
    results: dict[tuple[str, int], tuple[float, float, float]] = {}
    cpu = {"echo": 0.0, "arbiter": 0.0}
    served = {"echo": 0, "arbiter": 0}
    offset = 0
    try:
        for n in CONNECTIONS:
            rounds: dict[str, list[tuple[int, float, float, float, float]]] = {
                "echo": [],
                "arbiter": [],
            }
            for _ in range(args.rounds):
                for name, server, token in (("echo", echo, None), ("arbiter", arbiter, secret)):
                    start_id = offset

                    def make(i: int, start_id: int = start_id) -> str:
                        # Fresh ids every time: each Arbiter request is decided, never replayed.
                        request = make_request(start_id + i)
                        return json.dumps({"v": 1, "type": "request", "request": request})

                    offset += MAX_REQUESTS
                    cpu_before = server.cpu_seconds()
                    times, wall = asyncio.run(measure(server.url, token, n, args.seconds, make))
                    used = server.cpu_seconds() - cpu_before
                    cpu[name] += used
                    served[name] += len(times)
                    rounds[name].append(
                        (
                            len(times),
                            percentile(times, 50) * 1e3,
                            percentile(times, 99) * 1e3,
                            len(times) / wall,
                            used / max(len(times), 1) * 1e6,
                        )
                    )
            for name in ("echo", "arbiter"):
                count = sum(r[0] for r in rounds[name])
                p50, p99, rate, per = (
                    statistics.median(r[i] for r in rounds[name]) for i in (1, 2, 3, 4)
                )
                results[(name, n)] = (p50, p99, rate)
                print(
                    f"{name:<8} {n:>5} {count:>9} {p50:>8.3f} {p99:>8.3f} {rate:>9.0f} {per:>10.0f}"
                )
        for n in CONNECTIONS:
            e, a = results[("echo", n)], results[("arbiter", n)]
            print(
                f"at {n:>3} connections: arbiter p99 = {a[1] / e[1]:.2f}x echo, "
                f"throughput = {a[2] / e[2]:.0%} of echo"
            )
        per = {name: cpu[name] / max(served[name], 1) * 1e6 for name in cpu}
        print(
            f"server CPU per round trip (all runs; includes connection setup): "
            f"arbiter {per['arbiter']:.0f} us, echo {per['echo']:.0f} us"
        )
        a_mem = asyncio.run(idle_memory(arbiter, secret, args.idle))
        e_mem = asyncio.run(idle_memory(echo, None, args.idle))
        print(
            f"memory per idle connection ({args.idle} open): arbiter {a_mem:.1f} KiB, "
            f"echo {e_mem:.1f} KiB"
        )
    finally:
        arbiter.stop()
        echo.stop()
    return 0


def _load_exchange_body() -> None:
    """An exchange between the two fighters of the combat-styles example file, when present.

    The stat blocks travel in the body (no encounter), and the winner's choice is made in
    advance (no effects), so every request is the same complete exchange: attack roll, parry
    roll, differential, any blow, all logged. (An exchange left awaiting a choice without an
    encounter is refused with ``encounter_required``.)
    """
    example = ROOT / "docs" / "examples" / "combat-styles.json"
    if not example.is_file():
        return
    data = json.loads(example.read_text(encoding="utf-8"))
    entries = data.get("requests", data) if isinstance(data, dict) else data
    start = next((e for e in entries if e.get("type") == "start_encounter"), None)
    exchange = next((e for e in entries if e.get("type") == "exchange"), None)
    if start is None or exchange is None:
        return
    EXCHANGE_BODY.update(exchange["body"])
    EXCHANGE_BODY["combatants"] = start["body"]["combatants"]
    EXCHANGE_BODY["effects"] = []


if __name__ == "__main__":
    sys.exit(main())
