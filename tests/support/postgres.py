"""A real PostgreSQL for the tests and benchmarks, made in a temporary folder and removed after.

Debian's ``postgresql`` package (installed by ``scripts/setup --test``) provides the server
programs under ``/usr/lib/postgresql/<version>/bin``; elsewhere they are found on ``PATH``.
Nothing is shared with a system cluster: each :class:`Cluster` has its own data folder, its own
unix socket folder and a free port on loopback, and is stopped and deleted when its ``with``
block ends, whatever happened inside it.

PostgreSQL refuses to run as root: run as root (CI), the server programs run as the ``postgres``
system user Debian's package creates (else ``nobody``), with the folder given to that user;
run as anyone else, they run as that user. Clients connect over TCP on 127.0.0.1 as the
superuser ``arbiter`` (trust authentication: the cluster listens on loopback only and lives as
long as a test).

The server is durable as in production (``fsync``, ``synchronous_commit`` and
``full_page_writes`` on): the commit costs measured on it are the real ones. Only the copies
made when a cluster is created (``initdb``, ``pg_basebackup``) skip their final sync, as nothing
survives a test anyway.

For the failover tests, :func:`replicated` makes a primary with a synchronous standby: the
primary acknowledges a commit only once the standby has flushed it, so after
:meth:`Cluster.stop` ``"immediate"`` of the primary and :meth:`Cluster.promote` of the standby
every acknowledged row is there. :meth:`Cluster.terminate` ends a client's backend as an
administrator would.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import psycopg

PROGRAMS = ("initdb", "pg_ctl", "postgres", "pg_basebackup")
SUPERUSER = "arbiter"
STANDBY_NAME = "standby"
MISSING = (
    "PostgreSQL's server programs ({missing}) are needed: run scripts/setup --test, which "
    "installs Debian's `postgresql` package (apt-get install postgresql), or put the programs "
    "of PostgreSQL 14 or newer on PATH"
)


class PostgresMissing(RuntimeError):
    """The server programs are not installed; the message says what to install."""


def server_programs(debian: Path = Path("/usr/lib/postgresql")) -> Path:
    """The folder holding PostgreSQL's server programs: the newest Debian version under
    ``/usr/lib/postgresql``, else the folder of ``initdb`` on ``PATH``. Raises
    :class:`PostgresMissing` naming what to install when one of :data:`PROGRAMS` is absent."""
    candidates = sorted(
        debian.glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    for folder in candidates:
        if all(os.access(folder / name, os.X_OK) for name in PROGRAMS):
            return folder
    raise PostgresMissing(MISSING.format(missing=", ".join(PROGRAMS)))


@dataclass(frozen=True)
class Runner:
    """Runs the server programs as a user PostgreSQL accepts: as root, the ``postgres`` system
    user (else ``nobody``); otherwise the current user, unchanged."""

    uid: int | None = None
    gid: int | None = None

    @classmethod
    def for_this_process(cls) -> Runner:
        if os.geteuid() != 0:
            return cls()
        for name in ("postgres", "nobody"):
            with contextlib.suppress(KeyError):
                entry = pwd.getpwnam(name)
                return cls(entry.pw_uid, entry.pw_gid)
        raise PostgresMissing("running as root, and neither a `postgres` nor a `nobody` user")

    def give(self, path: Path) -> None:
        """Hand a folder made by this process to the server's user."""
        if self.uid is not None and self.gid is not None:
            os.chown(path, self.uid, self.gid)

    def run(self, *command: str | Path, timeout: float = 120) -> str:
        """Run one program as the server's user; its output, or an error that shows it."""
        done = subprocess.run(
            [str(c) for c in command],
            user=self.uid,
            group=self.gid,
            extra_groups=[] if self.uid is not None else None,
            cwd="/",
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "TZ": "UTC"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{' '.join(str(c) for c in command)} failed ({done.returncode}):\n"
                f"{done.stdout}{done.stderr}"
            )
        return done.stdout


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now (the server retries if it is taken)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Cluster:
    """One PostgreSQL server: its data folder, port and log, and the commands tests need."""

    bin: Path
    runner: Runner
    data: Path
    port: int = 0
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def log(self) -> Path:
        return self.data.parent / f"{self.data.name}.log"

    def dsn(self, dbname: str = "postgres", **extra: str) -> str:
        """A libpq connection string for this server (``extra``: more keywords)."""
        words = {
            "host": "127.0.0.1",
            "port": str(self.port),
            "user": SUPERUSER,
            "dbname": dbname,
            **extra,
        }
        return " ".join(f"{k}={v}" for k, v in words.items())

    def connect(self, dbname: str = "postgres") -> psycopg.Connection[tuple[object, ...]]:
        """A synchronous autocommit connection, for the tests' own setup and checks."""
        return psycopg.connect(self.dsn(dbname), autocommit=True)

    def configure(self, **settings: str) -> None:
        """Append settings to ``postgresql.conf`` (the last one of a name wins); they apply at
        the next start. Values are written as given: quote strings (``"'x'"``)."""
        self.settings.update(settings)
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write("\n# tests/support/postgres.py\n")
            conf.writelines(f"{name} = {value}\n" for name, value in settings.items())

    def start(self) -> None:
        """Start the server and wait until it accepts connections. If its port was taken in
        the meantime, pick another one (three tries)."""
        for attempt in range(3):
            if attempt or not self.port:
                self.port = free_port()
            try:
                self.runner.run(
                    self.bin / "pg_ctl", "start", "-w", "-t", "60", "-D", self.data,
                    "-l", self.log, "-o", f"-p {self.port}",
                )  # fmt: skip
                return
            except RuntimeError:
                if attempt == 2 or "could not bind" not in self.read_log():
                    raise RuntimeError(f"PostgreSQL did not start:\n{self.read_log()}") from None

    def stop(self, mode: Literal["fast", "immediate"] = "fast") -> None:
        """Stop the server. ``"fast"`` ends sessions and checkpoints; ``"immediate"`` kills it
        as a crash would (no checkpoint: the next start recovers from the WAL)."""
        self.runner.run(self.bin / "pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", self.data)

    def running(self) -> bool:
        """Whether a server runs on this data folder."""
        try:
            self.runner.run(self.bin / "pg_ctl", "status", "-D", self.data)
        except RuntimeError:
            return False
        return True

    def promote(self) -> None:
        """Make this standby a primary and wait until it accepts writes."""
        self.runner.run(self.bin / "pg_ctl", "promote", "-w", "-t", "60", "-D", self.data)

    def terminate(self, pid: int) -> None:
        """End the backend serving process ``pid`` (``pg_terminate_backend``, as an administrator
        would), and wait until it is gone. An idle client gets ``psycopg.errors.AdminShutdown``
        on its next statement; a client whose commit waited for a synchronous standby gets an
        ``OperationalError`` (the connection closed) although its transaction committed."""
        with self.connect() as admin:
            row = admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,)).fetchone()
            if row is None or row[0] is not True:
                raise RuntimeError(f"no backend {pid} to terminate on port {self.port}")

    def wait_event(self, pid: int, event: str, timeout: float = 60) -> None:
        """Wait until backend ``pid`` waits on ``event`` (``pg_stat_activity.wait_event``, e.g.
        ``"SyncRep"``: a commit waiting for the synchronous standby); an error after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self.connect() as watcher:
            while True:
                row = watcher.execute(
                    "SELECT wait_event FROM pg_stat_activity WHERE pid = %s", (pid,)
                ).fetchone()
                if row == (event,):
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"backend {pid} waits on {row}, not {event!r}")
                time.sleep(0.05)

    def wait_unused(self, dsn: str, application: str | None = None, timeout: float = 60) -> None:
        """Wait until no backend serves the database of ``dsn`` (a keyword string) — or, given
        ``application``, none of that ``application_name`` (one host's) —: a killed client's
        backends are gone, and whatever they had received — a whole pipelined transaction up
        to its Sync — has committed or rolled back. Until then a transaction a dead server
        sent may still land."""
        name = dict(word.split("=", 1) for word in dsn.split())["dbname"]
        deadline = time.monotonic() + timeout
        with self.connect() as watcher:
            while True:
                row = watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()"
                    " AND (%s::text IS NULL OR application_name = %s)",
                    (name, application, application),
                ).fetchone()
                if row == (0,):
                    return
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{row} backend(s) still serve database {name!r}")
                time.sleep(0.05)

    def create_database(self, name: str) -> str:
        """A new empty database; its connection string."""
        with self.connect() as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, ending the sessions still connected to it."""
        with self.connect() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def read_log(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return "(no server log)"


@contextlib.contextmanager
def scratch_folder(runner: Runner) -> Iterator[Path]:
    """A new private folder under the system's temporary folder, owned by the server's user
    (pytest's own folders are private to the test's user, and root may enter any folder),
    removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="arbiter-pg-"))
    try:
        runner.give(root)  # the server writes its sockets and logs here
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _new_cluster(root: Path, name: str, bin: Path, runner: Runner) -> Cluster:
    folder = root / name
    folder.mkdir(mode=0o700)
    runner.give(folder)
    return Cluster(bin=bin, runner=runner, data=folder)


DURABLE = {
    # What the measurements rely on, written out rather than trusted to defaults.
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "wal_level": "replica",
    "max_wal_senders": "4",
    "listen_addresses": "'127.0.0.1'",
    # Small and quiet: several clusters may run at once on a shared machine.
    "shared_buffers": "32MB",
    "max_connections": "60",
    "log_min_messages": "warning",
}


@contextlib.contextmanager
def _stopped_at_exit(clusters: list[Cluster]) -> Iterator[None]:
    try:
        yield
    finally:
        for cluster in clusters:
            if cluster.running():
                with contextlib.suppress(RuntimeError):
                    cluster.stop("immediate")


def _initdb(cluster: Cluster) -> None:
    cluster.runner.run(
        cluster.bin / "initdb", "-D", cluster.data, "-U", SUPERUSER, "--auth=trust",
        "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
    )  # fmt: skip
    cluster.configure(unix_socket_directories=f"'{cluster.data.parent}'", **DURABLE)


@contextlib.contextmanager
def running_cluster() -> Iterator[Cluster]:
    """A started PostgreSQL in a temporary folder, stopped and deleted when the block ends."""
    bin, runner = server_programs(), Runner.for_this_process()
    with scratch_folder(runner) as root:
        cluster = _new_cluster(root, "primary", bin, runner)
        with _stopped_at_exit([cluster]):
            _initdb(cluster)
            cluster.start()
            yield cluster


@dataclass
class Replicated:
    """A primary and its synchronous standby (made by ``pg_basebackup``)."""

    primary: Cluster
    standby: Cluster

    def wait_synchronous(self, timeout: float = 30) -> None:
        """Wait until the primary reports the standby streaming as its synchronous standby."""
        deadline = time.monotonic() + timeout
        with self.primary.connect() as conn:
            while True:
                row = conn.execute(
                    "SELECT sync_state FROM pg_stat_replication WHERE application_name = %s",
                    (STANDBY_NAME,),
                ).fetchone()
                if row is not None and row[0] == "sync":
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the standby is not synchronous:\n{self.standby.read_log()}"
                    )
                time.sleep(0.05)

    @contextlib.contextmanager
    def standby_away(self) -> Iterator[None]:
        """Stop the standby for the block: every commit on the primary waits (``SyncRep``)
        until the block ends and the standby is back and synchronous again."""
        self.standby.stop("fast")
        try:
            yield
        finally:
            self.standby.start()
            self.wait_synchronous()

    def fail_over(self) -> Cluster:
        """Kill the primary (``stop immediate``) and promote the standby; the new primary."""
        self.primary.stop("immediate")
        self.standby.promote()
        return self.standby


@contextlib.contextmanager
def replicated() -> Iterator[Replicated]:
    """A started primary whose every commit waits for a synchronous standby
    (``synchronous_standby_names``, ``synchronous_commit = on``) to flush it; both stopped and
    deleted when the block ends. The standby does not name a standby of its own, so once
    promoted it commits alone."""
    bin, runner = server_programs(), Runner.for_this_process()
    with scratch_folder(runner) as root:
        primary = _new_cluster(root, "primary", bin, runner)
        standby = _new_cluster(root, "standby", bin, runner)
        with _stopped_at_exit([standby, primary]):
            _initdb(primary)
            primary.configure(synchronous_standby_names=f"'{STANDBY_NAME}'")
            primary.start()
            runner.run(
                bin / "pg_basebackup", "-D", standby.data, "-d", primary.dsn(),
                "-X", "stream", "-c", "fast", "--no-sync",
            )  # fmt: skip
            primary_conninfo = primary.dsn(application_name=STANDBY_NAME)
            standby.configure(
                synchronous_standby_names="''",
                primary_conninfo=f"'{primary_conninfo}'",
            )
            (standby.data / "standby.signal").touch()
            runner.give(standby.data / "standby.signal")
            standby.start()
            pair = Replicated(primary, standby)
            pair.wait_synchronous()
            yield pair
