"""Shutting down cancels the player records' listener and a world's load: a cancel that lands
in the very loop turn its awaited read (or load slot) completes must still end the task.
Python 3.11's ``asyncio.wait_for`` returned the result instead and swallowed the cancel, so
the listener went on listening and ``ArbiterServer.close`` waited on it for ever (seen in CI:
``tests/bridge/test_server_postgres.py``, a close that timed out after 30 s)."""

from __future__ import annotations

import ast
import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.records import Player
from arbiter.bridge.stores.postgres_pool import LoadSlots, PlayerFeed

BRIDGE = Path(__file__).resolve().parents[3] / "bridge"


class HeldRead:
    """A connection whose read of the player records waits until ``answer`` is set."""

    def __init__(self) -> None:
        self.answer: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self.reading = asyncio.Event()

    async def execute(self, query: str, params: Any) -> HeldRead:
        return self

    async def fetchall(self) -> list[Any]:
        self.reading.set()
        return await self.answer


def test_a_refresh_cancelled_as_its_read_completes_ends_without_handing_records_on() -> None:
    async def body() -> None:
        held = HeldRead()
        handed: list[str] = []

        async def changed(world: str, records: dict[str, Player]) -> None:
            handed.append(world)

        @contextlib.asynccontextmanager
        async def read() -> AsyncIterator[Any]:
            yield held

        feed = PlayerFeed("", "test", lambda: ("w",), changed, read)
        refresh = asyncio.create_task(feed.refresh(["w"]))
        await held.reading.wait()
        # In one loop turn: the read's answer arrives and the task is cancelled.
        held.answer.set_result([])
        refresh.cancel()
        with pytest.raises(asyncio.CancelledError):
            await refresh
        assert handed == []

    asyncio.run(body())


def test_a_load_slot_wait_cancelled_as_the_slot_frees_ends_and_gives_the_slot_back() -> None:
    async def body() -> None:
        slots = LoadSlots(pool_size=2)  # one load at a time
        entered: list[str] = []

        async def load() -> None:
            async with slots.slot():
                entered.append("load")

        async with slots.slot():
            waiting = asyncio.create_task(load())
            await asyncio.sleep(0)  # it waits for the slot
            assert entered == []
        # The slot came free in this turn; the waiting load is cancelled in the same turn.
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert entered == []
        async with asyncio.timeout(1):
            async with slots.slot():  # not leaked by the cancelled wait
                entered.append("next")
        assert entered == ["next"]

    asyncio.run(body())


def test_the_bridge_bounds_its_waits_with_asyncio_timeout_never_wait_for() -> None:
    """``asyncio.wait_for`` swallows a cancel that lands as its awaitable completes (Python
    3.11, gh-86296); ``asyncio.timeout`` does not."""
    found = []
    for path in sorted(BRIDGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "wait_for":
                found.append(f"{path.relative_to(BRIDGE.parent)}:{node.lineno}")
    assert found == []
