"""The group commit (``bridge/committing_callback.py``, the base of ``bridge/committing.py``'s
class) with a store whose flush never suspends (SQLite's commit): its groups run from a plain
callback of the event loop, not a task, with every rule of the task's: nothing told before the
flush returned, replies in the order given, a failed flush tells no outcome, a stale writer is
reported after its replies, a group that must await a read goes to the task; and at the end of a
read, the group runs at once when nothing else is ready."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from arbiter.bridge.awaiting_commit import CommitFailed, LeaseEnded, Recall
from arbiter.bridge.committing import GroupCommit
from arbiter.bridge.failures import FailureLog
from arbiter.bridge.session import commit_failed
from arbiter.bridge.stores import StaleWriter
from tests.support.apart import run_apart


@dataclass
class QuickStore:
    """Stages by counting; its flush is a plain call (``flush_now``) that fails with ``error``,
    if set. ``recall`` reads a row back only once its id's gate in ``reads`` is set."""

    staged: int = 0
    logged: dict[str, str] = field(default_factory=dict)
    flushed: list[int] = field(default_factory=list)
    error: Exception | None = None
    reads: dict[str, asyncio.Event] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.flush_now = self.commit

    def commit(self) -> None:
        taken, self.staged = self.staged, 0
        if self.error is not None:
            raise self.error
        self.flushed.append(taken)

    async def flush(self) -> None:
        self.commit()

    @property
    def pending(self) -> bool:
        return self.staged > 0

    async def recall(self, request_id: str) -> object | None:
        gate = self.reads.get(request_id)
        if gate is not None:
            await gate.wait()
        return self.find(request_id)

    def find(self, request_id: str) -> object | None:
        found = self.logged.get(request_id)
        return None if found is None else SimpleNamespace(hash=found)

    def count(self) -> int:
        return len(self.logged)

    def cached_from(self) -> int:
        return 1


class Client:
    """A session's outbox: each reply with the flushes done when it left."""

    def __init__(self, store: QuickStore) -> None:
        self.outbox = self
        self.store = store
        self.got: list[tuple[str, int]] = []

    def send(self, reply: str | bytes) -> None:
        self.got.append((str(reply), len(self.store.flushed)))


def commits(store: QuickStore, lost: list[StaleWriter], fence: Any = None) -> GroupCommit:
    return GroupCommit(
        store,  # type: ignore[arg-type]
        FailureLog(logging.getLogger("test")),
        lambda events: None,
        lost.append,
        commit_failed,
        fence=fence,
    )


def no_commit_task() -> bool:
    return all(task.get_name() != "group-commit" for task in asyncio.all_tasks())


def test_the_replies_of_a_turn_leave_in_order_after_one_flush_run_from_a_callback() -> None:
    async def body() -> None:
        store = QuickStore()
        client, group = Client(store), commits(store, [])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "pong")  # type: ignore[arg-type]
        store.staged += 1
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        assert client.got == [] and no_commit_task()
        await asyncio.sleep(0)
        assert client.got == [("outcome 1", 1), ("pong", 1), ("outcome 2", 1)]
        assert store.flushed == [2]
        group.answer(client, "pong 2")  # type: ignore[arg-type]
        assert client.got[-1] == ("pong 2", 1)  # nothing staged nor scheduled: at once

    run_apart(body())


def test_a_failed_plain_flush_tells_no_outcome_fails_its_waiters_and_reports_a_stale_writer() -> (
    None
):
    async def body() -> None:
        stale = StaleWriter("world 'w' moved")
        store, lost = QuickStore(error=stale), []
        client, group = Client(store), commits(store, lost)
        store.staged += 1
        waiting = asyncio.create_task(group.committed())
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        with pytest.raises(CommitFailed):
            await waiting
        [(reply, _)] = client.got
        assert json.loads(reply)["code"] == "unavailable" and json.loads(reply)["id"] == "r-1"
        assert lost == [stale] and no_commit_task()

    run_apart(body())


