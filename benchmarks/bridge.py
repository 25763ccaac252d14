"""Round trips through ``arbiter serve`` beside a bare and a durable ``websockets`` echo, same run.

Run: ``.venv/bin/python benchmarks/bridge.py [--seconds S] [--rounds R] [--idle N]
[--path-batches B] [--no-encounters] [--connections N ...] [--no-postgres]``

What it measures, and what makes the comparison like with like:

* Four servers: ``arbiter`` itself (its SQLite store); ``arbiter-pg``, the same ``arbiter
  serve`` on a world in PostgreSQL (``--store postgresql://… --world bench``: a scratch cluster
  started in a temporary folder by tests/support/postgres.py, loopback, ``fsync`` and
  ``synchronous_commit`` on, so every group commit waits for the disk's WAL flush; skipped with
  ``--no-postgres``); ``echo``, a bare echo; ``durable``, the durable echo
  (``bridge_durable.py``: per message it parses the JSON, looks the id up, chains a SHA-256 over
  the previous hash, the request and the reply, INSERTs the row into SQLite in WAL mode with
  ``synchronous=NORMAL`` and commits once per event-loop turn for every row staged in it, then
  answers). The durable echo is the floor: what any server that answers only with what it has
  durably logged pays before it decides anything.
* Every server runs in its own process on 127.0.0.1, on the same ``websockets`` asyncio API,
  with compression off on both sides (no permessage-deflate: the client offers none, and every
  server is told ``compression=None``) and the same 1 MiB frame limit.
* One client process (the same code, the same client library) drives each with 1, 10 and 100
  connections, each sending its next message as soon as the previous answer arrives. All get
  the very same request frames; the echoes answer each with a frame as long as Arbiter's
  answer to that request (measured once at the start), so all move the same bytes each way.
  The client's connections skip event frames unparsed (``bridge_client.py``): every server's
  connections are such, and only ``arbiter-sub``'s ever get events; with ``websockets``' own
  parsing of the 99 events per request at 100 subscribed connections, the client process, not
  the server, set that figure (about 1.1 ms of client CPU per request).
* The Arbiter request is a combat-styles exchange (the benchmark stops when that ruleset is
  not served), its two stat blocks carried in the body (no encounter). Every Arbiter request has a new id, so each one is decided by the engine and
  committed to the roll log before it is answered.
* The servers alternate in ``--rounds`` rounds and the median round is shown, so a burst of
  load from elsewhere on the machine hits all of them. The server's rate limit is raised for the
  run (a table of humans never comes near it).
* ``engine``: the engine's own CPU per request on the same requests (bodies validated
  beforehand, as the server hands them over: the decision and its outcome envelope only),
  measured in this process in every round, beside the servers.
* ``arbiter-ref``: the same exchange naming both stat blocks by reference to the blocks the
  GM stored (``{"id": …, "stored": true}``, stored once at the start, as the GM's client
  does), beside ``echo-ref`` and ``durable-ref``, the echoes fed the very same (shorter)
  frames, answering them with as many bytes as Arbiter's first inline answer (the answers of
  both shapes differ only by their dice). The engine decides the same exchange either way, so
  ``engine`` is the engine's own CPU for both shapes.
* ``arbiter-sub``: Arbiter with every connection subscribed to ``outcome`` events, so each
  outcome is also sent to every other connection (the client skips the events); its CPU per
  request is compared with ``arbiter``'s (goal: at most 2x at 100 connections).
* The goals of issue #16 are checked at the end of the table: Arbiter's CPU per request at
  most 1.2 x (the durable echo's + the engine's), its throughput at least 0.75 of the durable
  echo's, its p99 no worse.
* ``CPU us/req``: the server process's CPU time (user + system, from /proc) per round trip;
  for ``arbiter-pg``, the server's plus the PostgreSQL cluster's (every process of it, ended
  backends included), the database's share printed after the table.
  It moves much less than the wall-clock figures when other work shares the machine, so it is
  the figure to compare between two versions of the server.
* Memory per idle connection: server RSS growth over ``--idle`` authenticated idle connections.

Two Arbiter workloads, each beside an echo server moving the same bytes:

* ``arbiter``: the combat-styles exchange above, stat blocks in every request, no encounter.
* ``arbiter-enc`` (the realistic path, what the Foundry client sends in a fight): exchanges and
  turns inside encounters whose state the server keeps, read and written with every request
  (``bridge_encounter.py``; the mix of request types is printed). ``echo-enc`` answers the
  same request frames with frames as long as Arbiter's answers.

First, without sockets, the server path alone (``bridge_path.py``): CPU per exchange of one
session answering a batch, beside the engine alone on the same requests and dice.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from benchmarks.bridge_client import open_client  # noqa: E402
from benchmarks.bridge_encounter import example_fighters, run_fights, sample_fight  # noqa: E402
from benchmarks.bridge_path import engine_cpu_per_request, server_path  # noqa: E402
from benchmarks.postgres_server import PostgresServer, postgres_server  # noqa: E402

CONNECTIONS = (1, 10, 100)
DURABLE_SERVER = Path(__file__).resolve().parent / "bridge_durable.py"
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
REFERENCED_BODY: dict[str, Any] = {}
"""The same exchange naming both stat blocks by reference to the GM's stored ones."""


