"""A server running in a background thread for server tests, with the bundled rules
(``bundled_config``, ``bundled_request``) or the tiny test ruleset (``tiny_config``).

Server tests whose scenario is a bundled ruleset's (a check, an exchange, a karmic duel, a table
draw) serve the bundled rules with their real engines. The ``tiny`` ruleset and engine are kept
for what no bundled ruleset can produce on demand: a request that rolls as many dice as it is
told (the dice budget), a running tally whose every value the test can predict, a secret card
for any participant named, and a move the rules always forbid. It has one rollable table.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from websockets.sync.client import ClientConnection, connect

from arbiter.bridge import players
from arbiter.bridge.engine import registry
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.server import ArbiterServer, ServerConfig, open_server
from arbiter.compiler.model.common import DieTable, RulesetBase


class TinyRules(RulesetBase):
    tables: list[DieTable]


META = '[ruleset]\nid = "tiny"\ntitle = "Tiny"\nversion = "1.0.0"\n'
TABLES = """
[[tables]]
id = "fumble"
name = "Fumble"
die = "1d4"
rows = [
  { range = [1, 2], text = "Drop weapon" },
  { range = [3, 4], text = "Trip" },
]
"""


def write_rules(root: Path, tables: str = TABLES) -> Path:
    folder = root / "tiny"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ruleset.toml").write_text(META)
    (folder / "tables.toml").write_text(tables)
    return root


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Check(Body):
    skill: int = Field(ge=1, le=200)


class Draw(Body):
    table: str


class Tally(Body):
    add: int


class Secret(Body):
    acting: ClassVar[tuple[str, ...]] = ("owner",)
    """The owner draws his own secret card (``bridge/authority.py``)."""

    owner: str


class Forbidden(Body):
    """A request type the test ruleset always refuses."""


class Greedy(Body):
    dice: int = Field(ge=0, le=100_000)


class TinyEngine:
    ruleset_id = "tiny"
    requests: dict[str, type[BaseModel]] = {  # noqa: RUF012 - the contract's mapping
        "check": Check,
        "draw": Draw,
        "tally": Tally,
        "secret": Secret,
        "forbidden": Forbidden,
        "greedy": Greedy,
    }

    def resolve(
        self, rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        assert isinstance(rules, TinyRules)
        if isinstance(body, Check):
            roll = dice.d100()
            return Resolution({"kind": "check", "roll": roll, "success": roll <= body.skill})
        if isinstance(body, Draw):
            table = next((t for t in rules.tables if t.id == body.table), None)
            if table is None:
                raise EngineError(f"no table {body.table!r}")
            roll = dice.roll(table.die).total
            row = next(r for r in table.rows if r.range[0] <= roll <= r.range[1])
            return Resolution({"kind": "draw", "roll": roll, "text": row.text})
        if isinstance(body, Tally):
            total = (state or {}).get("total", 0) + body.add
            return Resolution({"kind": "tally", "total": total}, state={"total": total})
        if isinstance(body, Secret):
            card = dice.die(10, "card")
            return Resolution({"kind": "secret"}, private={body.owner: {"card": card}})
        if isinstance(body, Greedy):
            total = sum(dice.die(6) for _ in range(body.dice))
            return Resolution({"kind": "greedy", "total": total})
        raise EngineError("the tiny rules never allow this")


ENGINE = TinyEngine()


def tiny_get_engine(ruleset_id: str) -> Any:
    if ruleset_id == "tiny":
        return ENGINE
    raise registry.UnknownRuleset(f"unknown ruleset {ruleset_id!r}")


def tiny_source(root: Path, overlay: Path | None = None) -> RuleSource:
    return RuleSource(root=root, overlay=overlay, models={"tiny": TinyRules})


def tiny_config(tmp: Path, **changes: Any) -> ServerConfig:
    """A config serving the tiny ruleset from ``tmp/rules`` with a fresh data dir."""
    base = ServerConfig(
        data=tmp / "data",
        port=0,
        rules=tiny_source(write_rules(tmp / "rules")),
        module_dir=None,
        build=False,
        limits=Limits(auth_timeout_seconds=2.0),
        reload_interval=None,
    )
    return replace(base, **changes)


def bundled_config(tmp: Path, **changes: Any) -> ServerConfig:
    """A config serving the bundled rulesets with their real engines and a fresh data dir."""
    return tiny_config(tmp, **{"rules": RuleSource(), **changes})


def awaiting(coro: Any) -> Iterator[tuple[str, int, str, None]]:
    """Where a coroutine stands, down the chain of what each frame awaits."""
    while coro is not None:
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "ag_frame", None)
        frame = frame or getattr(coro, "gi_frame", None)
        if frame is not None:
            yield frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, None
        coro = next(
            (
                getattr(coro, name)
                for name in ("cr_await", "ag_await", "gi_yieldfrom")
                if getattr(coro, name, None) is not None
            ),
            None,
        )


def stacks(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> str:
    """The loop thread's Python stack and each unfinished task's coroutine stack (read from
    another thread: a diagnostic, racy but never blocking on the loop)."""
    lines = [f"loop thread {thread.name}:"]
    frame = sys._current_frames().get(thread.ident or -1)
    lines += traceback.format_stack(frame) if frame is not None else ["  (not running)\n"]
    for task in list(asyncio.all_tasks(loop)):
        lines.append(f"task {task.get_name()} ({task.get_coro()!r}):\n")
        lines += traceback.format_list(list(awaiting(task.get_coro())))
    return "".join(lines)


@dataclass
class Running:
    """A server running in a background thread; ``call`` runs a coroutine on its loop."""

    server: ArbiterServer
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    url: str = field(init=False)

    def __post_init__(self) -> None:
        self.url = f"ws://127.0.0.1:{self.server.port}"

    def call(self, coro: Any, timeout: float = 10) -> Any:
        """Run ``coro`` on the server's loop; a timeout raises naming where the loop and
        every task on it stand (a hang in CI is otherwise a bare TimeoutError)."""
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(
                f"not done in {timeout} s; where the server stood:\n{stacks(self.loop, self.thread)}"
            ) from None

    def connect(self, **kwargs: Any) -> ClientConnection:
        return connect(self.url, open_timeout=5, close_timeout=2, **kwargs)

    def hello(
        self, role: str = "gm", token: str | None = None, **kwargs: Any
    ) -> tuple[ClientConnection, dict[str, Any]]:
        """A connected, authenticated client and its welcome message (``token``: a player
        token; default the world secret, a GM connection)."""
        ws = self.connect()
        send(ws, hello_message(token or self.server.secret, role=role, **kwargs))
        return ws, receive(ws)

    def player(self, name: str, *participants: str, rotate: bool = False) -> str | None:
        """Issue (or update) player ``name``'s record as ``arbiter token --player`` does, on
        the server's loop; returns the token when one was made."""

        async def issue() -> str | None:
            return players.issue(self.server.store, name, list(participants), rotate, time.time())[
                1
            ]

        token: str | None = self.call(issue())
        return token

    def revoke(self, name: str) -> None:
        async def revoke() -> None:
            players.revoke(self.server.store, name, time.time())

        self.call(revoke())


