"""The PostgreSQL commit benchmark commits every row it times, in the transactions it names (no
timing is asserted: speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

import psycopg

from benchmarks.postgres_commit import Workloads, disk_flush, group_commits
from tests.support.apart import run_apart


def test_each_workload_commits_every_row_and_times_every_commit(postgres_database: str) -> None:
    work = Workloads(commits=12, clients=3, groups=4, group_size=5)
    single, concurrent, grouped = run_apart(work.measure(postgres_database))
    assert (single.rows, len(single.commits)) == (12, 12)
    assert (concurrent.rows, len(concurrent.commits)) == (12, 12)
    assert (grouped.rows, len(grouped.commits)) == (20, 4)


def test_a_group_commit_writes_its_rows_in_one_transaction(postgres_database: str) -> None:
    run_apart(group_commits(postgres_database, groups=3, size=4))
    with psycopg.connect(postgres_database) as conn:
        rows = conn.execute("SELECT count(*), count(DISTINCT xmin::text) FROM rolls").fetchone()
    assert rows == (12, 3)


def test_the_disk_floor_times_every_flush() -> None:
    floor = disk_flush(5)
    assert (floor.rows, len(floor.commits), floor.unit) == (5, 5, "flushes")
