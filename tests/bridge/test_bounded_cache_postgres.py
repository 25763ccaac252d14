"""A PostgreSQL world whose cache holds only its 10 most recent rows whole (docs/scaling.md, "A
cache bounded in size"), served over real websockets on loopback by a real server on the
session's real PostgreSQL: the resend of an id whose row is no longer in memory is answered the
stored outcome, byte for byte, in its turn, and logs nothing; a gap replay from seq 0 over 200
rows is exact; a read the database does not answer says ``unavailable`` and the retry gets the
stored outcome; a storm of old and new ids, resent over two connections, leaves one row each."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from websockets.sync.client import ClientConnection

import arbiter.bridge.stores.postgres as postgres_store
import arbiter.bridge.stores.request_index as request_index
from arbiter.bridge.limits import Limits
from arbiter.bridge.session import ClientSession
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.world import PostgresWorld
from tests.bridge.support import (
    Running,
    bundled_config,
    bundled_request,
    receive,
    request,
    running,
    send,
    tiny_config,
)
from tests.support.apart import run_apart
from tests.support.postgres import Cluster
from tests.support.rolls import new_roll

FAST = Limits(rate_per_second=100_000, burst=100_000, auth_timeout_seconds=2.0)


@pytest.fixture
def srv(
    postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Running]:
    """A server of one PostgreSQL world whose store holds 10 rows whole (``--cache-rows 10``)."""
    monkeypatch.setattr(postgres_store, "_default_cache_rows", 10)
    config = bundled_config(tmp_path, limits=FAST, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as server:
        assert isinstance(server.server.store, PostgresStore)
        assert server.server.store.cache_rows == 10
        yield server


def replies(ws: ClientConnection, messages: list[dict[str, Any]]) -> list[str]:
    """Send every message at once (pipelined), then read as many replies, as sent (text)."""
    for message in messages:
        send(ws, message)
    return [str(ws.recv(10)) for _ in messages]


def decided(ws: ClientConnection, prefix: str, count: int) -> list[dict[str, Any]]:
    answers = [
        json.loads(r) for r in replies(ws, [bundled_request(f"{prefix}{n}") for n in range(count)])
    ]
    assert all(a["type"] == "outcome" and a["replayed"] is False for a in answers), answers[:3]
    return answers


def logged(dsn: str) -> dict[str, int]:
    """How many rows each request id has in the world's log."""
    with psycopg.connect(dsn) as db:
        found = db.execute("SELECT request_id, count(*) FROM rolls GROUP BY request_id")
        return {rid: int(n) for rid, n in found.fetchall()}


def test_a_resend_of_an_id_no_longer_cached_gets_its_stored_outcome_byte_for_byte_in_its_turn(
    srv: Running, postgres_database: str
) -> None:
    ws, _ = srv.hello(events=[])
    first = replies(ws, [bundled_request("old")])[0]
    from_cache = replies(ws, [bundled_request("old")])[0]  # resent while its row is held
    assert json.loads(from_cache)["replayed"] is True
    decided(ws, "r-", 200)
    store = srv.server.store
    assert isinstance(store, PostgresStore)
    assert len(store._committed.rolls) == 10 and "old" not in store._committed.by_request
    # Pipelined: the resend (its row read back from the database), a new request, a ping.
    again, new, pong = replies(
        ws, [bundled_request("old"), bundled_request("new"), {"v": 1, "type": "ping", "id": "p"}]
    )
    assert again == from_cache
    assert {**json.loads(first), "replayed": True} == json.loads(again)
    assert json.loads(new)["type"] == "outcome" and json.loads(new)["replayed"] is False
    assert json.loads(pong) == {"v": 1, "type": "pong", "id": "p"}
    ws.close()
    counts = logged(postgres_database)
    assert counts["old"] == 1 and len(counts) == 202 and set(counts.values()) == {1}


