"""The server over real sockets: authentication, outcomes, idempotency, bad messages.

The server serves the bundled rulesets with their real engines (combat-styles checks and
exchanges are the requests here); no test ruleset is needed.
"""

from __future__ import annotations

import gc
import json
import sqlite3
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import snapshot
from tests.bridge.support import (
    bundled_config,
    bundled_request,
    hello_message,
    receive,
    running,
    send,
)


def log_rows(data: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(data / "arbiter.sqlite3") as db:
        return list(db.execute("SELECT request_id, outcome FROM rolls ORDER BY seq"))


def test_a_good_hello_is_welcomed_with_a_session_and_its_seed_commitment(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        assert welcome["type"] == "welcome"
        assert welcome["v"] == 1
        assert len(welcome["commitment"]) == 64
        assert sorted(welcome["rulesets"]) == ["combat-styles", "hmk", "karmic"]
        served = welcome["rulesets"]["combat-styles"]
        assert served["version"] == "1.0.0"
        assert served["hash"] == srv.server.rules.served["combat-styles"].ruleset.content_hash
        assert {"check", "exchange", "choose_effects"} <= set(served["requests"])
        assert welcome["limits"]["max_message_bytes"] == Limits().max_message_bytes
        assert welcome["scripted_dice"] is False
        ws.close()


def test_a_wrong_secret_is_answered_and_the_connection_closed_with_4001(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws = srv.connect()
        send(ws, hello_message("not-the-secret"))
        reply = receive(ws)
        assert reply["code"] == "unauthorized"
        assert "wrong world secret" in reply["message"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001


def test_a_first_message_that_is_not_hello_closes_with_4001(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws = srv.connect()
        send(ws, bundled_request("r1"))
        reply = receive(ws)
        assert reply["code"] == "unauthorized"
        assert "first message must be a hello" in reply["message"]
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001


def test_a_silent_client_is_closed_with_1008_after_the_auth_timeout(tmp_path: Path) -> None:
    config = bundled_config(tmp_path, limits=Limits(auth_timeout_seconds=0.3))
    with running(config) as srv:
        ws = srv.connect()
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert "no hello within 0.3 s" in closed.value.rcvd.reason


def test_an_outcome_is_logged_and_its_dice_follow_from_the_session_seed(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, welcome = srv.hello()
        send(ws, bundled_request("r1", "check", {"skill": 40}))
        reply = receive(ws)
        ws.close()
        store = srv.server.store
        session = store.session(welcome["session"])
    assert reply["type"] == "outcome" and reply["replayed"] is False
    outcome = reply["outcome"]
    assert outcome["id"] == "r1" and outcome["result"]["kind"] == "check"
    [die] = outcome["dice"]
    assert outcome["result"]["roll"] == die["result"]
    assert session is not None
    seed = bytes.fromhex(session.seed)
    assert KeyedSource.commitment(seed) == welcome["commitment"]
    assert KeyedSource(seed).randint(100) == die["result"]
    [(rid, logged)] = log_rows(tmp_path / "data")
    assert rid == "r1" and json.loads(logged) == outcome


def test_a_retried_id_returns_the_stored_outcome_and_never_rolls_again(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        send(ws, bundled_request("same", "check", {"skill": 50}))
        first = receive(ws)
        send(ws, bundled_request("same", "check", {"skill": 50}))
        second = receive(ws)
        ws.close()
        # A new connection (a reconnecting client) retrying the id gets the same outcome too.
        ws, _ = srv.hello()
        send(ws, bundled_request("same", "check", {"skill": 50}))
        third = receive(ws)
        ws.close()
    assert second["replayed"] is True and third["replayed"] is True
    assert first["outcome"] == second["outcome"] == third["outcome"]
    assert first["seq"] == second["seq"] == third["seq"]
    assert [r for r, _ in log_rows(tmp_path / "data")] == ["same"]


def test_reusing_an_id_for_a_different_request_is_refused(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        send(ws, bundled_request("dup", "check", {"skill": 50}))
        receive(ws)
        send(ws, bundled_request("dup", "check", {"skill": 51}))
        reply = receive(ws)
        ws.close()
    assert reply["code"] == "id_conflict" and reply["id"] == "dup"
    assert "already used (log row 1)" in reply["message"]


FIGHTER = {
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear"],
}
EXCHANGE = {
    "attacker": "a",
    "defender": "b",
    "weapon": "shortspear",
    "defence": "parry",
    "combatants": [{"id": "a", **FIGHTER}, {"id": "b", **FIGHTER}],
}
"""A free exchange: at least two dice (attack and parry), over a budget of one die."""
BAD_MESSAGES = [
    ("not json {", "bad_json", "not JSON"),
    (b"\x00\x01", "binary_frame", "binary frames"),
    ("[1, 2]", "invalid_message", "must be a JSON object"),
    ({"type": "ping"}, "invalid_message", "missing field 'v'"),
    ({"v": 2, "type": "ping"}, "unsupported_version", "version 2"),
    ({"v": 1, "type": "shout"}, "invalid_message", "'shout'"),
    ({"v": 1, "type": "ping", "id": 5}, "invalid_message", "id: Input should be a valid string"),
    (
        {**bundled_request("u9"), "dice": ["3"]},
        "invalid_message",
        "dice.0: Input should be a valid int",
    ),
    ({"v": 1, "type": "hello", "token": "t", "client": {"name": 7}}, "invalid_message", "name"),
    (
        {"v": 1, "type": "request", "request": {"id": "w1", "ruleset": "hmk"}},
        "invalid_message",
        "request.type: Field required",
    ),
    (
        bundled_request("u1") | {"request": {"id": "u1", "ruleset": "chess", "type": "check"}},
        "unknown_ruleset",
        "unknown ruleset 'chess' (served: combat-styles, hmk, karmic)",
    ),
    (bundled_request("u2", "dance"), "unknown_request_type", "unknown request type 'dance'"),
    (bundled_request("u3", "check", {"skill": "high"}), "invalid_request", "body.skill"),
    (bundled_request("u4", "next_turn", {"x": 1}), "invalid_request", "body.x"),
    (bundled_request("u5", "next_turn", {"": None}) | {}, "invalid_request", "body"),
    (
        bundled_request("u6", "draw", {"table": "nope"}),
        "rules_forbid",
        "no rollable table 'nope' in combat-styles",
    ),
    (
        bundled_request("u7", "check") | {"dice": [5]},
        "scripted_dice_refused",
        "--allow-scripted-dice",
    ),
    (
        bundled_request("u8", "exchange", EXCHANGE, encounter="free"),
        "dice_error",
        "over the budget",
    ),
    (hello_message("x"), "already_authenticated", "already said hello"),
    ({"v": 1, "type": "state", "id": "s1", "encounter": "e"}, "invalid_message", "'state'"),
    ("x" * 70_000, "too_large", "over the limit of 65536"),
]


def test_every_kind_of_bad_message_is_answered_while_others_are_served(tmp_path: Path) -> None:
    # One die a request: a check rolls one, the exchange needs more and is refused after it.
    config = bundled_config(tmp_path, limits=Limits(max_dice_per_request=1))
    with running(config) as srv:
        bad, _ = srv.hello(events=["rules"])
        good, _ = srv.hello(events=[])
        for n, (message, code, words) in enumerate(BAD_MESSAGES):
            send(bad, message)
            reply = receive(bad)
            assert reply["type"] == "error", message
            assert reply["code"] == code, (message, reply)
            assert words in reply["message"], (message, reply)
            send(good, bundled_request(f"good-{n}"))
            assert receive(good)["type"] == "outcome"
        send(bad, {"v": 1, "type": "ping", "id": "still-there"})
        assert receive(bad) == {"v": 1, "type": "pong", "id": "still-there"}
        bad.close()
        good.close()
    rows = log_rows(tmp_path / "data")
    # Every good request is logged, and of the bad ones only the refusal that came after dice
    # (the exchange rolled up to the budget): its refusal is its outcome.
    assert [rid for rid, _ in rows if not rid.startswith("good-")] == ["u8"]
    assert len(rows) == len(BAD_MESSAGES) + 1


def test_an_error_names_the_id_of_the_request_it_refuses(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        send(ws, bundled_request("named", "check", {"skill": -1}))
        reply = receive(ws)
        ws.close()
    assert reply["id"] == "named" and reply["code"] == "invalid_request"


def test_too_fast_is_answered_with_retry_after_and_the_connection_stays_up(tmp_path: Path) -> None:
    # One token every 1000 s: however slow the machine, the burst is all this test gets, so
    # nothing here depends on how fast the pings go out (the refill is tests/bridge/test_limits.py).
    config = bundled_config(tmp_path, limits=Limits(rate_per_second=0.001, burst=3))
    with running(config) as srv:
        ws, _ = srv.hello()
        for n in range(5):
            send(ws, {"v": 1, "type": "ping", "id": f"p{n}"})
        replies = [receive(ws) for _ in range(5)]
        assert [r["type"] for r in replies] == ["pong"] * 3 + ["error"] * 2
        assert [(r["code"], r["id"]) for r in replies[3:]] == [
            ("rate_limited", "p3"),
            ("rate_limited", "p4"),
        ]
        # The wait is what one token takes at this rate, less what has refilled meanwhile.
        assert all(990 < r["retry_after"] <= 1000 for r in replies[3:])
        assert "at most 0.001 messages a second (bursts of 3)" in replies[3]["message"]
        # Still limited, still connected: a further message is answered, not dropped.
        send(ws, {"v": 1, "type": "ping", "id": "later"})
        assert receive(ws)["id"] == "later"
        ws.close()


def test_a_frame_beyond_the_websocket_limit_closes_with_1009(tmp_path: Path) -> None:
    config = bundled_config(tmp_path, limits=Limits(max_message_bytes=1000, max_frame_bytes=4000))
    with running(config) as srv:
        ws, _ = srv.hello()
        send(ws, "y" * 2000)
        assert receive(ws)["code"] == "too_large"
        send(ws, "y" * 5000)
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def test_scripted_dice_are_used_only_when_the_test_flag_allows_them(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path, allow_scripted_dice=True)) as srv:
        ws, welcome = srv.hello()
        assert welcome["scripted_dice"] is True
        send(ws, bundled_request("s1", "check", {"skill": 50}) | {"dice": [42]})
        reply = receive(ws)
        send(ws, bundled_request("s2", "check", {"skill": 50}) | {"dice": [42, 7]})
        unused = receive(ws)
        ws.close()
    assert reply["outcome"]["result"]["roll"] == 42
    assert unused["code"] == "dice_error" and "1 scripted dice were not used" in unused["message"]


def test_an_origin_not_allowed_is_refused_at_the_handshake(tmp_path: Path) -> None:
    config = bundled_config(tmp_path, origins=("http://localhost:30000",))
    with running(config) as srv:
        with pytest.raises(InvalidStatus) as refused:
            srv.connect(origin="http://evil.example")
        assert refused.value.response.status_code == 403
        ws, welcome = srv.connect(origin="http://localhost:30000"), None
        send(ws, hello_message(srv.server.secret))
        welcome = receive(ws)
        assert welcome["type"] == "welcome"
        ws.close()


def test_a_second_server_on_the_same_world_is_refused(tmp_path: Path) -> None:
    from arbiter.bridge.datadir import DataDirBusy
    from arbiter.bridge.server import ArbiterServer

    with (
        running(bundled_config(tmp_path)),
        pytest.raises(DataDirBusy, match="one `arbiter serve` per world"),
    ):
        ArbiterServer(bundled_config(tmp_path))


class FailingCommit:
    """A SQLite connection whose next commit (a COMMIT, or a lone row's INSERT) fails like a
    full disk; everything else passes."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.armed = True

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        # The statement that commits: a COMMIT, or a lone row's INSERT outside a transaction
        # (the store writes a row alone in its group as its own transaction).
        commits = sql == "COMMIT" or (
            sql.startswith("INSERT INTO rolls") and not self.db.in_transaction
        )
        if commits and self.armed:
            self.armed = False
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)


def test_an_outcome_whose_row_cannot_be_committed_is_never_sent(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        store = srv.server.store
        store._db = FailingCommit(store._db)  # type: ignore[assignment]
        ws, _ = srv.hello()
        send(ws, bundled_request("fragile", "check", {"skill": 50}))
        refused = receive(ws)
        send(ws, bundled_request("fragile", "check", {"skill": 50}))
        decided = receive(ws)
        ws.close()
        assert store.verify_chain() == []
    assert refused["code"] == "unavailable" and "nothing was decided" in refused["message"]
    assert refused["id"] == "fragile"
    assert decided["type"] == "outcome" and decided["replayed"] is False
    assert [r for r, _ in log_rows(tmp_path / "data")] == ["fragile"]


def test_messages_sent_back_to_back_are_answered_in_the_order_sent(tmp_path: Path) -> None:
    # The connection's task reads on while the outcomes wait for their commit: the replies
    # must still come one per message, in order, a resend as the logged outcome.
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        for message in (
            bundled_request("first", "check", {"skill": 50}),
            {"v": 1, "type": "ping", "id": "between"},
            bundled_request("first", "check", {"skill": 50}),
            bundled_request("second", "check", {"skill": 50}),
        ):
            send(ws, message)
        replies = [receive(ws) for _ in range(4)]
        ws.close()
    assert [(r["type"], r.get("id") or r["outcome"]["id"]) for r in replies] == [
        ("outcome", "first"),
        ("pong", "between"),
        ("outcome", "first"),
        ("outcome", "second"),
    ]
    assert [r.get("replayed") for r in replies] == [False, None, True, False]
    assert replies[2]["outcome"] == replies[0]["outcome"]
    assert [r for r, _ in log_rows(tmp_path / "data")] == ["first", "second"]


def test_a_failed_commit_turns_only_the_outcomes_waiting_on_it_into_errors(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        store = srv.server.store
        store._db = FailingCommit(store._db)  # type: ignore[assignment]
        ws, _ = srv.hello()
        send(ws, bundled_request("lost", "check", {"skill": 50}))
        send(ws, {"v": 1, "type": "ping", "id": "still-a-pong"})
        lost, pong = receive(ws), receive(ws)
        ws.close()
    assert (lost["type"], lost["code"], lost["id"]) == ("error", "unavailable", "lost")
    assert (pong["type"], pong["id"]) == ("pong", "still-a-pong")
    assert log_rows(tmp_path / "data") == []


def frozen(obj: object) -> bool:
    """True when the garbage collector no longer walks ``obj`` (gc.freeze moved it away)."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_the_rules_served_are_kept_out_of_the_garbage_collectors_walks(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        first = srv.server.rules.served["combat-styles"].ruleset.model
        assert frozen(first)
        reloaded = snapshot(srv.server.config.rules.load())
        srv.call(srv.server.swap_rules(reloaded))
        assert srv.server.rules is reloaded
        assert frozen(reloaded.served["combat-styles"].ruleset.model)
