"""A scratch PostgreSQL for the benchmarks: the cluster the tests start
(tests/support/postgres.py: a temporary folder, loopback, ``fsync``, ``synchronous_commit`` and
``full_page_writes`` on), with one database for the benchmark's worlds and the CPU its processes
use, so a benchmark can count the database's work beside its server's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.postgres import Cluster, running_cluster

DATABASE = "bench"


@dataclass(frozen=True)
class PostgresServer:
    """A running cluster holding the database :data:`DATABASE`."""

    cluster: Cluster

    def url(self) -> str:
        """The ``postgresql://`` URL ``arbiter serve --store`` takes for the database."""
        dsn = dict(word.split("=", 1) for word in self.cluster.dsn(DATABASE).split())
        return f"postgresql://{dsn['user']}@{dsn['host']}:{dsn['port']}/{dsn['dbname']}"

    def store_options(self, world: str) -> list[str]:
        """``--store URL --world WORLD``: the options naming one world in the database."""
        return ["--store", self.url(), "--world", world]

    def cpu_seconds(self) -> float:
        """User + system CPU used so far by the cluster: the postmaster, every process it runs
        now (backends, WAL writer, checkpointer, …) and every child it has reaped (backends of
        closed connections count through the postmaster's ``cutime``/``cstime``)."""
        postmaster = int((self.cluster.data / "postmaster.pid").read_text().split()[0])
        ticks = _ticks(postmaster, children_too=True)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != postmaster:
                with contextlib.suppress(OSError, ValueError, IndexError):
                    if _parent(int(entry.name)) == postmaster:
                        ticks += _ticks(int(entry.name), children_too=False)
        return ticks / os.sysconf("SC_CLK_TCK")


def _fields(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name (field 3 onwards)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _parent(pid: int) -> int:
    return int(_fields(pid)[1])


def _ticks(pid: int, *, children_too: bool) -> int:
    fields = _fields(pid)
    used = int(fields[11]) + int(fields[12])
    return used + (int(fields[13]) + int(fields[14]) if children_too else 0)


@contextlib.contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A started cluster with an empty :data:`DATABASE`, stopped and deleted when the block
    ends."""
    with running_cluster() as cluster:
        cluster.create_database(DATABASE)
        yield PostgresServer(cluster)
