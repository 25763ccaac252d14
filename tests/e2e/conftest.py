"""Fixtures for the client e2e tests: the built module, a real server process, the harness site
and Debian's chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

import contextlib
import functools
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bridge.datadir import world_secret
from tests.e2e.support.duel import META, TABLES, DuelRules

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).parent / "harness"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def rules_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rules")
    (root / "duel").mkdir()
    (root / "duel" / "ruleset.toml").write_text(META)
    (root / "duel" / "tables.toml").write_text(TABLES)
    return root


@pytest.fixture(scope="session")
def module_dir(rules_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module built by the real ``build_module`` from the duel rules and our templates."""
    from compiler.foundry.build import build_module
    from compiler.model import loader

    original = loader.model_class
    loader.model_class = lambda rid: DuelRules if rid == "duel" else original(rid)
    try:
        report = build_module(tmp_path_factory.mktemp("out"), rules_root)
    finally:
        loader.model_class = original
    return report.module_dir


@dataclass
class Server:
    """``arbiter serve`` in its own process; ``restart`` kills it and starts it on the same port."""

    rules: Path
    data: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def secret(self) -> str:
        return world_secret(self.data)

    @property
    def log_file(self) -> Path:
        return self.data / "arbiter.sqlite3"

    def start(self) -> None:
        command = [sys.executable, "-m", "tests.e2e.support.serve", "--port", str(self.port)]
        command += ["--data", str(self.data), "--rules", str(self.rules)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "arbiter serve: ws://" not in line:
            raise RuntimeError(f"server did not start: {line}{self.process.stdout.read()}")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def server(rules_root: Path, tmp_path: Path) -> Iterator[Server]:
    running = Server(rules=rules_root, data=tmp_path / "data")
    running.start()
    yield running
    running.stop()


class Site(SimpleHTTPRequestHandler):
    """The harness page at /, its scripts at /harness/, the module at /modules/arbiter/."""

    module_dir: Path

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            return str(HARNESS / "index.html")
        if path.startswith("/harness/"):
            return str(HARNESS / path.removeprefix("/harness/"))
        if path.startswith("/modules/arbiter/"):
            return str(self.module_dir / path.removeprefix("/modules/arbiter/"))
        if path == "/vendor/handlebars.min.js":
            return str(ROOT / "node_modules/handlebars/dist/handlebars.min.js")
        return str(HARNESS / "missing")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def site(module_dir: Path) -> Iterator[str]:
    handler = type("ModuleSite", (Site,), {"module_dir": module_dir})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Debian's chromium (a persistent context with a fresh profile)."""
    if not CHROMIUM.exists() or shutil.which("node") is None:
        pytest.fail("chromium and node are needed: run scripts/setup --test")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
        )
        yield context
        with contextlib.suppress(Exception):
            context.close()


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.05):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("condition not met in time")
