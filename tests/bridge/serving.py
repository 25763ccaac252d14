"""A serve command running in a process of its own, for tests that kill or measure it.

:class:`ServeProcess` starts a command that takes ``arbiter serve``'s options, on a free port,
without a module build, with limits no test client reaches, and waits for the line
``arbiter serve: ws://127.0.0.1:PORT`` it prints once it listens.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

QUIET_SERVE = (
    "--port", "0", "--rate", "1000000", "--burst", "1000000",
    "--reload-interval", "0", "--no-build", "--quiet",
)  # fmt: skip
"""The options every measured or killed server takes: any port, no rate limit, no rule
watching, no module build, nothing printed but the line saying where it listens."""


class ServeProcess:
    """``command --data DATA`` (none when ``data`` is None: ``options`` name the store) plus
    :data:`QUIET_SERVE` and ``options``; ``url`` is where it listens."""

    def __init__(self, command: list[str], data: Path | None, *options: str) -> None:
        where = ["--data", str(data)] if data is not None else []
        self.proc = subprocess.Popen(
            [*command, *where, *QUIET_SERVE, *options],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.startswith("arbiter serve: ws://"), line
        self.url = line.split()[2]

    def rss(self) -> int:
        """The server process's resident memory in bytes (``VmRSS`` in ``/proc/PID/status``)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="ascii")
        [line] = [row for row in status.splitlines() if row.startswith("VmRSS:")]
        return int(line.split()[1]) * 1024

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)
        assert self.proc.stdout is not None
        self.proc.stdout.close()
