"""What a durable commit costs on PostgreSQL, alone and with a synchronous standby.

Run: ``.venv/bin/python benchmarks/postgres_commit.py [--commits N] [--clients C] [--groups G]
[--group-size S]``

It starts two scratch clusters in temporary folders (tests/support/postgres.py: loopback, fsync
and synchronous_commit on): one alone, and a primary whose every commit waits for a synchronous
standby (made by pg_basebackup) to flush it. On each, with psycopg 3's async connections as the
PostgreSQL store will use them, it inserts roll-sized rows (about 300 bytes):

* one row per commit from one client (the latency of one acknowledged roll);
* one row per commit from C clients at once (PostgreSQL's own group commit across sessions);
* S rows per commit from one client, sent in pipeline mode (the store's group commit).

and prints, side by side, the median and 99th percentile time of a commit and the rows per
second. A commit costs at least one flush of the WAL, so the run first measures the floor: an
8 kB write and ``fdatasync`` in the same temporary folder, as PostgreSQL's WAL flush does on
Linux. Figures from different machines or moments differ with the disk: compare within one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, this folder is first on the path

from tests.support.postgres import replicated, running_cluster  # noqa: E402

TABLE = """
CREATE TABLE rolls (
  world text NOT NULL,
  seq bigint NOT NULL,
  request_id text NOT NULL,
  reply text NOT NULL,
  PRIMARY KEY (world, seq),
  UNIQUE (world, request_id)
)
"""
INSERT = "INSERT INTO rolls (world, seq, request_id, reply) VALUES (%s, %s, %s, %s)"
REPLY = "x" * 300


@dataclass
class Figures:
    """One workload's result: each commit's duration in seconds, the rows, the wall time."""

    commits: list[float]
    rows: int
    seconds: float
    unit: str = "rows"

    def describe(self) -> str:
        ordered = sorted(self.commits)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        median = statistics.median(ordered)
        rate = self.rows / self.seconds
        return (
            f"{median * 1000:6.2f} ms  p99 {p99 * 1000:6.2f} ms  {rate / 1000:5.1f}k {self.unit}/s"
        )


async def fresh_table(dsn: str) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute("DROP TABLE IF EXISTS rolls")
        await conn.execute(TABLE)


async def one_row_per_commit(dsn: str, commits: int, clients: int) -> Figures:
    """``commits`` rows in all, each its own transaction, from ``clients`` connections."""
    await fresh_table(dsn)
    connections = [await psycopg.AsyncConnection.connect(dsn) for _ in range(clients)]
    durations: list[float] = []

    async def client(index: int, conn: psycopg.AsyncConnection[tuple[object, ...]]) -> None:
        for seq in range(index, commits, clients):
            began = time.perf_counter()
            await conn.execute(INSERT, ("w", seq, f"r{seq}", REPLY))
            await conn.commit()
            durations.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(client(i, c) for i, c in enumerate(connections)))
    seconds = time.perf_counter() - began
    for conn in connections:
        await conn.close()
    return Figures(durations, commits, seconds)


async def group_commits(dsn: str, groups: int, size: int) -> Figures:
    """``groups`` transactions of ``size`` rows each, every group pipelined in one round trip."""
    await fresh_table(dsn)
    durations: list[float] = []
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        began = time.perf_counter()
        for group in range(groups):
            started = time.perf_counter()
            async with conn.pipeline():
                for seq in range(group * size, (group + 1) * size):
                    await conn.execute(INSERT, ("w", seq, f"r{seq}", REPLY))
                await conn.commit()
            durations.append(time.perf_counter() - started)
        seconds = time.perf_counter() - began
    return Figures(durations, groups * size, seconds)


def disk_flush(count: int) -> Figures:
    """``count`` 8 kB writes, each followed by ``fdatasync``, in a temporary file."""
    durations: list[float] = []
    block = b"\0" * 8192
    with tempfile.TemporaryDirectory(prefix="arbiter-flush-") as folder:
        fd = os.open(Path(folder) / "wal", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            began = time.perf_counter()
            for _ in range(count):
                started = time.perf_counter()
                os.write(fd, block)
                os.fdatasync(fd)
                durations.append(time.perf_counter() - started)
            seconds = time.perf_counter() - began
        finally:
            os.close(fd)
    return Figures(durations, count, seconds, unit="flushes")


@dataclass(frozen=True)
class Workloads:
    commits: int
    clients: int
    groups: int
    group_size: int

    def labels(self) -> list[str]:
        return [
            "1 row per commit, 1 client",
            f"1 row per commit, {self.clients} clients",
            f"{self.group_size} rows per commit (pipeline), 1 client",
        ]

    async def measure(self, dsn: str) -> list[Figures]:
        return [
            await one_row_per_commit(dsn, self.commits, 1),
            await one_row_per_commit(dsn, self.commits, self.clients),
            await group_commits(dsn, self.groups, self.group_size),
        ]


@contextlib.contextmanager
def clusters() -> Iterator[tuple[str, str]]:
    """The connection strings of a lone cluster and of a primary with a synchronous standby."""
    with running_cluster() as alone, replicated() as pair:
        yield alone.dsn(), pair.primary.dsn()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--group-size", type=int, default=20)
    args = parser.parse_args()
    work = Workloads(args.commits, args.clients, args.groups, args.group_size)
    with clusters() as (alone, synchronous):
        results = [asyncio.run(work.measure(dsn)) for dsn in (alone, synchronous)]
    width = max(len(label) for label in work.labels())
    floor = disk_flush(min(args.commits, 500))
    print(f"{'disk: 8 kB write + fdatasync':{width}}  {floor.describe()}")
    print(f"{'per commit (median, p99) and rows/s':{width}}  {'alone':41}  synchronous standby")
    for label, solo, paired in zip(work.labels(), *results, strict=True):
        print(f"{label:{width}}  {solo.describe():41}  {paired.describe()}")


if __name__ == "__main__":
    main()
