"""The server's group commit (``bridge/committing.py``) with a store whose flush waits until the
test lets it finish, as a PostgreSQL round trip does: nothing is told before its flush returned,
replies keep their order behind a flush in flight, a failed flush sends no outcome, and a stale
writer is reported after its replies; a world served under a lease commits and answers nothing
once the lease is not valid."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from arbiter.bridge.committing import CommitFailed, GroupCommit, LeaseEnded
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.session import commit_failed
from arbiter.bridge.stores import StaleWriter
from tests.support.apart import run_apart


@dataclass
class SlowStore:
    """Stages by counting; its flush waits for ``gate`` and then fails with ``error``, if set."""

    staged: int = 0
    logged: dict[str, str] = field(default_factory=dict)
    """Request id -> hash of the row the store holds for it (as if reloaded)."""
    flushed: list[int] = field(default_factory=list)
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    error: Exception | None = None

    def find(self, request_id: str) -> object | None:
        found = self.logged.get(request_id)
        return None if found is None else SimpleNamespace(hash=found)

    def count(self) -> int:
        return len(self.logged)

    @property
    def pending(self) -> bool:
        return self.staged > 0

    async def flush(self) -> None:
        taken, self.staged = self.staged, 0
        await self.gate.wait()
        if self.error is not None:
            raise self.error
        self.flushed.append(taken)


class Client:
    def __init__(self) -> None:
        self.outbox = self
        self.got: list[Any] = []

    def send(self, reply: str | bytes) -> None:
        self.got.append(reply)


def commits(store: SlowStore, lost: list[StaleWriter], fence: Any = None) -> GroupCommit:
    return GroupCommit(
        store,  # type: ignore[arg-type]
        FailureLog(logging.getLogger("test")),
        lambda events: None,
        lost.append,
        commit_failed,
        fence=fence,
    )


def test_a_reply_given_while_a_flush_is_in_flight_waits_behind_it_even_one_needing_no_row() -> None:
    async def body() -> None:
        store, client = SlowStore(), Client()
        group = commits(store, [])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await asyncio.sleep(0)  # the flush of row 1 is in flight
        group.answer(client, "pong")  # type: ignore[arg-type]
        store.staged += 1
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        assert client.got == [] and store.flushed == []
        store.gate.set()
        await group.drain()
        assert client.got == ["outcome 1", "pong", "outcome 2"]
        assert store.flushed == [1, 1]  # row 2 went to the next flush

    run_apart(body())


def test_a_failed_flush_sends_no_outcome_and_fails_its_waiters() -> None:
    async def body() -> None:
        store, client = SlowStore(error=OSError("disk full")), Client()
        group = commits(store, [])
        store.staged += 1
        waiting = asyncio.create_task(group.committed())  # its wait begins before the flush
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        store.gate.set()
        with pytest.raises(CommitFailed):
            await waiting
        [reply] = client.got
        assert json.loads(reply)["code"] == "unavailable" and json.loads(reply)["id"] == "r-1"

    run_apart(body())


def test_a_stale_writer_answers_unavailable_and_then_reports_the_lost_world() -> None:
    async def body() -> None:
        stale = StaleWriter("world 'w' moved")
        store, client, lost = SlowStore(error=stale), Client(), []
        group = commits(store, lost)
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        assert json.loads(client.got[0])["code"] == "unavailable" and lost == [stale]

    run_apart(body())


def test_a_failed_flush_sends_an_outcome_whose_very_row_landed_and_not_one_whose_id_did() -> None:
    async def body() -> None:
        # The store reloaded after a broken connection: r-1's row is the one this reply was
        # made from; r-2 holds a row of an earlier decision of the id (its COMMIT landed
        # unheard), so the reply's outcome, decided anew, is not the logged one.
        store, client = SlowStore(error=OSError("connection lost")), Client()
        store.logged = {"r-1": "h1", "r-2": "an earlier row"}
        group = commits(store, [])
        store.staged += 2
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        assert client.got[0] == "outcome 1"
        refused = json.loads(client.got[1])
        assert refused["code"] == "unavailable" and refused["id"] == "r-2"

    run_apart(body())


def test_an_outcome_committed_after_the_lease_ended_is_answered_unavailable_not_told() -> None:
    async def body() -> None:
        valid = [True]
        store, client, lost = SlowStore(), Client(), []
        store.logged["r-1"] = "h1"  # its row is committed: still, no outcome leaves
        group = commits(store, lost, fence=lambda: valid[0])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await asyncio.sleep(0)  # the flush is in flight
        valid[0] = False  # the local deadline passes while it is
        store.gate.set()
        await group.drain()
        assert store.flushed == [1]
        [reply] = client.got
        assert json.loads(reply)["code"] == "unavailable" and json.loads(reply)["id"] == "r-1"
        [ended] = lost
        assert isinstance(ended, LeaseEnded)

    run_apart(body())


def test_nothing_is_flushed_once_the_lease_is_not_valid() -> None:
    async def body() -> None:
        store, client, lost = SlowStore(), Client(), []
        store.gate.set()
        group = commits(store, lost, fence=lambda: False)
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        assert store.flushed == [] and store.staged == 1
        assert json.loads(client.got[0])["code"] == "unavailable"
        assert [type(err) for err in lost] == [LeaseEnded]

    run_apart(body())


def test_a_failed_flush_that_outlasted_the_lease_tells_no_outcome_even_one_whose_row_landed() -> (
    None
):
    async def body() -> None:
        valid = [True]
        store, client = SlowStore(error=OSError("connection lost")), Client()
        store.logged["r-1"] = "h1"  # its COMMIT landed unheard (the store reloaded)
        group = commits(store, [], fence=lambda: valid[0])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await asyncio.sleep(0)  # the flush is in flight
        valid[0] = False  # the local deadline passes while it waits on a broken connection
        store.gate.set()
        await group.drain()
        [reply] = client.got
        assert json.loads(reply)["code"] == "unavailable" and json.loads(reply)["id"] == "r-1"

    run_apart(body())


def test_a_stale_writer_tells_no_outcome_even_for_a_row_its_store_holds() -> None:
    async def body() -> None:
        store, client = SlowStore(error=StaleWriter("world 'w' moved")), Client()
        store.logged["r-1"] = "h1"  # a resend answered from an older row
        group = commits(store, [])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        [reply] = client.got
        assert json.loads(reply)["code"] == "unavailable"

    run_apart(body())


def test_a_failed_flush_publishes_the_events_of_its_rows_that_landed_and_moves_head_past_them() -> (
    None
):
    async def body() -> None:
        # The store reloaded after a broken connection and holds both rows: their COMMIT landed.
        store, client, published = SlowStore(error=OSError("connection lost")), Client(), []
        store.logged = {"r-1": "h1", "r-2": "h2"}
        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            lambda events: published.append([seq for seq, _, _ in events]),
            [].append,
            commit_failed,
        )
        head = group.head
        store.staged += 2
        for seq, rid, row_hash in ((head + 1, "r-1", "h1"), (head + 2, "r-2", "h2")):
            group.answer(client, f"outcome {seq}", (rid, row_hash))  # type: ignore[arg-type]
            group.announce(seq, None, client, (rid, row_hash))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        assert published == [[head + 1, head + 2]]
        assert group.head == head + 2
        assert client.got == [f"outcome {head + 1}", f"outcome {head + 2}"]

    run_apart(body())


def test_a_failed_flush_whose_rows_did_not_land_publishes_nothing() -> None:
    async def body() -> None:
        # The reload finds the id under an earlier decision's row: this flush's row is not it.
        store, client, published = SlowStore(error=OSError("connection lost")), Client(), []
        store.logged = {"r-1": "an earlier row"}
        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            published.append,
            [].append,
            commit_failed,
        )
        head = group.head
        store.staged += 1
        group.answer(client, "outcome", ("r-1", "h1"))  # type: ignore[arg-type]
        group.announce(head + 1, None, client, ("r-1", "h1"))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        assert published == [] and group.head == head
        assert json.loads(client.got[0])["code"] == "unavailable"

    run_apart(body())


def test_a_stale_writer_publishes_no_event_even_for_a_row_its_store_holds() -> None:
    async def body() -> None:
        store, client, published = SlowStore(error=StaleWriter("moved")), Client(), []
        store.logged = {"r-1": "h1"}
        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            published.append,
            [].append,
            commit_failed,
        )
        head = group.head
        store.staged += 1
        group.announce(head + 1, None, client, ("r-1", "h1"))  # type: ignore[arg-type]
        store.gate.set()
        await group.drain()
        assert published == [] and group.head == head

    run_apart(body())
