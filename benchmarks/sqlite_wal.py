"""The SQLite store's WAL under load that never pauses: its size, and the writer's longest stall.

Run: ``.venv/bin/python benchmarks/sqlite_wal.py [--groups N] [--group-size S] [--work US]
[--no-catch-up]``

Opens a data directory as ``arbiter serve`` does (the store, and its
:class:`~arbiter.bridge.stores.sqlite_checkpointer.Checkpointer` stepping in a thread, each step
after the delay the last returned), then stages combat-sized rows (about 2.2 KB each, the chain
hash included) ``S`` at a time and commits each group, ``N`` groups without a pause but ``US``
microseconds of busy CPU per group (the rest of a server's work). Prints the rows per second,
the largest size of the WAL file, how often SQLite started the WAL over (the checkpoint
sequence in its header), and the writer's group times (stage and commit; the catch-up the
checkpointer asks for runs at a group's second stage, or at the commit of a row staged alone):
median, 99th percentile and longest.
``--no-catch-up``: the thread's checkpoints alone, as before the catch-up. Wall-clock figures:
compare within one run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from arbiter.bridge.records import NewRoll  # noqa: E402
from arbiter.bridge.store import Store  # noqa: E402
from arbiter.bridge.world import open_data_dir  # noqa: E402

PADDING = "x" * 2000


def roll(n: int) -> NewRoll:
    rid = f"req-{n:08d}"
    return NewRoll(
        rid, "session", "gm", "tiny", "check", None, "h" * 64,
        f'{{"id":"{rid}","pad":"{PADDING}"}}', '[{"expr":"1d100","faces":100,"result":42}]',
        f'{{"id":"{rid}","result":{{"success":true,"margin":8}},"state":null}}',
        n, False, 1700000000.25,
    )  # fmt: skip


def spin(seconds: float) -> int:
    """Keep the CPU busy for ``seconds`` (the work the event loop does between two group
    commits, which this benchmark has none of); returns how many times it looked at the clock."""
    until = time.perf_counter() + seconds
    looks = 1
    while time.perf_counter() < until:
        looks += 1
    return looks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=6000)
    parser.add_argument("--group-size", type=int, default=10)
    parser.add_argument("--work", type=float, default=2000.0, help="busy µs per group")
    parser.add_argument("--no-catch-up", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arbiter-wal-"))
    world = open_data_dir(folder / "w", "NORMAL")
    store, checkpointer = world.store, world.checkpointer
    assert isinstance(store, Store) and checkpointer is not None
    if args.no_catch_up:
        checkpointer._catch_up = None  # the thread's checkpoints alone
    wal = Path(f"{store.path}-wal")
    stop = threading.Event()

    def checkpoints() -> None:
        while not stop.wait(delay[0]):
            delay[0] = checkpointer.step()

    delay = [1.0]
    thread = threading.Thread(target=checkpoints)
    thread.start()
    groups: list[float] = []
    largest = 0
    with wal.open("rb") as header:
        first = int.from_bytes(header.read(16)[12:16], "big")
    start = time.perf_counter()
    try:
        for group in range(args.groups):
            spin(args.work / 1e6)
            began = time.perf_counter()
            for n in range(group * args.group_size, (group + 1) * args.group_size):
                store.stage(roll(n))
            store.commit()
            groups.append(time.perf_counter() - began)
            if group % 50 == 0:
                largest = max(largest, wal.stat().st_size)
    finally:
        stop.set()
        thread.join()
    wall = time.perf_counter() - start
    with wal.open("rb") as header:
        restarts = int.from_bytes(header.read(16)[12:16], "big") - first
    ordered = sorted(groups)
    rows = args.groups * args.group_size
    print(
        f"{'thread alone' if args.no_catch_up else 'with catch-up'}: {rows} rows in groups of "
        f"{args.group_size}, {args.work:.0f} us of work each: {rows / wall:.0f} rows/s; "
        f"WAL file at most {largest / 1e6:.1f} MB, started over {restarts} times; group "
        f"median {ordered[len(ordered) // 2] * 1e3:.2f} ms, p99 "
        f"{ordered[int(len(ordered) * 0.99)] * 1e3:.2f} ms, longest {ordered[-1] * 1e3:.1f} ms"
    )
    checkpointer.close()
    store.close()
    shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
