"""Deciding a request: what the roll log keeps of its outcome.

The tiny test ruleset (tests/bridge/support.py) serves here, not a bundled one: its tally's
state after every request is a number the test states exactly, and a tally needs no
encounter, so the same request shows what is kept with and without one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.deciding import Context, decide, envelope_values
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.protocol import CLIENT_MESSAGE, RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.rules import RulesSnapshot, snapshot
from arbiter.bridge.store import Store
from tests.bridge.support import request, tiny_get_engine, tiny_source, write_rules


def tiny_rules(tmp_path: Path) -> RulesSnapshot:
    return snapshot(tiny_source(write_rules(tmp_path / "rules")).load(), tiny_get_engine)


def message(rid: str, type: str, body: dict[str, Any], **extra: Any) -> RequestMessage:
    parsed = CLIENT_MESSAGE.validate_python(request(rid, type, body, **extra))
    assert isinstance(parsed, RequestMessage)
    return parsed


CTX = Context("s", "tester", KeyedSource(b"k" * 32), allow_scripted_dice=False, max_dice=100)


def test_a_request_naming_no_encounter_leaves_no_state_in_the_log(tmp_path: Path) -> None:
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    decided = decide(message("t1", "tally", {"add": 4}), rules, store, CTX, 1.0)
    store.commit()
    [row] = store.rolls()
    assert decided.outcome["result"] == {"kind": "tally", "total": 4}
    assert decided.outcome["state"] is None and json.loads(row.entry.outcome)["state"] is None
    # Nothing carries it on: the next tally without an encounter starts from nothing again.
    again = decide(message("t2", "tally", {"add": 4}), rules, store, CTX, 2.0)
    assert again.outcome["result"]["total"] == 4
    assert store.verify_chain() == []


def test_a_request_naming_an_encounter_keeps_its_state_in_the_row_and_the_encounter(
    tmp_path: Path,
) -> None:
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    decide(message("t1", "tally", {"add": 4}, encounter="e"), rules, store, CTX, 1.0)
    decide(message("t2", "tally", {"add": 3}, encounter="e"), rules, store, CTX, 2.0)
    store.commit()
    rows = list(store.rolls())
    encounter = store.encounter("e")
    assert [json.loads(r.entry.outcome)["state"] for r in rows] == [{"total": 4}, {"total": 7}]
    assert encounter is not None and encounter.state == {"total": 7} and encounter.seq == 2


def test_the_log_keeps_the_request_as_written_in_compact_json(tmp_path: Path) -> None:
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    decide(message("d1", "draw", {"table": "fumble"}), rules, store, CTX, 1.0)
    store.commit()
    [row] = store.rolls()
    assert row.entry.request == (
        '{"id":"d1","ruleset":"tiny","type":"draw","body":{"table":"fumble"},"encounter":null}'
    )


def test_a_request_read_in_one_pass_is_decided_as_one_read_slowly_and_logged_as_read(
    tmp_path: Path,
) -> None:
    rules = tiny_rules(tmp_path)
    fast, slow = Store(tmp_path / "fast.db"), Store(tmp_path / "slow.db")
    frame = json.dumps(request("c1", "check", {"skill": 40}))
    read = rules.reader.read(frame)
    assert read is not None
    ctx = [Context("s", "t", KeyedSource(b"k" * 32), False, 100) for _ in range(2)]
    one = decide(read, rules, fast, ctx[0], 1.0)  # type: ignore[arg-type]
    two = decide(message("c1", "check", {"skill": 40}), rules, slow, ctx[1], 1.0)
    # The values read, in compact JSON (the frame's spaces gone), the members written...
    assert (
        one.row.entry.request == '{"id":"c1","ruleset":"tiny","type":"check","body":{"skill":40}}'
    )
    # ...the same request as the slow path logs compactly, decided the same way.
    assert envelope_values(one.row.entry.request) == envelope_values(two.row.entry.request)
    assert one.row.entry._replace(request=two.row.entry.request) == two.row.entry
    for store in (fast, slow):
        store.commit()
        assert store.verify_chain() == []


def test_a_retry_writing_the_same_request_with_its_keys_in_another_order_is_replayed(
    tmp_path: Path,
) -> None:
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    first = '{"v":1,"type":"request","request":{"id":"c1","ruleset":"tiny","type":"check",'
    first += '"body":{"skill":40}}}'
    again = '{"v":1,"type":"request","request":{"body":{"skill":40},"type":"check",'
    again += '"ruleset":"tiny","id":"c1","encounter":null}}'
    decide(rules.reader.read(first), rules, store, CTX, 1.0)  # type: ignore[arg-type]
    store.commit()
    retried = decide(rules.reader.read(again), rules, store, CTX, 2.0)  # type: ignore[arg-type]
    assert retried.replayed
    other = again.replace('"skill":40', '"skill":41')
    with pytest.raises(ProtocolError) as refused:
        decide(rules.reader.read(other), rules, store, CTX, 3.0)  # type: ignore[arg-type]
    assert refused.value.code == "id_conflict"


def test_a_retry_of_a_request_logged_as_written_is_replayed_however_it_is_spaced(
    tmp_path: Path,
) -> None:
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    first = '{"v":1,"type":"request","request":{"id":"c1","ruleset":"tiny","type":"check",'
    first += '"body":{"skill":40}}}'
    decide(rules.reader.read(first), rules, store, CTX, 1.0)  # type: ignore[arg-type]
    store.commit()
    [row] = store.rolls()
    assert row.entry.request == first[len('{"v":1,"type":"request","request":') : -1]
    # Other whitespace, the default encounter written out: the same request.
    again = '{ "v": 1, "type": "request", "request": {"id": "c1", "ruleset": "tiny",\n'
    again += '"type": "check", "body": {"skill": 40}, "encounter": null} }'
    retried = decide(rules.reader.read(again), rules, store, CTX, 2.0)  # type: ignore[arg-type]
    assert retried.replayed and retried.row.seq == row.seq
    for other in (again.replace("40", "41"), again.replace("null", '"e-1"')):
        with pytest.raises(ProtocolError) as refused:
            decide(rules.reader.read(other), rules, store, CTX, 3.0)  # type: ignore[arg-type]
        assert refused.value.code == "id_conflict"
    assert store.verify_chain() == []


def test_a_resend_is_answered_with_the_outcome_s_logged_text_as_it_is(tmp_path: Path) -> None:
    # A row logged by an older server, whose canonical JSON wrote small floats the json
    # module's way: its resend is answered with that text, not a second serialisation.
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    first = decide(message("t1", "tally", {"add": 4}), rules, store, CTX, 1.0)
    store.commit()
    logged = first.text.logged.replace('"total":4', '"total":4,"weight":2.5e-05')
    older = first.row.entry._replace(outcome=logged)
    store2 = Store(tmp_path / "older.db")
    store2.append(older)
    resent = decide(message("t1", "tally", {"add": 4}), rules, store2, CTX, 2.0)
    assert resent.replayed and resent.text.logged == logged
    assert resent.text.logged_bytes == logged.encode() and resent.outcome["result"]["weight"]