def test_nothing_is_flushed_by_the_callback_once_the_lease_is_not_valid() -> None:
    async def body() -> None:
        store, lost = QuickStore(), []
        client, group = Client(store), commits(store, lost, fence=lambda: False)
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        assert store.flushed == [] and store.staged == 1
        assert json.loads(client.got[0][0])["code"] == "unavailable"
        assert [type(err) for err in lost] == [LeaseEnded]

    run_apart(body())


def test_a_group_holding_a_recall_goes_to_the_task_which_answers_it_after_its_read() -> None:
    async def body() -> None:
        store, settled = QuickStore(), []
        store.logged["old"] = "h"
        store.reads["old"] = asyncio.Event()
        client, group = Client(store), commits(store, [])
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(  # type: ignore[arg-type]
            client,
            Recall("old", lambda: ("again old", ("old", "h"), None), lambda: settled.append(1)),
        )
        group.answer(client, "pong")  # type: ignore[arg-type]
        for _ in range(5):
            await asyncio.sleep(0)
        assert not no_commit_task()  # the task awaits the read
        assert client.got == [("outcome 1", 1)]  # the replies before the recall have left
        store.reads["old"].set()
        await group.drain()
        assert client.got == [("outcome 1", 1), ("again old", 1), ("pong", 1)] and settled
        store.staged += 1
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        assert no_commit_task()  # the next group is the callback's again
        await group.drain()
        assert client.got[-1] == ("outcome 2", 2)

    run_apart(body())


def test_a_read_that_ends_with_nothing_else_ready_has_its_group_committed_and_answered_at_once() -> (
    None
):
    async def body() -> None:
        loop = asyncio.get_running_loop()
        store = QuickStore()
        client, group = Client(store), commits(store, [])
        ended: asyncio.Future[list[tuple[str, int]]] = loop.create_future()

        runs: list[int] = []
        run_now = group._run_now

        def counted() -> None:
            runs.append(1)
            run_now()

        group._run_now = counted  # type: ignore[method-assign]
        handles: list[asyncio.Handle | None] = []

        def read() -> None:  # a connection's data_received
            store.staged += 1
            group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
            handles.append(group._handle)
            group.read_done()
            ended.set_result(list(client.got))

        loop.call_soon(read)
        assert await ended == [("outcome 1", 1)]
        await asyncio.sleep(0)  # the group's handle, had it stayed queued, would run here
        assert store.flushed == [1] and runs == [1]
        [handle] = handles
        assert handle is not None and handle not in loop._ready  # type: ignore[attr-defined]

    run_apart(body())


def test_a_read_that_ends_with_other_callbacks_ready_leaves_its_group_to_run_after_them() -> None:
    async def body() -> None:
        loop = asyncio.get_running_loop()
        store = QuickStore()
        client, group = Client(store), commits(store, [])
        order: list[str] = []
        done: asyncio.Future[None] = loop.create_future()

        def other() -> None:  # another connection's read, ready in the same turn
            order.append(f"other, {len(client.got)} sent")
            store.staged += 1
            group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
            group.read_done()
            order.append(f"other ended, {len(client.got)} sent")

        def read() -> None:
            loop.call_soon(other)
            store.staged += 1
            group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
            group.read_done()
            order.append(f"read ended, {len(client.got)} sent")
            loop.call_soon(done.set_result, None)

        loop.call_soon(read)
        await done
        await group.drain()
        # The group's callback was queued behind ``other``: it ran after it, one flush for both.
        assert order == ["read ended, 0 sent", "other, 0 sent", "other ended, 0 sent"]
        assert client.got == [("outcome 1", 1), ("outcome 2", 1)] and store.flushed == [2]

    run_apart(body())


def test_a_callback_another_thread_queues_while_a_read_ends_stays_queued_and_the_group_runs_once() -> (
    None
):
    async def body() -> None:
        loop = asyncio.get_running_loop()
        store = QuickStore()
        client, group = Client(store), commits(store, [])
        woken = loop.call_soon(lambda: None)  # a worker thread's call_soon_threadsafe
        woken.cancel()

        class Racing(deque[asyncio.Handle]):
            def __getitem__(self, at: Any) -> Any:
                # The thread lands right after read_done found its group's handle alone.
                found = super().__getitem__(at)
                if woken not in self:
                    self.append(woken)
                return found

        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        handle = group._handle
        assert handle is not None
        handle.cancel()  # the loop's own queue keeps it: only ``ready`` below may run it
        ready = Racing([handle])
        group._ready = ready
        group.read_done()
        assert list(ready) == [woken]
        assert client.got == [("outcome 1", 1)] and store.flushed == [1]

    run_apart(body())


