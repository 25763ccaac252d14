"""Where Arbiter's slowest 1% at one connection comes from: every request's round trip beside
the server's own WAL checkpoints, catch-ups and garbage collections, on one clock.

Run: ``.venv/bin/python benchmarks/bridge_tail.py [--root DIR] [--seconds S] [--perf]``
(``--root``: another checkout's server, run from that folder; ``--perf``: ``perf`` must be
installed). Other work on the machine sets much of a p99; as root, ``chrt -f 1`` before the
command keeps it off the measured processes (the server and the client inherit the policy).

The server is ``arbiter serve`` as ``benchmarks/bridge.py`` runs it (same arguments, the same
combat-styles exchange, a new id each), started through a wrapper that times, on
``CLOCK_MONOTONIC``, each checkpoint of its :class:`~arbiter.bridge.store.Checkpointer` thread
(and its thread CPU), each catch-up checkpoint of the writer, and each collection of the cyclic
GC. One connection sends request after request for ``S`` seconds; the client records each
round trip on the same clock, and the server's main-thread CPU over it (``/proc``
``schedstat``). Printed: p50/p99 of the round trips; each kind of event (how many, how long);
how many of the requests at or above p99 overlap each kind; the requests overlapping a
checkpoint of the thread against the rest (their share, p50, p99 and the server's CPU per
request); the slowest 1% by time since the thread's checkpoint began.

With ``--perf``: ``perf record -e cpu-clock`` on the server's main thread, its samples split by
the same windows; the share of them in the block layer's completion of written pages
(``ext4_finish_bio``, ``folio_end_writeback``, ``blk_mq_end_request``, ...) says how much of the
server's time in a window is the kernel finishing the checkpoint's writes on its CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SERVER = r"""
import gc, json, os, signal, sys, threading, time, runpy
from arbiter.bridge import store
from arbiter.bridge.stores import sqlite_checkpointer

EVENTS = []
now = time.monotonic_ns
started = {}

def collection(phase, info):
    if phase == "start":
        started["gc"] = now()
    elif "gc" in started:
        EVENTS.append(["gc%d" % info["generation"], started.pop("gc"), now()])

gc.callbacks.append(collection)
checkpoint = sqlite_checkpointer.Checkpointer.checkpoint

def timed_checkpoint(self, mode="PASSIVE"):
    begun, cpu = now(), time.thread_time_ns()
    done = checkpoint(self, mode)
    frames = done.frames if done is not None else 0
    EVENTS.append(["checkpoint", begun, now(), frames, time.thread_time_ns() - cpu])
    return done

sqlite_checkpointer.Checkpointer.checkpoint = timed_checkpoint
catch_up = store.Store._catch_up_now

def timed_catch_up(self):
    begun = now()
    catch_up(self)
    EVENTS.append(["catch-up", begun, now()])

store.Store._catch_up_now = timed_catch_up

def dump(*_):
    path = os.environ["ARBITER_TAIL_EVENTS"]
    with open(path + ".part", "w") as out:
        json.dump(EVENTS, out)
    os.replace(path + ".part", path)

signal.signal(signal.SIGUSR1, dump)
sys.argv = ["arbiter", *sys.argv[1:]]
runpy.run_module("arbiter.bridge.cli", run_name="__main__", alter_sys=True)
"""
"""The server's wrapper: the timing, then ``arbiter.bridge.cli`` as ``python -m`` runs it."""

COMPLETION = (
    "ext4_finish_bio",
    "ext4_end_bio",
    "folio_end_writeback",
    "__folio_end_writeback",
    "folio_wake_bit",
    "blk_mq_end_request",
    "blk_update_request",
    "lruvec_stat_mod_folio",
)
"""Kernel functions of the block layer finishing written pages (in a sample's first frames)."""

Trip = tuple[int, int, int]
"""A request: sent and answered (ns, CLOCK_MONOTONIC), the server's main-thread CPU (ns)."""
Event = list[Any]
"""[kind, begun ns, ended ns, ...] as the wrapper records it."""


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))] if ordered else 0.0