def test_a_gap_replay_from_seq_0_over_200_rows_with_a_10_row_cache_is_exact(
    srv: Running,
) -> None:
    ws, _ = srv.hello(events=[])
    answers = decided(ws, "r-", 200)
    listener, _ = srv.hello(events=["outcome"], since=0)
    replayed = [receive(listener) for _ in range(200)]
    assert [e["seq"] for e in replayed] == list(range(1, 201))
    assert all(e["replayed"] is True for e in replayed)
    assert [e["outcome"] for e in replayed] == [a["outcome"] for a in answers]
    live = decided(ws, "live-", 1)[0]
    heard = receive(listener)
    assert heard["seq"] == live["seq"] == 201 and heard.get("replayed") is not True
    listener.close()
    ws.close()


def held_reads(cluster: Cluster, dsn: str) -> psycopg.Connection[Any]:
    """A connection holding the world's rows locked: every read of them waits."""
    holder = psycopg.connect(dsn)
    holder.execute("LOCK TABLE rolls IN ACCESS EXCLUSIVE MODE")
    return holder


def test_a_read_back_the_database_ends_answers_unavailable_and_the_retry_gets_the_stored_outcome(
    srv: Running, postgres: Cluster, postgres_database: str
) -> None:
    ws, _ = srv.hello(events=[])
    first = json.loads(replies(ws, [bundled_request("old")])[0])
    decided(ws, "r-", 30)
    store = srv.server.store
    assert isinstance(store, PostgresStore) and store.backend_pid is not None
    pid = store.backend_pid
    holder = held_reads(postgres, postgres_database)
    try:
        send(ws, bundled_request("old"))
        # The store's read of row 1 waits for the lock; its backend is ended there.
        postgres.wait_event(pid, "relation")
        postgres.terminate(pid)
    finally:
        holder.rollback()
        holder.close()
    refused = receive(ws)
    assert refused["type"] == "error" and refused["code"] == "unavailable"
    assert refused["id"] == "old" and "outcome" not in refused
    again = receive_one(ws, bundled_request("old"))
    assert again == {**first, "replayed": True}
    # A gap replay whose read the database ends: unavailable, then live; the retry is exact.
    holder = held_reads(postgres, postgres_database)
    try:
        listener = srv.connect()
        send(listener, {"v": 1, "type": "hello", "token": srv.server.secret,
                        "client": {"name": "t"}, "events": ["outcome"], "since": 0})  # fmt: skip
        pid = store.backend_pid
        assert pid is not None
        postgres.wait_event(pid, "relation")
        postgres.terminate(pid)
    finally:
        holder.rollback()
        holder.close()
    assert receive(listener)["type"] == "welcome"
    gap = receive(listener)
    assert gap["type"] == "error" and gap["code"] == "unavailable" and gap["id"] is None
    listener.close()
    retry, _ = srv.hello(events=["outcome"], since=0)
    assert [receive(retry)["seq"] for _ in range(31)] == list(range(1, 32))
    retry.close()
    ws.close()
    assert logged(postgres_database)["old"] == 1


