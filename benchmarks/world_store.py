"""What a group commit costs through the store interface, on SQLite and on PostgreSQL.

Run: ``.venv/bin/python benchmarks/world_store.py [--rows N] [--group-size S ...]``

For each backend of :class:`arbiter.bridge.stores.WorldStore` (the SQLite store as the server
opens it, ``synchronous=NORMAL`` in a temporary folder; the PostgreSQL store on a scratch
cluster, tests/support/postgres.py: loopback, fsync and synchronous_commit on), it stages
roll-sized rows (the chain hash included) S at a time and awaits :meth:`flush` after each
group, and prints the median and 99th percentile time of a flush, the rows per second and the
CPU this process spent per flush (staging included: the client's side of a group commit, the
database's own work not counted).
One client, one world: the store's own cost, not the server's. Compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from arbiter.bridge.records import NewRoll  # noqa: E402
from arbiter.bridge.store import Store  # noqa: E402
from arbiter.bridge.stores import WorldStore  # noqa: E402
from arbiter.bridge.stores.postgres import PostgresStore  # noqa: E402
from tests.support.postgres import running_cluster  # noqa: E402


def roll(n: int) -> NewRoll:
    rid = f"req-{n:08d}"
    return NewRoll(
        rid, "session", "gm", "tiny", "check", None, "h" * 64, f'{{"id":"{rid}","skill":50}}',
        '[{"expr":"1d100","faces":100,"result":42}]',
        f'{{"id":"{rid}","result":{{"success":true,"margin":8}},"state":null}}',
        n, False, 1700000000.25,
    )  # fmt: skip


async def measure(store: WorldStore, rows: int, size: int) -> tuple[list[float], float, float]:
    """Each flush's seconds, the wall time of the whole run and this process's CPU seconds."""
    flushes: list[float] = []
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, rows, size):
        for n in range(first, min(first + size, rows)):
            store.stage(roll(n))
        before = time.perf_counter()
        await store.flush()
        flushes.append(time.perf_counter() - before)
    return flushes, time.perf_counter() - start, time.process_time() - cpu


def report(name: str, size: int, rows: int, flushes: list[float], wall: float, cpu: float) -> None:
    ordered = sorted(flushes)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{name:<11} {size:>5} {statistics.median(ordered) * 1e3:>10.3f} "
        f"{p99 * 1e3:>10.3f} {rows / wall:>10.0f} {cpu / len(flushes) * 1e3:>12.3f}"
    )


async def run(rows: int, sizes: list[int]) -> None:
    print(
        f"{'backend':<11} {'group':>5} {'median ms':>10} {'p99 ms':>10} {'rows/s':>10} "
        f"{'CPU ms/flush':>12}"
    )
    with tempfile.TemporaryDirectory() as folder, running_cluster() as cluster:
        openers: list[tuple[str, Callable[[str], Awaitable[WorldStore]]]] = [
            ("sqlite", lambda world: _sqlite(Path(folder) / f"{world}.sqlite3")),
            ("postgresql", lambda world: PostgresStore.open(cluster.dsn(), world)),
        ]
        for name, opener in openers:
            for size in sizes:
                store = await opener(f"w{size}")
                flushes, wall, cpu = await measure(store, rows, size)
                report(name, size, rows, flushes, wall, cpu)
                if isinstance(store, PostgresStore):
                    await store.close()
                elif isinstance(store, Store):
                    store.close()


async def _sqlite(path: Path) -> WorldStore:
    return Store(path, autocheckpoint=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--group-size", type=int, nargs="+", default=[1, 20])
    args = parser.parse_args()
    asyncio.run(run(args.rows, args.group_size))


if __name__ == "__main__":
    main()
