"""Reading a client frame once: the fast path validates what the slow path validates, or
leaves the frame to the slow path, which names what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.deciding import strict_body
from arbiter.bridge.protocol import Hello, Ping, RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError, decode, parse_client
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.bridge.rules import RuleSource, snapshot
from tests.bridge.support import ENGINE, request, tiny_get_engine, tiny_source, write_rules

ROOT = Path(__file__).resolve().parents[2]


def tiny_reader(tmp_path: Path) -> FrameReader:
    return snapshot(tiny_source(write_rules(tmp_path / "rules")).load(), tiny_get_engine).reader


def slow_body(frame: str) -> Any:
    """The body as the slow path validates it: the message, then the body strictly."""
    message = parse_client(decode(frame))
    assert isinstance(message, RequestMessage)
    model = ENGINE.requests[message.request.type]
    return strict_body(model, message.request).body


def test_a_request_is_validated_body_and_all_in_one_pass_as_the_slow_path_would(
    tmp_path: Path,
) -> None:
    frame = json.dumps(request("r-1", "draw", {"table": "fumble"}, encounter="e-1"))
    read = tiny_reader(tmp_path).read(frame)
    assert isinstance(read, Sent)
    assert read.message.request.body == slow_body(frame)
    assert type(read.message.request.body) is ENGINE.requests["draw"]
    assert read.message.request.encounter == "e-1"
    # The request as written is kept beside it, defaults filled in, for the roll log.
    assert read.request == {
        "id": "r-1",
        "ruleset": "tiny",
        "type": "draw",
        "body": {"table": "fumble"},
        "encounter": "e-1",
    }


def test_a_combat_styles_exchange_reads_to_the_body_the_slow_path_validates() -> None:
    rules = snapshot(RuleSource().load())
    example = json.loads((ROOT / "docs/examples/combat-styles.json").read_text())
    entries = example.get("requests", example) if isinstance(example, dict) else example
    exchange = next(e for e in entries if e.get("type") == "exchange")
    sent = {"id": "x-1", "ruleset": "combat-styles", "type": "exchange", "body": exchange["body"]}
    frame = json.dumps({"v": 1, "type": "request", "request": sent})
    read = rules.reader.read(frame)
    assert isinstance(read, Sent)
    message = parse_client(decode(frame))
    assert isinstance(message, RequestMessage)
    model = rules.served["combat-styles"].engine.requests["exchange"]
    assert read.message.request.body == strict_body(model, message.request).body
    assert read.request["body"] == exchange["body"]  # as written, not as validated


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (json.dumps(request("r-1", "check", {"skill": "50"})), "a string for a number"),
        (json.dumps(request("r-1", "check", {"skill": 50.0})), "a float for an integer"),
        (json.dumps(request("r-1", "check", {"skill": 50, "x": 1})), "an unknown body field"),
        (json.dumps(request("r-1", "nope", {})), "an unknown request type"),
        (
            json.dumps(
                {**request("r-1"), "request": {**request("r-1")["request"], "ruleset": "x"}}
            ),
            "an unknown ruleset",
        ),
        (
            '{"v":1,"type":"request","request":{"id":"r-1","ruleset":"tiny","type":"check"}}',
            "no body",
        ),
        (json.dumps(request("r-1", "draw", {"table": "\ud800"})), "a lone surrogate"),
        (
            json.dumps(request("r-1", "tally", {"add": 0})).replace("0}", "1" * 5000 + "}"),
            "5000 digits",
        ),
        ('{"v":1,"type":"request",', "not JSON"),
        (json.dumps({**request("r-1"), "v": True}), "v true"),
    ],
)
def test_what_the_fast_path_refuses_is_left_to_the_slow_path(
    tmp_path: Path, frame: str, why: str
) -> None:
    assert tiny_reader(tmp_path).read(frame) is None, why


def test_the_slow_path_still_names_the_field_the_fast_path_refused(tmp_path: Path) -> None:
    frame = json.dumps(request("r-1", "check", {"skill": "50"}))
    assert tiny_reader(tmp_path).read(frame) is None
    with pytest.raises(ProtocolError) as refused:
        slow_body(frame)
    assert refused.value.code == "invalid_request"
    assert "body.skill" in refused.value.message


def test_other_messages_read_as_the_generic_models(tmp_path: Path) -> None:
    reader = tiny_reader(tmp_path)
    assert isinstance(reader.read('{"v":1,"type":"ping","id":"p"}'), Ping)
    hello = reader.read('{"v":1,"type":"hello","token":"t","client":{"name":"c"}}')
    assert isinstance(hello, Hello)


def test_without_any_engine_no_request_takes_the_fast_path() -> None:
    reader = FrameReader({})
    assert reader.read(json.dumps(request("r-1"))) is None
    assert isinstance(reader.read('{"v":1,"type":"ping"}'), Ping)
