"""A real ``ArbiterServer`` with the bundled rules, and the clients the security tests play.

Each test is a hostile client written from docs/protocol.md: it connects over real websockets on
loopback, says hello with whatever it holds (a player token, a list of ``participants`` it has no
right to), and keeps every frame the server sends it, so the test can search all of them.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection

from arbiter.bridge.engine.karmic.rulebook import rulebook
from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.karmic import KarmicRules
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset
from tests.bridge.support import Running, hello_message, running, tiny_config

RULES: KarmicRules = load_ruleset("karmic").model  # type: ignore[assignment]
DECK: tuple[str, ...] = rulebook(RULES).deck
"""Every card id of the karmic deck."""

DEVON = {
    "id": "devon",
    "name": "Devon",
    "side": "heroes",
    "finesse": 0,
    "force": 1,
    "armor": "none",
    "vitality": 10,
    "main": "sword",
    "skills": {"sword": 3, "combat_training": 1},
}
SOLDIER = {
    "id": "soldier",
    "name": "Enemy soldier",
    "side": "guards",
    "finesse": 0,
    "force": 1,
    "armor": "leather",
    "vitality": 10,
    "main": "sword",
    "skills": {"sword": 2},
}


@contextmanager
def bundled_server(tmp: Path) -> Iterator[Running]:
    """A server of the bundled rules (karmic among them), fast to notice a revoked player."""
    config = tiny_config(
        tmp,
        rules=RuleSource(),
        limits=Limits(auth_timeout_seconds=2.0, rate_per_second=100_000.0, burst=100_000),
        players_interval=0.05,
    )
    with running(config) as srv:
        yield srv


def karmic(rid: str, type: str, body: dict[str, Any], encounter: str = "duel") -> dict[str, Any]:
    request = {"id": rid, "ruleset": "karmic", "type": type, "body": body}
    if encounter:
        request["encounter"] = encounter
    return {"v": 1, "type": "request", "request": request}


class Client:
    """One connection that keeps every frame the server sent it (``received``)."""

    def __init__(self, srv: Running, token: str, **hello: Any) -> None:
        self.ws: ClientConnection = srv.connect()
        self.received: list[dict[str, Any]] = []
        self._barriers = 0
        self.ws.send(json.dumps(hello_message(token, **hello)))
        self.welcome = self._next(5)

    def _next(self, timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout))
        self.received.append(message)
        return message

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` and return its answer (events that come first are kept too)."""
        ident = message.get("id") or message.get("request", {}).get("id")
        self.ws.send(json.dumps(message))
        while True:
            reply = self._next(5)
            if reply["type"] == "outcome" and reply["outcome"]["id"] == ident:
                return reply
            if reply["type"] in ("error", "pong") and reply.get("id") == ident:
                return reply

    def store(self, ruleset: str, block: dict[str, Any], ident: str = "put-1") -> None:
        """Store ``block`` as the GM's (this is a GM connection), the honest path for the
        participants players do not hold; fails the test unless the server stored it."""
        message = {"v": 1, "type": "put_stat_block", "id": ident, "ruleset": ruleset}
        self.ws.send(json.dumps({**message, "stat_block": block}))
        while True:
            reply = self._next(5)
            if reply["type"] in ("checked", "error") and reply.get("id") == ident:
                assert reply.get("ok") is True, reply
                return

    def drain(self, timeout: float = 5.0) -> None:
        """Keep everything the server sent before it answers a ping of ours.

        The server answers a connection's frames in order, each after the group commit it
        waits on, and writes an outcome's events at that commit through the same outbox: so
        every event of an outcome committed before the ping is read before its pong. No fixed
        wait, which either waits too long or misses a late frame on a loaded machine.
        """
        self._barriers += 1
        ident = f"drain-{self._barriers}"
        self.ws.send(json.dumps({"v": 1, "type": "ping", "id": ident}))
        while True:
            message = self._next(timeout)
            if message.get("type") == "pong" and message.get("id") == ident:
                self.received.pop()  # our own barrier is not something the server told us
                return

    def close(self) -> None:
        self.ws.close()


def strings(value: Any) -> set[str]:
    """Every string anywhere in ``value``, keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        out: set[str] = set()
        for k, v in value.items():
            out |= strings(k) | strings(v)
        return out
    if isinstance(value, list | tuple):
        out = set()
        for v in value:
            out |= strings(v)
        return out
    return set()


def dice_of(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every die record in the outcomes and outcome events among ``messages``."""
    return [
        die
        for m in messages
        if m.get("type") == "outcome" or m.get("event") == "outcome"
        for die in m["outcome"]["dice"]
    ]


def encounter_state(srv: Running, encounter: str = "duel") -> dict[str, Any]:
    """The encounter state the server holds (read on the server's own loop)."""

    async def read() -> dict[str, Any]:
        found = srv.server.store.encounter(encounter)
        assert found is not None and found.state is not None
        return found.state

    state: dict[str, Any] = srv.call(read())
    return state


def rows(srv: Running) -> int:
    async def count() -> int:
        return srv.server.store.count()

    counted: int = srv.call(count())
    return counted


def served_rules_copy(tmp: Path) -> Path:
    """A copy of the bundled rules to serve (``RuleSource(root=…)``): a house overlay replaces
    or adds entries, never removes one, so a test that removes rule data edits a copy."""
    root = tmp / "rules-copy"
    shutil.copytree(RULES_ROOT, root)
    return root


def remove_hmk_weapon(root: Path, weapon: str) -> None:
    """Delete ``weapon``'s entry from the served copy's hmk weapons, dated ahead so the
    server's watcher sees the edit at its next look."""
    weapons = root / "hmk" / "weapons.toml"
    entries = weapons.read_text(encoding="utf-8").split("[[weapons]]")
    kept = [e for e in entries if f'id = "{weapon}"' not in e]
    assert len(kept) == len(entries) - 1, f"no hmk weapon {weapon!r} to remove"
    weapons.write_text("[[weapons]]".join(kept), encoding="utf-8")
    later = time.time() + 2
    os.utime(weapons, (later, later))
