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
from typing import Any, ClassVar

import pytest

from arbiter.bridge.awaiting_commit import CommitFailed, LeaseEnded, Recall
from arbiter.bridge.committing import GroupCommit
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
    reads: dict[str, asyncio.Event] = field(default_factory=dict)
    """Request id -> the gate its ``recall`` waits for (ids whose rows must be read back)."""
    reading: list[str] = field(default_factory=list)
    """The ids whose ``recall`` has started reading, in order."""
    flush_now: ClassVar[None] = None
    """Its flush suspends (as a PostgreSQL round trip does): the group commit's task awaits it."""
    held_from: int = 1
    """The first seq held in memory: older rows are read with ``read_rolls``."""
    late: list[Any] = field(default_factory=list)
    """The committed rows (``seq`` only) ``rolls`` and ``read_rolls`` give."""
    read_gate: asyncio.Event | None = None
    read_error: Exception | None = None

    async def recall(self, request_id: str) -> object | None:
        gate = self.reads.get(request_id)
        if gate is not None and not gate.is_set():
            self.reading.append(request_id)
            await gate.wait()
        return self.find(request_id)

    def cached_from(self) -> int:
        return self.held_from

    def rolls(self, after: int = 0) -> list[Any]:
        return [r for r in self.late if r.seq > after]

    async def read_rolls(self, after: int, upto: int) -> list[Any]:
        if self.read_gate is not None:
            await self.read_gate.wait()
        if self.read_error is not None:
            raise self.read_error
        return [r for r in self.late if after < r.seq <= upto]

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