def combat_styles_exchange_by_reference(n: int) -> dict[str, Any]:
    """The exchange of :func:`combat_styles_exchange`, its two stat blocks named by reference
    (``{"id": …, "stored": true}``) to the blocks the GM stored (:func:`store_blocks`)."""
    return {
        "id": f"bench-ref-{n}",
        "ruleset": "combat-styles",
        "type": "exchange",
        "body": REFERENCED_BODY,
    }


async def store_blocks(url: str, secret: str) -> None:
    """Store the exchange's two stat blocks on the server, as the GM's client does."""
    ws = await _open(url, secret)
    for i, block in enumerate(EXCHANGE_BODY["combatants"]):
        put = {"v": 1, "type": "put_stat_block", "id": f"put-{i}", "ruleset": "combat-styles",
               "stat_block": block}  # fmt: skip
        await ws.send(json.dumps(put))
        answer = json.loads(await ws.recv())
        if answer.get("ok") is not True:
            raise RuntimeError(f"the stat block was not stored: {answer}")
    await ws.close()


def engine_of(root: Path) -> str:
    """Which engine a server run from ``root`` (as :class:`Process` runs it: this Python, that
    folder first on the path) loads: ``root``'s own ``arbiter.bridge.native.describe()``. A
    tree with no compiled engine built in place (or installed editable) runs the interpreted
    one, which a figure measured against it must say."""
    done = subprocess.run(
        [sys.executable, "-c", "from arbiter.bridge.native import describe; print(describe())"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        return f"engine: unknown ({done.stderr.strip().splitlines()[-1:] or 'no output'})"
    return done.stdout.strip()


class Process:
    """A server subprocess; the first stdout line names its URL."""

    def __init__(self, args: list[str], cwd: Path = ROOT) -> None:
        self.proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, text=True)
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


async def _open(url: str, secret: str | None, events: tuple[str, ...] = ()) -> ClientConnection:
    """A benchmark connection (every server gets the same client: ``bridge_client``, which skips
    event frames unparsed), said hello to when ``secret`` is given (Arbiter)."""
    ws = await open_client(url, compression=None, max_size=2**22, open_timeout=30)
    if secret is not None:
        hello = {
            "v": 1,
            "type": "hello",
            "token": secret,
            "events": list(events),
            "client": {"name": "benchmark", "role": "gm"},
        }
        await ws.send(json.dumps(hello))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
    return ws


async def measure(
    url: str,
    secret: str | None,
    connections: int,
    seconds: float,
    make: Callable[[int], str],
    events: tuple[str, ...] = (),
) -> tuple[list[float], float]:
    """Round-trip times (s) of every message and the wall time the run took.

    With ``events``, every connection subscribes to them and skips them while it waits for
    its answer."""
    sockets = [await _open(url, secret, events) for _ in range(connections)]
    counter = iter(range(10**9))
    times: list[float] = []
    stop_at = time.perf_counter() + seconds

    async def loop(ws: ClientConnection) -> None:
        while time.perf_counter() < stop_at and len(times) < MAX_REQUESTS:
            frame = make(next(counter))
            start = time.perf_counter()
            await ws.send(frame)
            reply = await ws.recv()
            while events and str(reply).startswith('{"v":1,"type":"event"'):
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


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def start_arbiter(
    data: Path, root: Path = ROOT, store: list[str] | None = None
) -> tuple[Process, str, Callable[[int], dict[str, Any]], str]:
    """Our server with the bundled rules; the benchmark's request is a combat-styles exchange.
    ``store``: the ``--store``/``--world`` options of a world elsewhere than in ``data``.

    (The tiny test ruleset's server wrapper it fell back on is gone from the tests: without
    combat-styles there is nothing like for like to measure, so it says so and stops.)
    """
    where = store if store is not None else ["--data", str(data)]
    cli = [sys.executable, "-m", "arbiter.bridge.cli"]
    if store is not None:
        # The world's secret is in the database: made there on first use, printed by `token`.
        secret = subprocess.run(
            [*cli, "token", *store], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
    server = Process([*cli, "serve", *where, *SERVE_ARGS], root)
    if store is None:
        secret = (data / "world.secret").read_text().strip()
    served = asyncio.run(_served(server.url, secret))
    if "combat-styles" in served and EXCHANGE_BODY:
        return server, secret, combat_styles_exchange, "combat-styles exchange"
    server.stop()
    why = "combat-styles is not served" if "combat-styles" not in served else "no exchange body"
    raise SystemExit(f"benchmarks/bridge.py needs the combat-styles exchange: {why}")


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


Runner = Callable[[int, float, int], tuple[list[float], float]]
"""A measurement: (connections, seconds, first request number) -> round-trip times, wall time."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per measurement")
    parser.add_argument(
        "--idle", type=int, default=300, help="idle connections for memory (0: skip)"
    )
    parser.add_argument(
        "--path-batches", type=int, default=15, help="batches for the server path (0: skip)"
    )
    parser.add_argument(
        "--no-encounters", action="store_true", help="skip the exchanges-in-an-encounter figure"
    )
    parser.add_argument(
        "--connections",
        type=int,
        nargs="+",
        default=list(CONNECTIONS),
        help="connection counts to measure at (default: 1 10 100)",
    )
    parser.add_argument(
        "--no-postgres",
        action="store_true",
        help="skip arbiter-pg (Arbiter on a world in a scratch PostgreSQL)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another checkout whose server is measured in the same rounds as 'baseline' and "
        "'baseline-sub' (every connection subscribed to outcome events) (run "
        "by this Python from that folder: its own bridge package, this one's dependencies)",
    )
    args = parser.parse_args(argv)
    from arbiter.bridge import native  # after sys.path names this checkout

    with contextlib.ExitStack() as stack:
        database = None if args.no_postgres else stack.enter_context(postgres_server())
        return _run(args, native.describe(), database)


def _run(args: argparse.Namespace, engine_kind: str, database: PostgresServer | None) -> int:
    """Start the servers (``arbiter-pg`` on ``database`` when given), measure, report."""

    print(engine_kind, "(the server runs the same)")
    if args.baseline is not None:
        print(f"baseline {args.baseline}: {engine_of(args.baseline.resolve())}")
    _load_exchange_body()
    if args.path_batches > 0:
        server_path(args.path_batches, EXCHANGE_BODY, combat_styles_exchange, ", blocks inline")
        if EXCHANGE_BODY:
            server_path(
                args.path_batches,
                EXCHANGE_BODY,
                combat_styles_exchange_by_reference,
                ", blocks by reference",
                EXCHANGE_BODY["combatants"],
            )
    data = Path(tempfile.mkdtemp(prefix="arbiter-bench-"))
    arbiter, secret, make_request, what = start_arbiter(data)
    reply_bytes = asyncio.run(_reply_size(arbiter.url, secret, make_request))
    echo = Process([sys.executable, "-c", ECHO_SERVER, str(reply_bytes)])
    durable_log = data.parent / f"{data.name}-durable.sqlite"
    durable = Process([sys.executable, str(DURABLE_SERVER), str(reply_bytes), str(durable_log)])
    processes = [arbiter, echo, durable]
    baseline = None
    if args.baseline is not None:
        base_data = Path(tempfile.mkdtemp(prefix="arbiter-bench-baseline-"))
        baseline, base_secret, _, _ = start_arbiter(base_data, args.baseline.resolve())
        processes.append(baseline)
    on_postgres = None
    if database is not None:
        pg_server, pg_secret, _, _ = start_arbiter(data, store=database.store_options("bench"))
        processes.append(pg_server)
        on_postgres = WithDatabase(pg_server, database)

    def frames(
        first: int, make: Callable[[int], dict[str, Any]] = make_request
    ) -> Callable[[int], str]:
        # Fresh ids every time: each Arbiter request is decided, never replayed.
        return lambda i: json.dumps({"v": 1, "type": "request", "request": make(first + i)})

    asyncio.run(store_blocks(arbiter.url, secret))
    by_ref = combat_styles_exchange_by_reference
    ref_bytes = asyncio.run(_reply_size(arbiter.url, secret, by_ref))
    # The same exchange: only the dice (so the outcome's length) differ from one answer to the
    # next; both echoes answer every frame with as many bytes as Arbiter's inline answer.
    print(f"answer sizes: inline {reply_bytes} bytes, by reference {ref_bytes} (other dice)")

    workloads: list[tuple[str, Process | WithDatabase, Runner]] = [
        (
            "echo",
            echo,
            lambda n, t, first: asyncio.run(measure(echo.url, None, n, t, frames(first))),
        ),
        (
            "durable",
            durable,
            lambda n, t, first: asyncio.run(measure(durable.url, None, n, t, frames(first))),
        ),
        (
            "arbiter",
            arbiter,
            lambda n, t, first: asyncio.run(measure(arbiter.url, secret, n, t, frames(first))),
        ),
        (
            "echo-ref",
            echo,
            lambda n, t, first: asyncio.run(measure(echo.url, None, n, t, frames(first, by_ref))),
        ),
        (
            "durable-ref",
            durable,
            lambda n, t, first: asyncio.run(
                measure(durable.url, None, n, t, frames(first, by_ref))
            ),
        ),
        (
            "arbiter-ref",
            arbiter,
            lambda n, t, first: asyncio.run(
                measure(arbiter.url, secret, n, t, frames(first, by_ref))
            ),
        ),
        (
            "arbiter-sub",
            arbiter,
            lambda n, t, first: asyncio.run(
                measure(arbiter.url, secret, n, t, frames(first), events=("outcome",))
            ),
        ),
    ]
    if on_postgres is not None:
        pg = on_postgres
        workloads.insert(
            3,
            (
                "arbiter-pg",
                pg,
                lambda n, t, first: asyncio.run(measure(pg.url, pg_secret, n, t, frames(first))),
            ),
        )
    if baseline is not None:
        base = baseline
        workloads.append(
            (
                "baseline",
                base,
                lambda n, t, first: asyncio.run(
                    measure(base.url, base_secret, n, t, frames(first))
                ),
            )
        )
        workloads.append(
            (
                "baseline-sub",
                base,
                lambda n, t, first: asyncio.run(
                    measure(base.url, base_secret, n, t, frames(first), events=("outcome",))
                ),
            )
        )
    engine = None
    if EXCHANGE_BODY:

        def engine() -> float:
            return engine_cpu_per_request(combat_styles_exchange)

    fighters = example_fighters(ROOT)
    try:
        if fighters and not args.no_encounters:
            workloads += _encounter_workloads(arbiter, secret, fighters, processes)
        _report(workloads, what, args.seconds, args.rounds, engine, tuple(args.connections))
        if args.idle > 0:
            a_mem = asyncio.run(idle_memory(arbiter, secret, args.idle))
            e_mem = asyncio.run(idle_memory(echo, None, args.idle))
            print(
                f"memory per idle connection ({args.idle} open): arbiter {a_mem:.1f} KiB, "
                f"echo {e_mem:.1f} KiB"
            )
    finally:
        for process in processes:
            process.stop()
    return 0


class WithDatabase:
    """A server whose store is a PostgreSQL cluster: its CPU is the server's and the
    cluster's (``database_cpu_seconds`` alone gives the cluster's share)."""

    def __init__(self, server: Process, database: PostgresServer) -> None:
        self.server, self.database, self.url = server, database, server.url

    def cpu_seconds(self) -> float:
        return self.server.cpu_seconds() + self.database.cpu_seconds()

    def database_cpu_seconds(self) -> float:
        return self.database.cpu_seconds()


def _encounter_workloads(
    arbiter: Process, secret: str, fighters: list[dict[str, Any]], processes: list[Process]
) -> list[tuple[str, Process, Runner]]:
    """Arbiter fighting encounters (``bridge_encounter``) and an echo server moving the same
    bytes: the sampled request frames, answered with frames as long as Arbiter's answers."""

    def opener() -> Any:
        return _open(arbiter.url, secret)

    sampled, reply_bytes, sent = asyncio.run(sample_fight(opener, fighters))
    echo = Process([sys.executable, "-c", ECHO_SERVER, str(reply_bytes)])
    processes.append(echo)
    mix = ", ".join(f"{kind} {count}" for kind, count in sorted(sent.items()))
    print(f"encounter workload (arbiter-enc): requests by type in a sample of 100: {mix}")
    return [
        (
            "echo-enc",
            echo,
            lambda n, t, first: asyncio.run(
                measure(echo.url, None, n, t, lambda i: sampled[i % len(sampled)])
            ),
        ),
        (
            "arbiter-enc",
            arbiter,
            lambda n, t, first: asyncio.run(run_fights(opener, fighters, n, t, f"enc{first}")),
        ),
    ]


def _report(
    workloads: list[tuple[str, Process | WithDatabase, Runner]],
    what: str,
    seconds: float,
    rounds_: int,
    engine: Callable[[], float] | None = None,
    connections: tuple[int, ...] = CONNECTIONS,
) -> None:
    """Measure every workload at each connection count, interleaved, and print the table,
    then Arbiter's ratios to both echoes and the goals of issue #16, then the database's share
    of ``arbiter-pg``'s CPU."""
    print(
        f"request: {what}; loopback; {os.cpu_count()} CPUs; {rounds_} interleaved rounds of "
        f"{seconds:g} s per measurement, median shown"
    )
    print(
        f"{'server':<11} {'conns':>5} {'requests':>9} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>9} "
        f"{'CPU us/req':>10}"
    )
    results: dict[tuple[str, int], tuple[float, float, float, float]] = {}
    offset = 0
    database_share: dict[int, list[float]] = {}
    for n in connections:
        rounds: dict[str, list[tuple[int, float, float, float, float]]] = {
            name: [] for name, _, _ in workloads
        }
        engine_rounds: list[float] = []
        for _ in range(rounds_):
            if engine is not None:
                engine_rounds.append(engine())
            for name, server, runner in workloads:
                cpu_before = server.cpu_seconds()
                db_before = (
                    server.database_cpu_seconds() if isinstance(server, WithDatabase) else 0.0
                )
                times, wall = runner(n, seconds, offset)
                offset += MAX_REQUESTS
                used = server.cpu_seconds() - cpu_before
                if isinstance(server, WithDatabase):
                    db_used = server.database_cpu_seconds() - db_before
                    database_share.setdefault(n, []).append(db_used / max(len(times), 1) * 1e6)
                rounds[name].append(
                    (
                        len(times),
                        percentile(times, 50) * 1e3,
                        percentile(times, 99) * 1e3,
                        len(times) / wall,
                        used / max(len(times), 1) * 1e6,
                    )
                )
        for name, _, _ in workloads:
            count = sum(r[0] for r in rounds[name])
            p50, p99, rate, per = (
                statistics.median(r[i] for r in rounds[name]) for i in (1, 2, 3, 4)
            )
            results[(name, n)] = (p50, p99, rate, per)
            print(f"{name:<11} {n:>5} {count:>9} {p50:>8.3f} {p99:>8.3f} {rate:>9.0f} {per:>10.0f}")
        if engine_rounds:
            per = statistics.median(engine_rounds)
            results[("engine", n)] = (0.0, 0.0, 0.0, per)
            print(f"{'engine':<11} {n:>5} {'':>9} {'':>8} {'':>8} {'':>9} {per:>10.0f}")
    for line in ratios(results):
        print(line)
    for n, shares in database_share.items():
        print(
            f"at {n:>3} connections: arbiter-pg CPU us/req includes PostgreSQL's "
            f"{statistics.median(shares):.0f} us/req (its processes: backend, WAL writer, ...)"
        )


Results = dict[tuple[str, int], tuple[float, float, float, float]]
"""(workload, connections) -> (p50 ms, p99 ms, requests/s, server CPU µs per request)."""


def ratios(results: Results) -> list[str]:
    """Arbiter's figures against both echoes, and issue #16's goals (met or not)."""
    lines = []
    counts = sorted({n for _, n in results})
    shapes = (
        ("arbiter", ("echo", "durable")),
        ("arbiter-ref", ("echo-ref", "durable-ref")),
        ("arbiter-pg", ("durable", "arbiter")),
        ("arbiter-enc", ("echo-enc",)),
    )
    for ours, bases in shapes:
        for n in counts:
            if (ours, n) not in results:
                continue
            a = results[(ours, n)]
            parts = []
            for base in bases:
                b = results[(base, n)]
                parts.append(
                    f"throughput {a[2] / b[2]:.2f} of {base}, p99 {a[1] / b[1]:.2f}x {base}"
                )
            lines.append(f"at {n:>3} connections: {ours}: " + "; ".join(parts))
    for n in counts:
        if ("baseline", n) in results and ("arbiter", n) in results:
            a, b = results[("arbiter", n)], results[("baseline", n)]
            lines.append(
                f"at {n:>3} connections: arbiter against the baseline checkout: CPU/req "
                f"{a[3] / b[3]:.2f}x, throughput {a[2] / b[2]:.2f}x, p99 {a[1] / b[1]:.2f}x"
            )
        if ("baseline-sub", n) in results and ("baseline", n) in results:
            s, b = results[("baseline-sub", n)], results[("baseline", n)]
            lines.append(
                f"at {n:>3} connections: the baseline checkout: CPU/req subscribed "
                f"{s[3] / b[3]:.2f}x unsubscribed ({s[3]:.0f} / {b[3]:.0f} us)"
            )
    for n in counts:
        for ours, echo, durable in (
            ("arbiter", "echo", "durable"),
            ("arbiter-ref", "echo-ref", "durable-ref"),
        ):
            if (ours, n) in results and (durable, n) in results:
                a, e, d = results[(ours, n)], results[(echo, n)], results[(durable, n)]
                engine = results.get(("engine", n), (0.0, 0.0, 0.0, 0.0))[3]
                lines.append(
                    f"at {n:>3} connections: {ours}: CPU/req {a[3]:.0f} us = {a[3] / e[3]:.2f}x "
                    f"{echo} ({e[3]:.0f}), {a[3] / d[3]:.2f}x {durable} ({d[3]:.0f}), "
                    f"{a[3] / (d[3] + engine):.2f}x {durable} + engine ({engine:.0f}); "
                    f"throughput {a[2] / d[2]:.2f} of {durable}"
                )
    for n in counts:
        if ("durable", n) not in results or ("arbiter", n) not in results:
            continue
        a, d = results[("arbiter", n)], results[("durable", n)]
        floor = d[3] + results.get(("engine", n), (0.0, 0.0, 0.0, 0.0))[3]
        goals = [
            ("CPU/req vs durable + engine", a[3] / floor, 1.2, f"{a[3]:.0f} / {floor:.0f} us"),
            ("throughput vs durable", a[2] / d[2], 0.75, ""),
            ("p99 vs durable", a[1] / d[1], 1.0, ""),
        ]
        if ("arbiter-ref", n) in results and ("durable-ref", n) in results:
            r, dr = results[("arbiter-ref", n)], results[("durable-ref", n)]
            floor_ref = dr[3] + results.get(("engine", n), (0.0, 0.0, 0.0, 0.0))[3]
            goals += [
                (
                    "by reference: CPU/req",
                    r[3] / floor_ref,
                    1.2,
                    f"{r[3]:.0f} / {floor_ref:.0f} us",
                ),
                ("by reference: throughput", r[2] / dr[2], 0.75, ""),
                ("by reference: p99", r[1] / dr[1], 1.0, ""),
            ]
        if ("arbiter-sub", n) in results:
            s = results[("arbiter-sub", n)]
            goals.append(("CPU/req subscribed vs not", s[3] / a[3], 2.0, f"{s[3]:.0f} us"))
        for label, value, goal, detail in goals:
            upward = "throughput" in label
            met = value >= goal if upward else value <= goal
            sign = ">=" if upward else "<="
            lines.append(
                f"goal at {n:>3} connections: {label:<28} {value:5.2f} (goal {sign} {goal:g}) "
                f"{'met' if met else 'NOT met'}{'; ' + detail if detail else ''}"
            )
    return lines


def _load_exchange_body() -> None:
    """An exchange between the two fighters of the combat-styles example file, when present.

    The stat blocks travel in the body (no encounter), and the winner's choice is made in
    advance (no effects), so every request is the same complete exchange: attack roll, parry
    roll, differential, any blow, all logged. (An exchange without an encounter must carry
    ``effects``: otherwise it is refused with ``encounter_required`` before any die.)
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
    REFERENCED_BODY.update(EXCHANGE_BODY)
    REFERENCED_BODY["combatants"] = [
        {"id": block["id"], "stored": True} for block in EXCHANGE_BODY["combatants"]
    ]


if __name__ == "__main__":
    sys.exit(main())