def test_events_go_after_the_plain_flush_and_never_for_a_failed_one() -> None:
    async def body() -> None:
        store, published = QuickStore(), []
        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            lambda events: published.append((len(events), len(store.flushed))),
            [].append,
            commit_failed,
        )
        client = Client(store)
        store.staged += 1
        group.announce(1, "o1", client, ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        assert published == [(1, 1)]  # one event, after the first flush returned
        store.error = OSError("disk full")
        store.staged += 1
        group.announce(2, "o2", client, ("r-2", "h2"))  # type: ignore[arg-type]
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        await group.drain()
        assert published == [(1, 1)] and group.head == 1

    run_apart(body())


def test_rows_without_a_live_event_are_published_late_before_a_callback_groups_events() -> None:
    async def body() -> None:
        class Store(QuickStore):
            def rolls(self, after: int = 0) -> list[SimpleNamespace]:
                return [SimpleNamespace(seq=3)] if after < 3 else []

        store, said = Store(), []
        store.logged.update({"a": "1", "b": "2"})  # head starts at row 2; row 3 landed unheard
        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            lambda events: said.append(("live", [seq for seq, _, _ in events])),
            [].append,
            commit_failed,
            publish_late=lambda rows: said.append(("late", [row.seq for row in rows])),
        )
        client = Client(store)
        store.staged += 1
        group.announce(4, "o4", client, ("r-4", "h4"))  # type: ignore[arg-type]
        group.answer(client, "outcome 4", ("r-4", "h4"))  # type: ignore[arg-type]
        await group.drain()
        assert said == [("late", [3]), ("live", [4])] and group.head == 4

    run_apart(body())


def test_an_answer_given_while_a_callback_group_sends_its_replies_goes_after_them() -> None:
    async def body() -> None:
        store = QuickStore()
        group = commits(store, [])

        class Reentrant(Client):
            def send(self, reply: str | bytes) -> None:
                super().send(reply)
                if reply == "outcome 1":
                    group.answer(self, "pong")  # type: ignore[arg-type]

        client = Reentrant(store)
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "outcome 2", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        assert [reply for reply, _ in client.got] == ["outcome 1", "outcome 2", "pong"]

    run_apart(body())


def test_a_group_given_while_the_task_awaits_a_read_waits_behind_it() -> None:
    async def body() -> None:
        store = QuickStore()
        store.logged["old"] = "h"
        store.reads["old"] = asyncio.Event()
        client, group = Client(store), commits(store, [])
        group.answer(  # type: ignore[arg-type]
            client, Recall("old", lambda: ("again old", ("old", "h"), None), lambda: None)
        )
        for _ in range(3):
            await asyncio.sleep(0)
        assert not no_commit_task()  # handed to the task, which awaits the read
        store.staged += 1
        group.answer(client, "outcome 2", ("r-2", "h2"))  # type: ignore[arg-type]
        group.read_done()
        for _ in range(3):
            await asyncio.sleep(0)
        assert client.got == []  # behind the recall, not run by a callback of its own
        store.reads["old"].set()
        await group.drain()
        assert [reply for reply, _ in client.got] == ["again old", "outcome 2"]
        store.staged += 1
        group.answer(client, "outcome 3", ("r-3", "h3"))  # type: ignore[arg-type]
        assert no_commit_task()  # back to the callback
        await group.drain()
        assert client.got[-1] == ("outcome 3", 3)

    run_apart(body())


