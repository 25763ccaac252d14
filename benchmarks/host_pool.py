"""Many worlds of one host flushing at once: a shared pool against a connection per world.

Run: ``.venv/bin/python benchmarks/host_pool.py [--worlds N] [--pool-size P ...] [--rounds R]
[--group G]``

On a scratch PostgreSQL (tests/support/postgres.py: loopback, fsync and synchronous_commit on,
``max_connections`` raised for the per-world case), N worlds' stores each stage G roll-sized
rows and await :meth:`flush`, R times, all N at once (one event loop: what a host does when N
worlds' group commits fall together). Each arrangement runs in the same cluster, one after the
other, on worlds of its own:

- ``own``: each store with a connection of its own (what a host did before the pool);
- ``pool P``: every store borrowing from one pool of at most P connections (``--pool-size``).

It prints the server connections the stores held at the end (``pg_stat_activity``, by
``application_name``), the rows committed per second, and the median and 99th percentile of
one flush (its wait for a pooled connection included). Compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from arbiter.bridge.stores.postgres import PostgresStore  # noqa: E402
from arbiter.bridge.stores.postgres_pool import open_pool  # noqa: E402
from benchmarks.world_store import roll  # noqa: E402
from tests.support.postgres import running_cluster  # noqa: E402


async def world(store: PostgresStore, rounds: int, group: int, flushes: list[float]) -> None:
    for r in range(rounds):
        for n in range(group):
            store.stage(roll(r * group + n))
        before = time.perf_counter()
        await store.flush()
        flushes.append(time.perf_counter() - before)


def held(dsn: str, name: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as db:
        row = db.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", (name,)
        ).fetchone()
    return int(row[0]) if row is not None else 0


async def arrangement(
    dsn: str, label: str, worlds: int, rounds: int, group: int, pool_size: int | None
) -> None:
    name = f"bench {label}"
    pool = None if pool_size is None else await open_pool(dsn, pool_size, name)
    own_dsn = f"{dsn} application_name='{name}'"
    stores: list[PostgresStore] = []
    for i in range(worlds):
        prefix = label.replace(" ", "-")
        if pool is None:
            stores.append(await PostgresStore.open(own_dsn, f"{prefix}-{i}"))
        else:
            stores.append(await PostgresStore.open(dsn, f"{prefix}-{i}", pool=pool))
    flushes: list[float] = []
    start = time.perf_counter()
    await asyncio.gather(*(world(s, rounds, group, flushes) for s in stores))
    wall = time.perf_counter() - start
    connections = held(dsn, name)
    for store in stores:
        await store.close()
    if pool is not None:
        await pool.close()
    ordered = sorted(flushes)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{label:<10} {worlds:>6} {connections:>11} {worlds * rounds * group / wall:>9.0f} "
        f"{statistics.median(ordered) * 1e3:>10.1f} {p99 * 1e3:>8.1f}",
        flush=True,
    )


async def run(worlds: int, pool_sizes: list[int], rounds: int, group: int) -> None:
    print(
        f"{'stores':<10} {'worlds':>6} {'connections':>11} {'rows/s':>9} {'median ms':>10} {'p99 ms':>8}"
    )
    with running_cluster() as cluster:
        cluster.stop()
        cluster.configure(max_connections=str(worlds + 40))
        cluster.start()
        dsn = cluster.dsn()
        arrangements: list[tuple[str, Any]] = [("own", None)]
        arrangements += [(f"pool {size}", size) for size in pool_sizes]
        for label, size in arrangements:
            await arrangement(dsn, label, worlds, rounds, group, size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--pool-size", type=int, nargs="+", default=[4, 10, 20])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--group", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.worlds, args.pool_size, args.rounds, args.group))


if __name__ == "__main__":
    main()