async def drive(url: str, secret: str, seconds: float, server_pid: int) -> list[Trip]:
    """One connection, request after request, for ``seconds``."""
    from benchmarks import bridge

    ws = await bridge._open(url, secret)
    stat = os.open(f"/proc/{server_pid}/task/{server_pid}/schedstat", os.O_RDONLY)
    trips: list[Trip] = []
    stop = time.monotonic() + seconds
    n = 0
    try:
        while time.monotonic() < stop:
            frame = json.dumps(
                {"v": 1, "type": "request", "request": bridge.combat_styles_exchange(n)}
            )
            n += 1
            cpu = int(os.pread(stat, 64, 0).split()[0])
            sent = time.monotonic_ns()
            await ws.send(frame)
            reply = await ws.recv()
            answered = time.monotonic_ns()
            trips.append((sent, answered, int(os.pread(stat, 64, 0).split()[0]) - cpu))
            if '"type":"outcome"' not in str(reply):
                raise RuntimeError(f"not an outcome: {str(reply)[:300]}")
    finally:
        os.close(stat)
        await ws.close()
    return trips


def overlapping(trip: Trip, events: list[Event], starts: list[int]) -> Event | None:
    """The event (sorted by start, ``starts`` their starts) running while ``trip`` was."""
    at = bisect.bisect_right(starts, trip[1]) - 1
    while at >= 0 and starts[at] >= trip[0] - 10**9:
        if events[at][2] > trip[0]:
            return events[at]
        at -= 1
    return None


def overlapped(trips: list[Trip], events: list[Event]) -> Counter[str]:
    """How many of ``trips`` ran while each kind of event (or several: "a + b") ran."""
    kinds: dict[str, list[Event]] = {}
    for event in sorted(events, key=lambda e: e[1]):
        kinds.setdefault(event[0], []).append(event)
    starts = {kind: [e[1] for e in found] for kind, found in kinds.items()}
    counts: Counter[str] = Counter()
    for trip in trips:
        hit = [k for k, found in kinds.items() if overlapping(trip, found, starts[k])]
        counts[" + ".join(sorted(hit)) or "none of these"] += 1
    return counts


def report(trips: list[Trip], events: list[Event]) -> None:
    trip_us = [(t[1] - t[0]) / 1e3 for t in trips]
    p50, p99 = quantile(trip_us, 50), quantile(trip_us, 99)
    print(f"{len(trips)} requests at 1 connection: p50 {p50:.0f} us, p99 {p99:.0f} us")
    kinds: dict[str, list[Event]] = {}
    for event in sorted(events, key=lambda e: e[1]):
        kinds.setdefault(event[0], []).append(event)
    first, last = trips[0][0], trips[-1][1]
    for kind in sorted({"checkpoint", "catch-up", "gc0", "gc1", "gc2"} | kinds.keys()):
        during = [e for e in kinds.get(kind, []) if first <= e[1] <= last]
        took = [(e[2] - e[1]) / 1e3 for e in during] or [0.0]
        print(
            f"  {kind:<10} {len(during):5} while measured: median {quantile(took, 50):8.0f} us,"
            f" longest {max(took):8.0f} us"
        )
    slow = [t for t, us in zip(trips, trip_us, strict=True) if us >= p99]
    print(f"the {len(slow)} requests at or above p99 overlapped:")
    for what, count in overlapped(slow, events).most_common():
        print(f"  {what:<30} {count:5} ({100 * count / len(slow):.0f}%)")
    # The thread's checkpoints that copied frames (not the ones that found the WAL empty).
    windows = [e for e in kinds.get("checkpoint", []) if e[3] > 0]
    starts = [e[1] for e in windows]
    inside = [overlapping(t, windows, starts) is not None for t in trips]
    for label, wanted in (("overlapping a checkpoint", True), ("the rest", False)):
        chosen = [i for i, hit in enumerate(inside) if hit == wanted]
        if not chosen:
            continue
        us = [trip_us[i] for i in chosen]
        cpu = [trips[i][2] / 1e3 for i in chosen]
        print(
            f"  {label:<25} {len(chosen):6} ({100 * len(chosen) / len(trips):4.1f}%): "
            f"p50 {quantile(us, 50):5.0f} p99 {quantile(us, 99):6.0f} us; server CPU per "
            f"request p50 {quantile(cpu, 50):4.0f} p90 {quantile(cpu, 90):4.0f} us"
        )
    if windows:
        frames = [e[3] for e in windows]
        took = [(e[2] - e[1]) / 1e6 for e in windows]
        cpu_ms = [e[4] / 1e6 for e in windows]
        print(
            f"  the thread's checkpoints: {len(windows)}; frames in the WAL median "
            f"{quantile(frames, 50):.0f}, most {max(frames)}; longest {max(took):.1f} ms, "
            f"{max(cpu_ms):.1f} ms of its CPU"
        )
    print("requests at or above p99 by time since the thread's checkpoint began:")
    spans: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for trip, us in zip(trips, trip_us, strict=True):
        at = bisect.bisect_right(starts, trip[0]) - 1
        since = (trip[0] - starts[at]) / 1e6 if at >= 0 else 1e9
        span = (
            f"{int(since // 20) * 20:3d}-{int(since // 20) * 20 + 20:3d} ms"
            if since < 120
            else "later"
        )
        totals[span] += 1
        spans[span] += us >= p99
    for span in sorted(totals):
        print(
            f"  {span:>10}: {totals[span]:6} requests, {100 * spans[span] / totals[span]:5.1f}% slow"
        )


