"""Fixtures for the client e2e tests: the module built from the bundled rules, the real
``arbiter serve`` in its own process with the bundled rulesets and their engines, the harness
site and Debian's chromium driven by Playwright (never a downloaded browser), the hub that plays
Foundry's server between the pages (``support/hub.py``), and the GM's harness page logged in and
connected in the Foundry generation a test names with ``generation`` (default V13).

Every page has its own fresh browser context, as every user has his own browser, closed at the
end of the test: pages share nothing but what the hub delivers, and nothing a test leaves in a
browser (client settings in localStorage, cookies) reaches the next test
(tests/e2e/test_contexts.py proves it). ``site``, ``server`` and ``gm`` are the bundled ones
(``bundled_site``, ``bundled_server``, ``bundled_gm`` are the same fixtures by their older
names)."""

from __future__ import annotations

import contextlib
import functools
import shutil
import threading
import uuid
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.e2e.support.browser import GM, OpenPage, Page
from tests.e2e.support.hub import running_hub
from tests.e2e.support.paths import CHROMIUM, FLAGS, HARNESS, ROOT
from tests.e2e.support.process import Server


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


@contextlib.contextmanager
def serving(module: Path) -> Iterator[str]:
    handler = type("ModuleSite", (Site,), {"module_dir": module})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def bundled_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The module built by ``build_module`` from the bundled rulesets."""
    from arbiter.compiler.foundry.build import build_module

    return build_module(tmp_path_factory.mktemp("bundled")).module_dir


@pytest.fixture(scope="session")
def bundled_site(bundled_module: Path) -> Iterator[str]:
    """The harness with the module built from the bundled rulesets."""
    with serving(bundled_module) as url:
        yield url


@pytest.fixture(scope="session")
def macros(bundled_module: Path) -> dict[tuple[str, str], str]:
    """The built compendium's script macros: (ruleset or module, action) → command."""
    from arbiter.compiler.foundry.packs import read_pack

    documents = read_pack(bundled_module / "packs" / "macros").values()
    return {
        (d["flags"]["arbiter"]["owner"], d["flags"]["arbiter"]["action"]): d["command"]
        for d in documents
        if d.get("type") == "script"
    }


@pytest.fixture
def bundled_server(tmp_path: Path) -> Iterator[Server]:
    """The real ``arbiter serve`` with the bundled rulesets and their engines."""
    running = Server(data=tmp_path / "data")
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Debian's chromium; each page opens its own context in it (``browser.new_context``)."""
    if not CHROMIUM.exists() or shutil.which("node") is None:
        pytest.fail("chromium and node are needed: run scripts/setup --test")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=FLAGS
        )
        yield browser
        with contextlib.suppress(Exception):
            browser.close()


@pytest.fixture(scope="session")
def hub() -> Iterator[str]:
    """Foundry's server between the harness pages (module socket, chat messages, user queries)."""
    with running_hub() as url:
        yield url


@pytest.fixture
def world() -> str:
    """This test's world on the hub: pages of other tests never hear from it."""
    return uuid.uuid4().hex


@pytest.fixture
def pages(chromium: object) -> Iterator[list[Page]]:
    opened: list[Page] = []
    yield opened
    for p in opened:
        p.close()


@pytest.fixture
def generation() -> int:
    """The Foundry generation the harness imitates; a test parametrizes it to choose."""
    return 13


@pytest.fixture
def open_page(
    chromium: object, pages: list[Page], generation: int, hub: str, world: str
) -> OpenPage:
    """Open a harness page on ``site`` for ``server`` (a GM unless ``user`` says otherwise, in
    the test's generation), closed after the test: ``open_page(site, server, user=…, token=…,
    settings=…, scene=…)`` (``scene``: actors, tokens, controlled, targets, system replacing the
    default world's)."""

    def open_(
        site: str,
        server: Server,
        user: str = GM,
        token: str | None = None,
        settings: dict[str, object] | None = None,
        scene: dict[str, object] | None = None,
    ) -> Page:
        page = Page(
            chromium,
            site,
            generation,
            server,
            user,
            token,
            settings,
            hub=f"{hub}/?world={world}",
            world=scene,
        )
        pages.append(page)
        return page

    return open_


@pytest.fixture
def bundled_gm(bundled_site: str, bundled_server: Server, open_page: OpenPage) -> Page:
    """The GM's page on the bundled module, connected to the real ``arbiter serve``."""
    page = open_page(bundled_site, bundled_server)
    page.wait_status("open")
    return page


@pytest.fixture(scope="session")
def site(bundled_site: str) -> str:
    """The harness with the module built from the bundled rulesets."""
    return bundled_site


@pytest.fixture
def server(bundled_server: Server) -> Server:
    """The real ``arbiter serve`` with the bundled rulesets (a test may restart it with other
    options, or with a house-rule folder: ``server.rules``, ``server.reload_interval``)."""
    return bundled_server


@pytest.fixture
def gm(bundled_gm: Page) -> Page:
    """The GM's page on the bundled module, connected to the real ``arbiter serve``."""
    return bundled_gm
