"""System calls and CPU per request of a server: what callgrind's user-space count leaves out.

Run: ``.venv/bin/python benchmarks/bridge_syscalls.py {arbiter,durable} [--root DIR]
[--connections N] [--requests M] [--subscribed] [--no-strace] [--perf]`` (``strace`` must be
installed for the counts, ``perf`` for ``--perf``; ``--root``: another checkout's server, run
from that folder).

The server runs as in ``benchmarks/bridge.py`` (same arguments, same frames, the same client);
the client sends 300 combat-styles exchanges to warm it up, opens ``N`` connections, then:

* sends ``M`` requests over them and prints the server's CPU (user and system, from /proc) per
  request: a wall-clock figure, so it moves with the machine's load, but its system share is
  the kernel time callgrind does not see; then each request's wait for its reply (median, p99
  and the longest: a stall of the server's, a WAL checkpoint's, shows as the longest) and the
  largest size its SQLite WAL file reached (sampled every 100 replies);
* attaches ``strace -c -f`` to the server, sends ``M`` more, detaches, and prints the system
  calls per request, by call (the tracing slows the server, so these requests are not timed).
  The count does not move with the load, except that a busier server reads more messages per
  wake-up;
* with ``--perf``: attaches ``perf record -e cpu-clock -g`` to the server (every thread) for
  ``M`` more, and prints its CPU by shared object (the interpreter, the compiled engine, SQLite,
  the kernel, ...) in microseconds per request, and the recording's path for ``perf report``.
  ``cpu-clock`` because a virtual machine often has no hardware counters; its samples land
  where interrupts are enabled again, so the kernel's share gathers at
  ``_raw_spin_unlock_irqrestore`` (here mostly the reply's ``send()`` waking the client: the
  longer the client slept, the dearer its wake-up in a virtual machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arbiter.bridge import datadir  # noqa: E402
from benchmarks import bridge as bench  # noqa: E402


def _cpu(pid: int) -> tuple[float, float]:
    """User and system CPU seconds process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def _strace_counts(path: Path) -> dict[str, int]:
    """Calls by name from an ``strace -c`` summary."""
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0].replace(".", "").isdigit() and parts[-1] != "total":
            calls = parts[3]
            if calls.isdigit():
                counts[parts[-1]] = int(calls)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", choices=("arbiter", "durable"))
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--reply-bytes", type=int, default=900, help="the durable echo's reply")
    parser.add_argument("--subscribed", action="store_true", help="connections take outcome events")
    parser.add_argument("--no-strace", action="store_true", help="CPU per request only")
    parser.add_argument("--perf", action="store_true", help="also a perf profile by object")
    args = parser.parse_args()
    bench._load_exchange_body()
    data = Path(tempfile.mkdtemp(prefix="arbiter-syscalls-"))
    secret: str | None = None
    if args.server == "arbiter":
        serve = [sys.executable, "-m", "arbiter.bridge.cli", "serve", "--data", str(data / "world")]
        server = bench.Process([*serve, *bench.SERVE_ARGS], args.root.resolve())
        secret = (data / "world" / "world.secret").read_text().strip()
    else:
        durable = [sys.executable, str(bench.DURABLE_SERVER), str(args.reply_bytes)]
        server = bench.Process([*durable, str(data / "durable.sqlite")])
    pid = server.proc.pid
    counter = iter(range(10**9))
    wal = (
        data / "world" / f"{datadir.STORE_FILE}-wal"
        if args.server == "arbiter"
        else data / "durable.sqlite-wal"
    )
    waits: list[float] = []
    wal_sizes = [0]
    skipped = [0]
    """Event frames the client's connections skipped in the last ``drive``."""

    def frame() -> str:
        request = bench.combat_styles_exchange(next(counter))
        return json.dumps({"v": 1, "type": "request", "request": request})

    async def drive(count: int, around: tuple[object, object] | None = None) -> None:
        """``count`` requests over ``N`` connections; ``around``: called before and after the
        requests alone (the connections open before and close after)."""
        events = ("outcome",) if args.subscribed and secret is not None else ()
        sockets = [await bench._open(server.url, secret, events) for _ in range(args.connections)]
        left = [count]

        async def loop(ws: bench.ClientConnection) -> None:
            while left[0] > 0:
                left[0] -= 1
                sent = time.perf_counter()
                await ws.send(frame())
                reply = str(await ws.recv())
                while reply.startswith('{"v":1,"type":"event"'):
                    reply = str(await ws.recv())
                waits.append(time.perf_counter() - sent)
                if len(waits) % 100 == 0 and wal.exists():
                    wal_sizes.append(wal.stat().st_size)

        if around is not None:
            around[0]()  # type: ignore[operator]
        await asyncio.gather(*(loop(ws) for ws in sockets))
        if around is not None:
            around[1]()  # type: ignore[operator]
        skipped[0] = sum(getattr(ws, "events_skipped", 0) for ws in sockets)
        await asyncio.gather(*(ws.close() for ws in sockets))

    try:
        asyncio.run(drive(300))
        marks: list[tuple[float, float]] = []
        waits.clear()
        asyncio.run(drive(args.requests, (lambda: marks.append(_cpu(pid)),) * 2))
        measured = sorted(waits)
        engine = f"; {bench.engine_of(args.root.resolve())}" if args.server == "arbiter" else ""
        user = (marks[1][0] - marks[0][0]) / args.requests * 1e6
        system = (marks[1][1] - marks[0][1]) / args.requests * 1e6
        print(
            f"{args.server} ({args.root}{engine}), {args.connections} connections"
            f"{', subscribed' if args.subscribed else ''}: CPU {user + system:.0f} us/request "
            f"(user {user:.0f}, system {system:.0f})"
        )
        print(
            f"  reply waits: median {measured[len(measured) // 2] * 1e3:.1f} ms, p99 "
            f"{measured[int(len(measured) * 0.99)] * 1e3:.1f} ms, longest {measured[-1] * 1e3:.1f} ms; "
            f"WAL file at most {max(wal_sizes) / 1e6:.1f} MB; "
            f"{skipped[0] / args.requests:.1f} events received per request"
        )
        if not args.no_strace:
            out = data / "strace.txt"
            strace = ["strace", "-c", "-f", "-o", str(out), "-p", str(pid)]
            asyncio.run(drive(args.requests, _attached(strace, 30)))
            counts = _strace_counts(out)
            total = sum(counts.values())
            shown = ", ".join(
                f"{name} {calls / args.requests:.2f}"
                for name, calls in sorted(counts.items(), key=lambda c: -c[1])
                if calls / args.requests >= 0.01
            )
            print(f"  {total / args.requests:.2f} system calls per request: {shown}")
        if args.perf:
            recording = data / "perf.data"
            perf = ["perf", "record", "-e", "cpu-clock", "-F", "4000", "-g", "-q"]
            perf += ["-o", str(recording), "-p", str(pid)]
            asyncio.run(drive(args.requests, _attached(perf, 60)))
            _print_perf(recording, args.requests)
    finally:
        server.stop()
    return 0


