"""What a PostgreSQL world's bounded cache saves: open time and memory, whole against bounded.

Run: ``.venv/bin/python benchmarks/world_cache.py [--rows 100000] [--cache-rows 1000] [--rounds 3]``

On a scratch cluster (tests/support/postgres.py: loopback, fsync on) it writes one world of
``--rows`` roll-sized rows through the store (groups of 2,000), then opens it in turns
``--rounds`` times each way: **whole** (every row held, as every open did before the cache was
bounded) and **bounded** (``--cache-rows`` rows whole and every request id, as ``arbiter serve``
opens it). For each it prints the open's wall time and the Python memory the open store keeps
(tracemalloc: allocated after the open, minus before) and its peak during the open. Then, on the
bounded store, what the server pays for a row not held: one resend's read back (``recall``) and
a 500-row gap replay's read (``read_rolls``). Compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from arbiter.bridge.stores.postgres import PostgresStore  # noqa: E402
from benchmarks.world_store import roll  # noqa: E402
from tests.support.postgres import running_cluster  # noqa: E402


async def fill(dsn: str, rows: int) -> None:
    store = await PostgresStore.open(dsn, "w", cache_rows=0)
    for first in range(0, rows, 2000):
        for n in range(first, min(first + 2000, rows)):
            store.stage(roll(n))
        await store.flush()
    await store.close()


async def opened(dsn: str, cache_rows: int) -> tuple[float, int, int]:
    """Seconds to open, bytes the open store keeps, peak bytes while opening."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    store = await PostgresStore.open(dsn, "w", cache_rows=cache_rows)
    wall = time.perf_counter() - start
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    await store.close()
    return wall, kept - before, peak - before


async def reads(dsn: str, cache_rows: int, rows: int) -> tuple[float, float]:
    """Median seconds of one resend's read back and of a 500-row gap replay's read."""
    store = await PostgresStore.open(dsn, "w", cache_rows=cache_rows)
    recalls, gaps = [], []
    for n in range(0, 50):
        start = time.perf_counter()
        await store.recall(f"req-{n * 997 % (rows - cache_rows):08d}")
        recalls.append(time.perf_counter() - start)
    for n in range(10):
        after = n * 1000
        start = time.perf_counter()
        await store.read_rolls(after, after + 500)
        gaps.append(time.perf_counter() - start)
    await store.close()
    return statistics.median(recalls), statistics.median(gaps)


async def run(rows: int, cache_rows: int, rounds: int) -> None:
    with running_cluster() as cluster:
        dsn = cluster.dsn()
        start = time.perf_counter()
        await fill(dsn, rows)
        print(f"{rows} rows written in {time.perf_counter() - start:.1f} s")
        results: dict[str, list[tuple[float, int, int]]] = {"whole": [], "bounded": []}
        for _ in range(rounds):
            results["whole"].append(await opened(dsn, rows + 1))
            results["bounded"].append(await opened(dsn, cache_rows))
        print(f"{'open':<22} {'median s':>9} {'kept MB':>9} {'peak MB':>9}")
        for name, found in results.items():
            label = name if name == "whole" else f"bounded ({cache_rows} rows)"
            print(
                f"{label:<22} {statistics.median(r[0] for r in found):>9.3f} "
                f"{statistics.median(r[1] for r in found) / 1e6:>9.1f} "
                f"{statistics.median(r[2] for r in found) / 1e6:>9.1f}"
            )
        recall, gap = await reads(dsn, cache_rows, rows)
        print(
            f"a resend's row read back: {recall * 1e3:.2f} ms; 500 rows of a gap: {gap * 1e3:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cache-rows", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(run(args.rows, args.cache_rows, args.rounds))


if __name__ == "__main__":
    main()