def hello_message(
    token: str,
    role: str = "gm",
    events: list[str] | None = None,
    since: int | None = None,
    **client: Any,
) -> dict[str, Any]:
    """A hello; ``since``: the last outcome seq seen (the gap replay)."""
    info = {"name": "tests", "user": client.pop("user", "tester"), "role": role, **client}
    message = {"v": 1, "type": "hello", "token": token, "client": info}
    if events is not None:
        message["events"] = events
    if since is not None:
        message["since"] = since
    return message


def request(rid: str, type: str = "check", body: Any = None, **extra: Any) -> dict[str, Any]:
    req = {"id": rid, "ruleset": "tiny", "type": type, "body": body or {"skill": 50}, **extra}
    return {"v": 1, "type": "request", "request": req}


def bundled_request(
    rid: str, type: str = "check", body: Any = None, ruleset: str = "combat-styles", **extra: Any
) -> dict[str, Any]:
    """A request to a bundled ruleset; by default a combat-styles d100 check against 50."""
    body = {"skill": 50} if body is None else body
    req = {"id": rid, "ruleset": ruleset, "type": type, "body": body, **extra}
    return {"v": 1, "type": "request", "request": req}


def send(ws: ClientConnection, message: Any) -> None:
    import json

    ws.send(message if isinstance(message, str | bytes) else json.dumps(message))


def receive(ws: ClientConnection, timeout: float = 5) -> dict[str, Any]:
    import json

    return json.loads(ws.recv(timeout))


@contextmanager
def running(config: ServerConfig) -> Iterator[Running]:
    """Start a server on a fresh event loop in a thread; stop it and the loop afterwards."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="arbiter-test-server", daemon=True)
    thread.start()

    async def start() -> ArbiterServer:
        server = await open_server(config)
        await server.start()
        return server

    server = asyncio.run_coroutine_threadsafe(start(), loop).result(30)
    run = Running(server, loop, thread)
    try:
        yield run
    finally:
        try:
            run.call(server.close(), timeout=30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
            if not thread.is_alive():
                loop.close()