def perf_report(path: Path, events: list[Event]) -> None:
    """Samples of the server's main thread in and out of the thread's checkpoints, and the
    share of each in the block layer's completion of written pages."""
    windows = [e for e in events if e[0] == "checkpoint" and e[3] > 0]
    windows.sort(key=lambda e: e[1])
    starts = [e[1] for e in windows]
    script = subprocess.run(
        ["perf", "script", "-i", str(path), "-F", "time,ip,sym"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts = {True: Counter[str](), False: Counter[str]()}
    for sample in script.split("\n\n"):
        lines = sample.strip().splitlines()
        if len(lines) < 2:
            continue
        at = int(float(lines[0].split(":")[0]) * 1e9)
        w = bisect.bisect_right(starts, at) - 1
        inside = w >= 0 and windows[w][2] >= at
        frames = [line.strip().split(" ", 1)[-1].split("+")[0] for line in lines[1:5]]
        counts[inside]["all"] += 1
        if any(f.startswith(COMPLETION) for f in frames):
            counts[inside]["completion"] += 1
    for inside, label in ((True, "in a checkpoint"), (False, "outside")):
        total = counts[inside]["all"]
        if total:
            share = 100 * counts[inside]["completion"] / total
            print(f"  perf: {label:<16} {total:7} samples, {share:4.1f}% finishing written pages")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--perf", action="store_true", help="perf record the server's thread")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from benchmarks import bridge

    bridge._load_exchange_body()
    root = args.root.resolve()
    data = Path(tempfile.mkdtemp(prefix="arbiter-tail-"))
    events_path = data.parent / f"{data.name}-events.json"
    os.environ["ARBITER_TAIL_EVENTS"] = str(events_path)
    server = bridge.Process(
        [sys.executable, "-c", SERVER, "serve", "--data", str(data), *bridge.SERVE_ARGS], root
    )
    perf_path = data.parent / f"{data.name}-perf.data"
    perf = None
    try:
        secret = (data / "world.secret").read_text().strip()
        if args.perf:
            pid = str(server.proc.pid)
            record = ["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-g"]
            clock = ["-k", "CLOCK_MONOTONIC", "-o", str(perf_path), "-t", pid]
            perf = subprocess.Popen([*record, *clock])
            time.sleep(1.0)
        trips = asyncio.run(drive(server.url, secret, args.seconds, server.proc.pid))
        os.kill(server.proc.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while not events_path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        events = json.loads(events_path.read_text())
    finally:
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            perf.wait(60)
        server.stop()
    print(f"server: {root}")
    report(trips, events)
    if perf is not None:
        perf_report(perf_path, events)
        print(f"  perf recording: {perf_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
