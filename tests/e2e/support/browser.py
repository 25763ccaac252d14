"""A harness page in chromium, and reading the server's roll log, for the e2e tests."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from tests.e2e.support.paths import ARTIFACTS
from tests.e2e.support.process import Server

GM = "harnessGamemast"
PLAYER = "harnessPlayerAa"
BRAM = "harnessPlayerBb"
WORLD: dict[str, Any] = {
    "actors": [
        {"_id": "actorKara0000001", "name": "Kara"},
        {"_id": "actorOrm00000001", "name": "Orm"},
    ],
    "tokens": [
        {"id": "tokenKara0000001", "name": "Kara", "actor": "actorKara0000001"},
        {"id": "tokenOrm00000001", "name": "Orm", "actor": "actorOrm00000001"},
    ],
    "controlled": ["tokenKara0000001"],
    "targets": ["tokenOrm00000001"],
    "modules": ["dice-so-nice"],
}


class Page:
    """One harness page in its own browser context (a user's own browser); collects every
    console error, warning and uncaught exception, and every websocket frame it sends or
    receives (``frames``: the hub's, i.e. what Foundry's server delivers, and the Arbiter
    server's)."""

    def __init__(
        self,
        browser: Any,
        site: str,
        generation: int,
        server: Server,
        user: str = GM,
        token: str | None = None,
        settings: dict[str, Any] | None = None,
        hub: str = "",
        world: dict[str, Any] | None = None,
    ):
        self.problems: list[str] = []
        self.frames: list[tuple[str, str, str]] = []  # (url, "sent" | "received", payload)
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda err: self.problems.append(f"pageerror: {err}"))
        self.page.on("websocket", self._websocket)
        self.allowed: list[re.Pattern[str]] = []
        # The world secret is the GM's; a player has no token unless a test gives him his own.
        default_token = server.secret if user == GM else ""
        world = {
            **WORLD,
            **(world or {}),
            "settings": {
                "arbiter.serverUrl": server.url,
                "arbiter.token": default_token if token is None else token,
                **(settings or {}),
            },
        }
        query = f"?v={generation}&user={user}&hub={quote(hub)}&world={quote(json.dumps(world))}"
        self.page.goto(site + "/" + query)
        self.page.wait_for_function("window.harnessBooted === true")

    def _websocket(self, ws: Any) -> None:
        url = ws.url
        ws.on("framesent", lambda payload: self.frames.append((url, "sent", str(payload))))
        ws.on("framereceived", lambda payload: self.frames.append((url, "received", str(payload))))

    def close(self) -> None:
        self.context.close()

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            text = message.text
            if not any(p.search(text) for p in self.allowed):
                self.problems.append(f"{message.type}: {text}")

    def call(self, script: str, arg: Any = None) -> Any:
        return self.page.evaluate(script, arg)

    def run_macro(self, command: str) -> None:
        """Start a script macro's command as Foundry does (an async function), not waiting."""
        self.page.evaluate(
            "(command) => { window.macro = new (async () => {}).constructor(command)(); }", command
        )

    def status(self) -> str:
        return self.page.get_attribute("#arbiter-status", "class") or ""

    def wait_status(self, status: str) -> None:
        try:
            self.page.wait_for_selector(f"#arbiter-status.arbiter-status--{status}", timeout=30000)
        except Exception as err:
            shown = self.page.get_attribute("#arbiter-status", "class")
            raise AssertionError(f"status {shown!r}, not {status}; {self.problems}") from err

    def card(self, message_id: str) -> Any:
        return self.page.locator(f'[data-message-id="{message_id}"]')


OpenPage = Callable[..., Page]
"""The ``open_page`` fixture: ``open_page(site, server, user=…, token=…, settings=…)``."""


def log_rows(server: Server) -> list[dict[str, Any]]:
    with sqlite3.connect(server.log_file) as db:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM rolls ORDER BY seq")]


def screenshot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.page.locator("#chat-log").screenshot(path=str(ARTIFACTS / f"{name}.png"))
