"""The realistic Arbiter workload for ``benchmarks/bridge.py``: exchanges inside an encounter.

What the Foundry client sends in a fight: ``start_encounter`` once with the stat blocks, then
``initiative``, then turn after turn an ``exchange`` by the combatant whose turn it is and a
``next_turn``. The server keeps the encounter state: every request reads it from the store,
the engine decides with it, and the new state is written with the logged row. Each connection
runs its own encounters with the two fighters of ``docs/examples/combat-styles.json``; when
one can no longer go on (a fighter down, an exchange the rules refuse twice in a row), the
connection starts the next encounter. Every message is a decided, logged request, and every
round trip counts; the report says which share were exchanges.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection


def example_fighters(root: Path) -> list[dict[str, Any]]:
    """The stat blocks of the combat-styles example's ``start_encounter`` (empty if absent)."""
    example = root / "docs" / "examples" / "combat-styles.json"
    if not example.is_file():
        return []
    data = json.loads(example.read_text(encoding="utf-8"))
    entries = data.get("requests", data) if isinstance(data, dict) else data
    start = next((e for e in entries if e.get("type") == "start_encounter"), None)
    return list(start["body"]["combatants"]) if start is not None else []


LIMIT = 200_000
"""A bound on each measurement besides its time."""
MAX_EXCHANGES = 20
"""A fight ends after this many exchanges (its state would otherwise grow with every wound)."""


@dataclass
class Fight:
    """One connection's encounters: what to send next, given the answers so far."""

    fighters: list[dict[str, Any]]
    prefix: str
    encounters: int = 0
    step: str = "start_encounter"
    current: str | None = None
    refused: int = 0
    exchanges: int = 0
    sent: dict[str, int] = field(default_factory=dict)
    forbidden: int = 0
    """Requests the rules refused (``rules_forbid``, before any die: not logged)."""

    def request(self, rid: str) -> dict[str, Any]:
        """The next request (its envelope) of this connection's current encounter."""
        if self.step == "start_encounter":
            self.encounters += 1
            body: dict[str, Any] = {"combatants": self.fighters}
        elif self.step == "exchange":
            attacker = next(f for f in self.fighters if f["id"] == self.current)
            defender = next(f for f in self.fighters if f["id"] != self.current)
            body = {
                "attacker": attacker["id"],
                "defender": defender["id"],
                "weapon": attacker["weapons"][0],
                "defence": "parry",
                "effects": [],
            }
        else:
            body = {}
        self.sent[self.step] = self.sent.get(self.step, 0) + 1
        encounter = f"{self.prefix}-{self.encounters}"
        return {
            "id": rid,
            "ruleset": "combat-styles",
            "type": self.step,
            "body": body,
            "encounter": encounter,
        }

    def answered(self, reply: dict[str, Any]) -> None:
        """Move on from the answer to the last request."""
        if reply.get("type") == "error":
            if reply.get("code") != "rules_forbid":
                raise RuntimeError(f"encounter request refused: {reply}")
            self.forbidden += 1
            # An exchange the rules refuse (no attack this turn): end the turn; refused twice
            # without an exchange between, or a turn refused: the next encounter.
            if self.step == "exchange" and self.refused == 0:
                self.step, self.refused = "next_turn", 1
            else:
                self.step, self.refused = "start_encounter", 0
            return
        if reply.get("type") != "outcome":
            raise RuntimeError(f"not an outcome: {str(reply)[:300]}")
        result = reply["outcome"]["result"]
        if self.step == "start_encounter":
            self.step, self.exchanges = "initiative", 0
        elif self.step == "exchange":
            self.step, self.refused = "next_turn", 0
            self.exchanges += 1
        else:  # initiative or next_turn: whose turn it is now
            self.current = result.get("current")
            ended = self.current is None or self.exchanges >= MAX_EXCHANGES
            self.step = "start_encounter" if ended else "exchange"


async def measure_fights(
    sockets: list[ClientConnection],
    fighters: list[dict[str, Any]],
    run: str,
    seconds: float,
    limit: int,
) -> tuple[list[float], float, dict[str, int]]:
    """Round-trip times (s) of every message, the wall time, and the requests sent by type
    (with ``"rules_forbid"``: how many of them the rules refused)."""
    counter = iter(range(10**9))
    times: list[float] = []
    stop_at = time.perf_counter() + seconds
    fights = [Fight(fighters, f"{run}-{k}") for k in range(len(sockets))]

    async def loop(ws: ClientConnection, fight: Fight) -> None:
        while time.perf_counter() < stop_at and len(times) < limit:
            request = fight.request(f"{run}-{next(counter)}")
            frame = json.dumps({"v": 1, "type": "request", "request": request})
            start = time.perf_counter()
            await ws.send(frame)
            reply = await ws.recv()
            times.append(time.perf_counter() - start)
            fight.answered(json.loads(reply))

    started = time.perf_counter()
    await asyncio.gather(*(loop(ws, f) for ws, f in zip(sockets, fights, strict=True)))
    wall = time.perf_counter() - started
    sent: dict[str, int] = {}
    for fight in fights:
        for kind, count in fight.sent.items():
            sent[kind] = sent.get(kind, 0) + count
    sent["rules_forbid"] = sum(fight.forbidden for fight in fights)
    return times, wall, sent


Opener = Callable[[], Awaitable[ClientConnection]]


async def run_fights(
    open_socket: Opener, fighters: list[dict[str, Any]], connections: int, seconds: float, run: str
) -> tuple[list[float], float]:
    """Round-trip times (s) and wall time of ``connections`` connections fighting encounters."""
    sockets = [await open_socket() for _ in range(connections)]
    times, wall, _ = await measure_fights(sockets, fighters, run, seconds, LIMIT)
    await asyncio.gather(*(ws.close() for ws in sockets))
    return times, wall


async def sample_fight(
    open_socket: Opener, fighters: list[dict[str, Any]], count: int = 100
) -> tuple[list[str], int, dict[str, int]]:
    """The frames one connection sends in ``count`` messages of fighting, the mean length of
    the answers, and the requests by type: what the echo server is given to move as many bytes.
    """
    ws = await open_socket()
    fight = Fight(fighters, "sample")
    frames: list[str] = []
    replies = 0
    for n in range(count):
        frames.append(json.dumps({"v": 1, "type": "request", "request": fight.request(f"s{n}")}))
        await ws.send(frames[-1])
        reply = await ws.recv()
        replies += len(reply)
        fight.answered(json.loads(reply))
    await ws.close()
    return frames, replies // count, dict(fight.sent)
