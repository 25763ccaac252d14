"""``arbiter serve`` on a world in PostgreSQL (``--store postgresql://… --world ID``), on a real
PostgreSQL and real websockets on loopback: a bundled-ruleset request decided and logged, its
retry answered with the stored outcome by the next server, the session's seed row committed
before ``welcome``, ``arbiter log``/``reveal``/``replay --from-log`` reading the world; a failed flush sends no
outcome and the retried id leaves one row; a server whose world another writer moved stops
serving it (close 4009); a commit that landed although its connection broke (a synchronous
standby held away) answers its outcome."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from arbiter.bridge.cli import main
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.world import PostgresWorld
from tests.bridge.support import bundled_config, bundled_request, receive, running, send
from tests.support.apart import run_apart
from tests.support.rolls import new_roll

if TYPE_CHECKING:
    from tests.support.postgres import Cluster, Replicated


def url(cluster: Cluster, dsn: str) -> str:
    """The URL ``--store`` takes for the database of ``dsn`` (a keyword string)."""
    words = dict(word.split("=", 1) for word in dsn.split())
    return f"postgresql://{words['user']}@{words['host']}:{words['port']}/{words['dbname']}"


def rows(dsn: str, request_id: str) -> int:
    with psycopg.connect(dsn) as db:
        found = db.execute("SELECT count(*) FROM rolls WHERE request_id = %s", (request_id,))
        return int(found.fetchone()[0])  # type: ignore[index]


def test_a_postgresql_world_decides_answers_a_retry_from_the_log_after_a_restart_and_reveals(
    postgres: Cluster, postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = bundled_config(tmp_path, postgres=PostgresWorld(postgres_database, "table-1"))
    with running(config) as srv:
        ws, welcome = srv.hello(events=[])
        session = welcome["session"]
        # The seed row the welcome commits to is durable before the welcome is sent.
        with psycopg.connect(postgres_database) as db:
            seed = db.execute(
                "SELECT commitment FROM sessions WHERE world = 'table-1' AND id = %s", (session,)
            ).fetchone()
        assert seed == (welcome["commitment"],)
        send(ws, bundled_request("r-1"))
        decided = receive(ws)
        assert decided["type"] == "outcome" and decided["replayed"] is False
        ws.close()
    assert rows(postgres_database, "r-1") == 1
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        send(ws, bundled_request("r-1"))
        again = receive(ws)
        ws.close()
    assert again["replayed"] is True and again["seq"] == decided["seq"]
    assert again["outcome"] == decided["outcome"]
    assert rows(postgres_database, "r-1") == 1
    store = ["--store", url(postgres, postgres_database), "--world", "table-1"]
    capsys.readouterr()
    assert main(["log", "--verify", *store]) == 0
    assert "1 rows, hash chain intact" in capsys.readouterr().out
    assert main(["reveal", session, *store]) == 0
    revealed = json.loads(capsys.readouterr().out)
    assert revealed["verified"] is True and revealed["rolls"] == 1
    assert main(["replay", "--from-log", *store]) == 0
    assert "1 rows re-derived: 1 identical, 0 mismatched" in capsys.readouterr().out
    assert main(["log", *store[:2], "--world", "no-such-world"]) == 2
    assert "no world 'no-such-world'" in capsys.readouterr().err


def test_a_request_whose_flush_fails_gets_no_outcome_and_its_retry_leaves_one_row(
    postgres: Cluster, postgres_database: str, tmp_path: Path
) -> None:
    config = bundled_config(tmp_path, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        store = srv.server.store
        assert isinstance(store, PostgresStore) and store.backend_pid is not None
        # The store's backend ends (an administrator, a crashed backend): the next flush fails.
        postgres.terminate(store.backend_pid)
        send(ws, bundled_request("r-2"))
        failed = receive(ws)
        assert failed["type"] == "error" and failed["code"] == "unavailable"
        assert failed["id"] == "r-2" and "outcome" not in failed
        assert rows(postgres_database, "r-2") == 0
        send(ws, bundled_request("r-2"))
        retried = receive(ws)
        assert retried["type"] == "outcome" and retried["replayed"] is False
        send(ws, bundled_request("r-2"))
        assert receive(ws)["replayed"] is True
        ws.close()
    assert rows(postgres_database, "r-2") == 1


def test_a_server_whose_world_another_writer_moved_answers_nothing_and_closes_with_4009(
    postgres_database: str, tmp_path: Path
) -> None:
    config = bundled_config(tmp_path, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as srv:
        ws, _ = srv.hello(events=[])

        async def another_writer() -> None:
            other = await PostgresStore.open(postgres_database, "w")
            other.stage(new_roll("theirs"))
            await other.flush()
            await other.close()

        run_apart(another_writer())
        send(ws, bundled_request("r-3"))
        refused = receive(ws)
        assert refused["type"] == "error" and refused["code"] == "unavailable"
        with pytest.raises(ConnectionClosed) as closed:
            receive(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4009
        assert "no longer owns the world" in closed.value.rcvd.reason
        assert srv.server.lost.is_set()
        # A new connection is refused the same way: the world is not served here any more.
        late = srv.connect()
        with pytest.raises(ConnectionClosed) as refused_late:
            receive(late)
        assert refused_late.value.rcvd is not None and refused_late.value.rcvd.code == 4009
    assert rows(postgres_database, "r-3") == 0 and rows(postgres_database, "theirs") == 1


def test_a_request_id_holding_a_nul_is_refused_alone_and_the_connection_goes_on(
    postgres_database: str, tmp_path: Path
) -> None:
    config = bundled_config(tmp_path, postgres=PostgresWorld(postgres_database, "w"))
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        send(ws, bundled_request("bad\u0000id"))
        send(ws, bundled_request("good"))
        refused, decided = receive(ws), receive(ws)
        ws.close()
    assert refused["type"] == "error" and refused["code"] == "invalid_message"
    assert refused["id"] == "bad\u0000id" and "NUL" in refused["message"]
    assert decided["type"] == "outcome" and decided["outcome"]["id"] == "good"
    assert rows(postgres_database, "good") == 1


def test_a_request_whose_commit_landed_although_its_connection_broke_gets_its_outcome(
    replicated_postgres: Replicated, tmp_path: Path
) -> None:
    primary = replicated_postgres.primary
    config = bundled_config(tmp_path, postgres=PostgresWorld(primary.dsn(), "w"))
    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        # Another client, connected throughout, listening to outcome events.
        listener, _ = srv.hello(events=["outcome"])
        store = srv.server.store
        assert isinstance(store, PostgresStore)
        with replicated_postgres.standby_away():
            send(ws, bundled_request("r-4"))
            pid = store.backend_pid
            assert pid is not None
            # COMMIT waits for the absent standby; its backend is ended there: the server
            # hears an error about a row that is committed, and finds it by reloading.
            primary.wait_event(pid, "SyncRep")
            primary.terminate(pid)
            landed = receive(ws)
        assert landed["type"] == "outcome" and landed["replayed"] is False
        # The listener is told of the row as of any committed one (it would never be
        # replayed it: it saw no gap).
        event = receive(listener)
        assert event["event"] == "outcome" and event["seq"] == landed["seq"]
        assert event["outcome"]["id"] == "r-4"
        send(ws, bundled_request("r-4"))
        again = receive(ws)
        ws.close()
        listener.close()
    assert again["replayed"] is True and again["seq"] == landed["seq"]
    assert rows(primary.dsn(), "r-4") == 1


def test_a_request_whose_commit_landed_unheard_and_unconfirmed_is_retried_into_its_one_row(
    replicated_postgres: Replicated, tmp_path: Path
) -> None:
    primary = replicated_postgres.primary
    dsn = primary.create_database("unheard")
    config = bundled_config(tmp_path, postgres=PostgresWorld(dsn, "w"))

    def connections(allowed: bool) -> None:
        # Committed locally: the standby is away, and this must not wait for it.
        with primary.connect() as admin:
            admin.execute("SET synchronous_commit = local")
            admin.execute(f"ALTER DATABASE unheard ALLOW_CONNECTIONS {str(allowed).lower()}")

    with running(config) as srv:
        ws, _ = srv.hello(events=[])
        # Another client, connected throughout, listening to outcome events.
        listener, _ = srv.hello(events=["outcome"])
        store = srv.server.store
        assert isinstance(store, PostgresStore)
        with replicated_postgres.standby_away():
            send(ws, bundled_request("r-5"))
            pid = store.backend_pid
            assert pid is not None
            primary.wait_event(pid, "SyncRep")  # the flush is in its COMMIT
            # The backend ends there, and the database refuses the store's reload: the
            # server cannot learn that the row landed, so it tells nothing.
            connections(allowed=False)
            primary.terminate(pid)
            unheard = receive(ws)
            assert unheard["type"] == "error" and unheard["code"] == "unavailable"
            send(ws, bundled_request("r-5"))  # still unreachable: decided, not committed
            assert receive(ws)["code"] == "unavailable"
            connections(allowed=True)
            assert rows(dsn, "r-5") == 1  # the COMMIT the server never heard of landed
            # The next flush reloads first: the retry staged on the old head is dropped
            # (unavailable once more, at most); then the id is answered from the landed row.
            retries = []
            for _ in range(3):
                send(ws, bundled_request("r-5"))
                retries.append(receive(ws))
                if retries[-1]["type"] == "outcome":
                    break
        # A request decided after the landed row (the standby back: its COMMIT is answered):
        # its event comes after the landed row's, which no live event announced (the server
        # never heard its COMMIT): that one is sent late, marked replayed, once.
        send(ws, bundled_request("r-6"))
        later = receive(ws)
        heard = [receive(listener), receive(listener)]
        ws.close()
        listener.close()
    assert [(e["seq"], e["outcome"]["id"], e.get("replayed", False)) for e in heard] == [
        (later["seq"] - 1, "r-5", True),
        (later["seq"], "r-6", False),
    ]
    answered = retries[-1]
    assert [r["code"] for r in retries[:-1]] in ([], ["unavailable"])
    assert answered["type"] == "outcome" and answered["replayed"] is True
    with psycopg.connect(dsn) as db:
        [(seq, outcome)] = db.execute(
            "SELECT seq, outcome FROM rolls WHERE request_id = 'r-5'"
        ).fetchall()
    assert answered["seq"] == seq and answered["outcome"] == json.loads(outcome)
