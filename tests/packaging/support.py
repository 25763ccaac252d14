"""Helpers for the packaging tests: a clean export of the checkout, an environment without the
checkout's settings or a C compiler, and ``arbiter serve`` run as a real command."""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def export_tree(target: Path) -> Path:
    """Copy the checkout's tracked and new (not ignored) files into ``target``: what a clone of
    this commit holds, without build folders, compiled modules or virtualenvs."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # arbiter/bridge, arbiter/compiler (node_modules is ignored)
            (target / name).symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target / name)
    return target


def outside_env(**extra: str) -> dict[str, str]:
    """This process's environment less what ties a command to the checkout or to a choice of
    engine (``ARBITER_ENGINE``, a virtualenv, ``PYTHONPATH``)."""
    dropped = (
        "ARBITER_ENGINE",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "PIP_REQUIRE_VIRTUALENV",
    )
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(extra)
    return env


def failing_compiler(folder: Path) -> dict[str, str]:
    """Environment entries that leave no working C compiler: ``CC`` and ``LDSHARED`` name a
    program that fails, and so do ``cc``, ``gcc`` and ``c99`` first on ``PATH``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("cc", "gcc", "c99", "x86_64-linux-gnu-gcc"):
        shim = folder / name
        shim.write_text('#!/bin/sh\necho "no C compiler here" >&2\nexit 1\n')
        shim.chmod(0o755)
    cc = str(folder / "cc")
    return {"CC": cc, "LDSHARED": f"{cc} -shared", "PATH": f"{folder}:{os.environ['PATH']}"}


def request(rid: str, skill: int = 50) -> dict[str, Any]:
    """A combat-styles d100 check, the simplest request a bundled ruleset decides."""
    body = {"id": rid, "ruleset": "combat-styles", "type": "check", "body": {"skill": skill}}
    return {"v": 1, "type": "request", "request": body}


BANNER = re.compile(r"arbiter serve: (wss?)://(\S+)")


class ServeProcess:
    """``arbiter serve`` as a child process: started on entry, its banner read up to the engine
    line (``url``: where it listens, from the banner), stopped with SIGTERM on exit."""

    def __init__(
        self,
        command: list[str],
        cwd: Path,
        env: dict[str, str] | None = None,
        timeout: float = 120,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.cwd = cwd
        self.env = env if env is not None else outside_env()
        self.banner = ""
        self.url = ""
        self.process: subprocess.Popen[str] | None = None

    def __enter__(self) -> ServeProcess:
        self.process = subprocess.Popen(
            self.command,
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        stdout = self.process.stdout
        assert stdout is not None
        threading.Thread(target=lambda: [lines.put(line) for line in stdout], daemon=True).start()
        seen: list[str] = []
        while not any(line.startswith("  engine:") for line in seen):
            try:
                seen.append(lines.get(timeout=self.timeout))
            except queue.Empty:
                self.__exit__(None, None, None)
                raise RuntimeError("arbiter serve did not start:\n" + "".join(seen)) from None
        self.banner = "".join(seen)
        found = BANNER.search(self.banner)
        assert found is not None, self.banner
        self.url = f"{found.group(1)}://{found.group(2)}"
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


DOCKERFILE = REPO / "Dockerfile"


def dockerfile_instructions(path: Path = DOCKERFILE) -> list[tuple[str, str]]:
    """The Dockerfile's instructions in order, as (INSTRUCTION, arguments), continuation lines
    joined and comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    return [(text.split(None, 1)[0].upper(), text.split(None, 1)[1]) for text in logical]


def run_steps(instructions: list[tuple[str, str]], word: str) -> list[list[str]]:
    """Every command of the RUN instructions (split at ``&&``) whose first word is ``word``."""
    found = []
    for kind, arguments in instructions:
        if kind != "RUN":
            continue
        for part in arguments.split("&&"):
            words = shlex.split(part)
            if words and words[0] == word:
                found.append(words)
    return found