def commits(
    store: SlowStore,
    lost: list[StaleWriter],
    fence: Any = None,
    published: list[tuple[str, list[int]]] | None = None,
) -> GroupCommit:
    """``published``: gets ("live", seqs) and ("late", seqs) for each publication."""
    heard = [] if published is None else published
    return GroupCommit(
        store,  # type: ignore[arg-type]
        FailureLog(logging.getLogger("test")),
        lambda events: heard.append(("live", [e[0] for e in events])),
        lost.append,
        commit_failed,
        fence=fence,
        publish_late=lambda rows: heard.append(("late", [r.seq for r in rows])),
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


def recall(request_id: str, settled: list[str]) -> Recall:
    """A resend of ``request_id`` whose row must be read back; its redo answers "again <id>"."""
    return Recall(
        request_id,
        lambda: (f"again {request_id}", (request_id, "h"), None),
        lambda: settled.append(request_id),
    )


def test_the_reads_of_queued_recalls_overlap_and_their_replies_keep_their_order() -> None:
    async def body() -> None:
        store, client, settled = SlowStore(), Client(), []
        store.gate.set()
        for rid in ("old-1", "old-2", "old-3"):
            store.logged[rid] = "h"
            store.reads[rid] = asyncio.Event()
        group = commits(store, [])
        for rid in ("old-1", "old-2", "old-3"):
            group.answer(client, recall(rid, settled))  # type: ignore[arg-type]
        group.answer(client, "pong")  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        # Every read started while the first waits; nothing answered yet.
        assert store.reading == ["old-1", "old-2", "old-3"] and client.got == []
        store.reads["old-3"].set()
        store.reads["old-2"].set()
        for _ in range(5):
            await asyncio.sleep(0)
        assert client.got == []  # the first still reads: nothing overtakes it
        store.reads["old-1"].set()
        await group.drain()
        assert client.got == ["again old-1", "again old-2", "again old-3", "pong"]
        assert settled == ["old-1", "old-2", "old-3"]

    run_apart(body())


def test_a_recall_whose_read_outlasted_the_lease_and_every_reply_after_it_say_unavailable() -> None:
    async def body() -> None:
        valid = [True]
        store, client, lost, settled = SlowStore(), Client(), [], []
        store.gate.set()
        store.logged.update({"old": "h", "r-2": "h2"})
        store.reads["old"] = asyncio.Event()
        group = commits(store, lost, fence=lambda: valid[0])
        group.answer(client, recall("old", settled))  # type: ignore[arg-type]
        store.staged += 1
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        valid[0] = False  # the lease's local deadline passes while the row is read
        store.reads["old"].set()
        await group.drain()
        codes = [(json.loads(r)["code"], json.loads(r)["id"]) for r in client.got]
        assert codes == [("unavailable", "old"), ("unavailable", "r-2")]
        assert [type(err) for err in lost] == [LeaseEnded] and settled == ["old"]

    run_apart(body())


def test_replies_after_a_read_of_rows_landed_unheard_that_outlasted_the_lease_say_unavailable() -> (
    None
):
    async def body() -> None:
        valid = [True]
        store, client, lost, heard = SlowStore(), Client(), [], []
        store.gate.set()
        store.read_gate = asyncio.Event()
        store.logged["r-3"] = "h3"
        store.held_from = 3  # rows 1 and 2 landed unheard, and are out of memory
        store.late = [SimpleNamespace(seq=n) for n in (1, 2)]
        group = commits(store, lost, fence=lambda: valid[0], published=heard)
        start = group.head
        store.staged += 1
        group.announce(3, None, client)  # type: ignore[arg-type]
        group.answer(client, "outcome 3", ("r-3", "h3"))  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        valid[0] = False
        store.read_gate.set()
        await group.drain()
        assert [json.loads(r)["code"] for r in client.got] == ["unavailable"]
        assert heard == [] and group.head == start
        assert [type(err) for err in lost] == [LeaseEnded]

    run_apart(body())


def test_rows_landed_unheard_that_could_not_be_read_keep_head_and_go_late_with_the_next_group() -> (
    None
):
    async def body() -> None:
        store, client, heard = SlowStore(), Client(), []
        store.gate.set()
        store.read_error = OSError("connection lost")
        store.held_from = 3  # rows 1 and 2 landed unheard, and are out of memory
        group = commits(store, [], published=heard)
        store.late = [SimpleNamespace(seq=n) for n in (1, 2, 3)]
        store.staged += 1
        group.announce(3, None, client)  # type: ignore[arg-type]
        group.answer(client, "outcome 3")  # type: ignore[arg-type]
        await group.drain()
        # Its requester is answered; no listener is told row 3 before rows 1 and 2.
        assert client.got == ["outcome 3"] and heard == [] and group.head == 0
        store.read_error = None
        store.late.append(SimpleNamespace(seq=4))
        store.staged += 1
        group.announce(4, None, client)  # type: ignore[arg-type]
        group.answer(client, "outcome 4")  # type: ignore[arg-type]
        await group.drain()
        assert heard == [("late", [1, 2, 3]), ("live", [4])] and group.head == 4
        assert client.got == ["outcome 3", "outcome 4"]

    run_apart(body())


def test_a_recall_answered_while_rows_are_staged_waits_for_their_flush() -> None:
    """While a resend's row is read, another connection stages a row (maybe of the very id,
    found absent by the read): the recall's answer may rest on it, so it waits for the next
    flush, and the replies after it keep their order behind it."""

    async def body() -> None:
        store, settled = SlowStore(), []
        store.gate.set()
        sent: list[tuple[str, int]] = []

        class Watching(Client):
            def send(self, reply: str | bytes) -> None:
                sent.append((str(reply), len(store.flushed)))

        client = Watching()
        store.logged["old"] = "h"
        store.reads["old"] = asyncio.Event()
        group = commits(store, [])
        group.answer(client, recall("old", settled))  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        assert store.flushed == [0] and store.reading == ["old"]
        store.staged += 1  # decided by another connection meanwhile
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        store.reads["old"].set()
        await group.drain()
        assert sent == [("again old", 2), ("outcome 2", 2)] and store.flushed == [0, 1]

    run_apart(body())