def test_a_recall_the_task_answered_leaves_the_next_group_to_the_callback() -> None:
    async def body() -> None:
        store = QuickStore()
        store.logged.update({"old": "h", "older": "g"})
        store.reads["old"] = asyncio.Event()
        client, group = Client(store), commits(store, [])
        group.answer(  # type: ignore[arg-type]
            client, Recall("old", lambda: ("again old", ("old", "h"), None), lambda: None)
        )
        for _ in range(3):
            await asyncio.sleep(0)
        assert not no_commit_task()  # the task awaits the read
        group.answer(  # type: ignore[arg-type]
            client, Recall("older", lambda: ("again older", ("older", "g"), None), lambda: None)
        )
        store.reads["old"].set()
        await group.drain()
        assert [reply for reply, _ in client.got] == ["again old", "again older"]
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        assert client.got[-1][0] == "outcome 1" and no_commit_task()

    run_apart(body())


def test_a_task_that_could_not_be_started_leaves_the_next_group_to_start_one() -> None:
    async def body() -> None:
        loop = asyncio.get_running_loop()
        store = QuickStore()
        store.flush_now = None  # a flush awaited by the task
        client, group = Client(store), commits(store, [])

        def refused(*args: Any, **kwargs: Any) -> asyncio.Task[None]:
            raise RuntimeError("no task now")

        loop.create_task = refused  # type: ignore[method-assign]
        store.staged += 1
        with pytest.raises(RuntimeError):
            group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        del loop.create_task
        group.answer(client, "outcome 2", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        assert client.got == [("outcome 1", 1), ("outcome 2", 1)]

    run_apart(body())


@pytest.mark.parametrize("plain", [True, False], ids=["callback", "task"])
def test_a_publish_or_a_send_that_raises_costs_the_rest_of_the_group_nothing(plain: bool) -> None:
    async def body() -> None:
        store = QuickStore()
        if not plain:
            store.flush_now = None  # a flush awaited by the task

        def broken(events: object) -> None:
            raise RuntimeError("a listener's bug")

        group = GroupCommit(
            store,  # type: ignore[arg-type]
            FailureLog(logging.getLogger("test")),
            broken,
            [].append,
            commit_failed,
        )

        class Broken(Client):
            def send(self, reply: str | bytes) -> None:
                raise RuntimeError("a session's bug")

        client, other = Client(store), Broken(store)
        store.staged += 1
        waiting = asyncio.create_task(group.committed())
        group.announce(1, "o1", client, ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(other, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "pong")  # type: ignore[arg-type]
        await waiting
        assert client.got == [("pong", 1)] and group.head == 1

    run_apart(body())


def test_committed_asked_while_a_callback_group_sends_its_replies_waits_for_the_group() -> None:
    async def body() -> None:
        store = QuickStore()
        group = commits(store, [])
        returned: list[bool] = []

        class Asking(Client):
            def send(self, reply: str | bytes) -> None:
                super().send(reply)
                if reply == "outcome 1":
                    # committed()'s first step, as a task started here would take it
                    step = group.committed()
                    try:
                        step.send(None)
                    except StopIteration:
                        returned.append(True)
                    else:
                        returned.append(False)
                    step.close()

        client = Asking(store)
        store.staged += 1
        group.answer(client, "outcome 1", ("r-1", "h1"))  # type: ignore[arg-type]
        group.answer(client, "outcome 2", ("r-1", "h1"))  # type: ignore[arg-type]
        await group.drain()
        # It waited, as it waits while the task runs a group: outcome 2 had not left yet.
        assert returned == [False]
        assert [reply for reply, _ in client.got] == ["outcome 1", "outcome 2"]

    run_apart(body())


def test_a_group_commit_moved_to_another_event_loop_queues_its_groups_on_that_loop() -> None:
    """The callback is queued on the loop its group is given on (one handle, queued again for
    every group): a group given on a later loop, the first one closed, still runs there."""
    store = QuickStore()
    client, group = Client(store), commits(store, [])

    async def turn(reply: str) -> None:
        store.staged += 1
        group.answer(client, reply, (reply, "h"))  # type: ignore[arg-type]
        assert client.got[-1:] != [(reply, len(store.flushed))]  # it waits for its flush
        await asyncio.sleep(0)  # the callback, queued on this loop, runs
        assert client.got[-1] == (reply, len(store.flushed))

    run_apart(turn("outcome 1"))
    run_apart(turn("outcome 2"))
    assert client.got == [("outcome 1", 1), ("outcome 2", 2)] and store.flushed == [1, 1]