def receive_one(ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    send(ws, message)
    return receive(ws)


def test_a_retry_storm_of_old_ids_mixed_with_new_ones_decides_each_id_once(
    srv: Running, postgres_database: str
) -> None:
    ws, _ = srv.hello(events=[])
    old = {a["outcome"]["id"]: a for a in decided(ws, "r-", 100)}
    storm = [f"r-{n}" for n in range(0, 100, 3)] + [f"n-{n}" for n in range(40)]
    heard: dict[str, list[dict[str, Any]]] = {}
    refused: list[dict[str, Any]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def client(order: list[str]) -> None:
        try:
            conn, _ = srv.hello(events=[])
            for text in replies(conn, [bundled_request(rid) for rid in order * 2]):
                answer = json.loads(text)
                rid = answer["outcome"]["id"] if answer["type"] == "outcome" else answer["id"]
                if answer["type"] == "error" and answer["code"] == "rate_limited":
                    # Too many rows read back at once for one connection (an old id's, or a new
                    # id's own once the 10-row cache let it go): refused, nothing decided; sent
                    # alone again, it is answered.
                    with lock:
                        refused.append(answer)
                    answer = receive_one(conn, bundled_request(rid))
                with lock:
                    heard.setdefault(rid, []).append(answer)
            conn.close()
        except BaseException as err:  # told to the test's thread below
            with lock:
                failures.append(err)

    orders = [storm, storm[::-1], storm[1::2] + storm[::2]]
    threads = [threading.Thread(target=client, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    ws.close()
    assert failures == []
    assert all(r["retry_after"] > 0 for r in refused), refused
    assert set(heard) == set(storm)
    for rid, answers in heard.items():
        assert all(a["type"] == "outcome" for a in answers), answers
        assert len({(a["seq"], json.dumps(a["outcome"], sort_keys=True)) for a in answers}) == 1
        if rid in old:
            assert (
                answers[0]["seq"] == old[rid]["seq"]
                and answers[0]["outcome"] == old[rid]["outcome"]
            )
            assert all(a["replayed"] for a in answers)
        else:
            assert sum(not a["replayed"] for a in answers) == 1
    counts = logged(postgres_database)
    assert len(counts) == 140 and set(counts.values()) == {1}


@pytest.fixture
def tiny_srv(
    tiny_engine: None, postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Running]:
    """The tiny ruleset (private entries per participant) in a world holding 10 rows whole."""
    monkeypatch.setattr(postgres_store, "_default_cache_rows", 10)
    config = tiny_config(tmp_path, limits=FAST, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as server:
        yield server


def test_a_hostile_player_resending_and_replaying_rows_no_longer_cached_sees_only_his_view(
    tiny_srv: Running,
) -> None:
    """Ann plays devon. Once the rows are out of memory she resends her own id, the GM's id, and
    asks for every row since 0: she gets exactly what she got while they were cached (her own
    private entries only; the GM's id refused as another's, the soldier's secret never)."""
    srv = tiny_srv
    token = srv.player("ann", "devon")
    assert token is not None
    gm, _ = srv.hello(events=[])
    ann, _ = srv.hello(token=token, events=["outcome"])
    mine = request("mine", "secret", {"owner": "devon"})
    theirs = request("theirs", "secret", {"owner": "soldier"})
    first = replies(ann, [mine])[0]
    assert json.loads(first)["type"] == "outcome", first
    replies(gm, [theirs])
    receive(ann)  # the GM's row, live, in ann's view
    # The GM's id, sent by ann with a body she may send: not hers to compare.
    guess = request("theirs", "secret", {"owner": "devon"})
    while_cached = replies(ann, [mine, guess])
    listener, _ = srv.hello(token=token, events=["outcome"], since=0)
    replayed_cached = [listener.recv(5) for _ in range(2)]
    listener.close()
    for text in replies(gm, [request(f"r-{n}") for n in range(20)]):
        assert json.loads(text)["type"] == "outcome"
    for _ in range(20):
        receive(ann)
    store = srv.server.store
    assert isinstance(store, PostgresStore) and store.cached_from() == 13
    assert replies(ann, [mine, guess]) == while_cached
    assert json.loads(while_cached[1])["code"] == "id_conflict"
    listener, _ = srv.hello(token=token, events=["outcome"], since=0)
    assert [listener.recv(5) for _ in range(2)] == replayed_cached
    assert (
        "soldier" not in replayed_cached[1]
        and json.loads(replayed_cached[1])["outcome"]["private"] == {}
    )
    listener.close()
    ann.close()
    gm.close()


def test_a_new_id_whose_digest_matches_a_logged_one_is_decided_once_and_told_after_its_commit(
    postgres: Cluster, postgres_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every digest the same (a collision, all but impossible with a keyed 64-bit digest): each
    new id is "maybe logged", read for, found absent, then decided in its reply's turn; its
    outcome is sent only once its row is committed, in order with the replies after it."""
    monkeypatch.setattr(request_index, "digest", lambda request_id: 0)
    monkeypatch.setattr(postgres_store, "_default_cache_rows", 10)

    async def earlier_rows() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        for n in range(30):
            store.stage(new_roll(f"earlier-{n}"))
        await store.flush()
        await store.close()

    run_apart(earlier_rows())
    config = bundled_config(tmp_path, limits=FAST, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        store = srv.server.store
        assert isinstance(store, PostgresStore)
        # The world's head row held: the commit of "fresh" waits for it, and nothing is told.
        holder = psycopg.connect(postgres_database)
        holder.execute("SELECT 1 FROM worlds WHERE id = 'w' FOR UPDATE")
        try:
            send(ws, bundled_request("fresh"))
            pid = store.backend_pid
            assert pid is not None
            postgres.wait_event(pid, "transactionid")
            with pytest.raises(TimeoutError):
                ws.recv(0)  # decided and staged, its commit in flight: not told
            assert "fresh" not in logged(postgres_database)
        finally:
            holder.rollback()
            holder.close()
        fresh = str(ws.recv(10))
        assert logged(postgres_database)["fresh"] == 1
        again, pong = replies(ws, [bundled_request("fresh"), {"v": 1, "type": "ping", "id": "p"}])
        ws.close()
    first = json.loads(fresh)
    assert first["type"] == "outcome" and first["replayed"] is False and first["seq"] == 31
    assert json.loads(again) == {**first, "replayed": True}
    assert json.loads(pong)["type"] == "pong"
    assert logged(postgres_database)["fresh"] == 1


def test_a_player_pipelining_resends_of_old_ids_gets_8_read_back_at_once_and_the_rest_refused(
    srv: Running, postgres: Cluster, postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each resend of an id no longer cached holds the world's replies until its row is read
    back: one connection may have 8 such reads outstanding; the 9th and after are refused
    ``rate_limited`` (nothing decided, nothing logged), in their turn, and sent alone again they
    get their stored outcomes. Another connection's new request is answered all the same."""
    handled: list[str] = []
    receive_frame = ClientSession.receive

    def counted(session: ClientSession, frame: str | bytes) -> None:
        receive_frame(session, frame)
        handled.append(session.id)

    monkeypatch.setattr(ClientSession, "receive", counted)
    ws, _ = srv.hello(events=[])
    old = {a["outcome"]["id"]: a for a in decided(ws, "r-", 40)}
    other, _ = srv.hello(events=[])
    store = srv.server.store
    assert isinstance(store, PostgresStore) and store.backend_pid is not None
    before = len(handled)
    holder = held_reads(postgres, postgres_database)
    try:
        for n in range(20):
            send(ws, bundled_request(f"r-{n}"))
        send(ws, {"v": 1, "type": "ping", "id": "p"})
        send(other, bundled_request("new"))
        postgres.wait_event(store.backend_pid, "relation")  # the first read waits for the lock
        while len(handled) < before + 22:  # every message taken in while the reads wait
            threading.Event().wait(0.01)
    finally:
        holder.rollback()
        holder.close()
    answers = [receive(ws) for _ in range(21)]
    for n, answer in enumerate(answers[:8]):
        assert answer == {**old[f"r-{n}"], "replayed": True}
    for n, answer in enumerate(answers[8:20], start=8):
        assert answer["type"] == "error" and answer["code"] == "rate_limited", answer
        assert answer["id"] == f"r-{n}" and answer["retry_after"] == 0.05
    assert answers[20] == {"v": 1, "type": "pong", "id": "p"}
    new = receive(other)
    assert new["type"] == "outcome" and new["replayed"] is False
    for n in range(8, 20):
        assert receive_one(ws, bundled_request(f"r-{n}")) == {**old[f"r-{n}"], "replayed": True}
    ws.close()
    other.close()
    counts = logged(postgres_database)
    assert len(counts) == 41 and set(counts.values()) == {1}