def _attached(command: list[str], wait: float) -> tuple[Callable[[], None], Callable[[], None]]:
    """Start and stop callables for ``drive``: ``command`` (a tool that attaches to the server)
    runs while the requests are sent, and is stopped with SIGINT (it then writes its figures,
    waited for at most ``wait`` seconds)."""
    running: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        running.append(subprocess.Popen(command, stderr=subprocess.DEVNULL))
        time.sleep(1.0)  # attached before the first request

    def stop() -> None:
        running[0].send_signal(signal.SIGINT)
        running[0].wait(wait)

    return start, stop


def _print_perf(recording: Path, requests: int) -> None:
    """CPU per request by shared object, from a ``perf record -e cpu-clock`` of ``requests``."""
    report = ["perf", "report", "-i", str(recording), "--no-children", "--sort", "dso"]
    report += ["--stdio", "-g", "none", "-F", "period,dso"]
    done = subprocess.run(report, capture_output=True, text=True, check=True)
    rows = []
    for line in done.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            rows.append((int(parts[0]), parts[1]))
    total = sum(period for period, _ in rows)
    shown = ", ".join(
        f"{name} {period / 1e3 / requests:.1f}"
        for period, name in sorted(rows, reverse=True)
        if period / 1e3 / requests >= 0.5
    )
    print(f"  perf (cpu-clock, us per request): {total / 1e3 / requests:.0f} in all: {shown}")
    print(f"  recording: {recording} (perf report -i {recording} --no-children --sort dso,sym)")


if __name__ == "__main__":
    sys.exit(main())
