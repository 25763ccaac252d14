"""The server process the e2e tests start, restart and stop, and a polling helper."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.bridge.datadir import world_secret
from tests.e2e.support.paths import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """The real ``arbiter serve`` command in its own process, serving the bundled rulesets with
    their engines (scripted dice allowed, for exact cards); ``restart`` kills it and starts it
    on the same port with the same data (world secret, roll log).

    ``rules``: a house-rule folder laid over the bundled rules (``--rules``), watched every
    ``reload_interval`` seconds (0: hot rules off); ``extra``: more ``arbiter serve`` options.
    """

    data: Path
    rules: Path | None = None
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None
    reload_interval: float = 0
    extra: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def secret(self) -> str:
        return world_secret(self.data)

    @property
    def log_file(self) -> Path:
        return self.data / "arbiter.sqlite3"

    def player_token(self, name: str, participants: list[str]) -> str:
        """Issue player ``name`` his own token for ``participants`` with the real
        ``arbiter token --player`` (the server reads player records at each hello)."""
        command = [str(Path(sys.executable).parent / "arbiter"), "token", "--data", str(self.data)]
        command += ["--player", name, "--quiet"]
        for participant in participants:
            command += ["--participant", participant]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    def start(self) -> None:
        command = [str(Path(sys.executable).parent / "arbiter"), "serve", "--no-build"]
        command += ["--allow-scripted-dice", "--reload-interval", str(self.reload_interval)]
        if self.rules is not None:
            command += ["--rules", str(self.rules)]
        command += ["--port", str(self.port), "--data", str(self.data), *self.extra]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout is not None
        seen = []
        while not seen or "arbiter serve: ws://" not in seen[-1]:
            line = self.process.stdout.readline()
            if not line or len(seen) > 50:
                raise RuntimeError("server did not start:\n" + "".join(seen) + line)
            seen.append(line)
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.05):  # type: ignore[no-untyped-def]
    """``predicate()``'s first true value, polled every ``interval`` seconds; fails after
    ``timeout`` seconds. Generous: what it waits for may cross the hub, the server and another
    page, each slow on a loaded CI machine; a bound on a wait, never a measured time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")
