"""Protocol models: parse errors name the field; the docs' examples and shipped schemas are current."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from arbiter.bridge.protocol import CLIENT_MESSAGE, SERVER_MESSAGE, OutcomeEvent, OutcomeMessage
from arbiter.bridge.protocol_encoding import encode, outcome_event_text, outcome_message_text
from arbiter.bridge.protocol_parsing import ProtocolError, parse_client
from arbiter.bridge.protocol_schemas import schema_text, schemas

ROOT = Path(__file__).resolve().parents[2]


def test_the_schemas_in_docs_are_the_ones_the_models_generate() -> None:
    for name, schema in schemas().items():
        on_disk = (ROOT / "docs" / "schemas" / name).read_text(encoding="utf-8")
        assert on_disk == schema_text(schema), (
            f"run `python -m arbiter.bridge.protocol_schemas docs/schemas` ({name})"
        )


def examples() -> list[dict]:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    found = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        pos = 0
        while block[pos:].strip():
            pos += len(block[pos:]) - len(block[pos:].lstrip())
            value, pos = decoder.raw_decode(block, pos)
            found.append(value)
    return found


def test_every_example_in_the_protocol_doc_is_a_valid_message() -> None:
    found = examples()
    assert len(found) >= 11
    for message in found:
        valid = 0
        for adapter in (CLIENT_MESSAGE, SERVER_MESSAGE):
            try:
                adapter.validate_python(message)
                valid += 1
            except ValidationError:
                pass
        assert valid, message


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ({"v": 1, "type": "hello", "token": "t", "client": {}}, "invalid_message", "client.name"),
        ({"v": True, "type": "ping"}, "invalid_message", "v: the protocol version"),
        ({"v": 2, "type": "ping"}, "unsupported_version", "2"),
        (
            {"v": 1, "type": "request", "request": {"id": "", "ruleset": "x", "type": "y"}},
            "invalid_message",
            "request.id",
        ),
        ({"v": 1, "type": "ping", "extra": 1}, "invalid_message", "extra: Extra inputs"),
        (
            {
                "v": 1,
                "type": "request",
                "request": {"id": "r", "ruleset": "x", "type": "y"},
                "dice": ["3"],
            },
            "invalid_message",
            "dice.0: Input should be a valid integer",
        ),
        ({"v": 1, "type": "subscribe", "events": "outcome"}, "invalid_message", "events"),
        ("text", "invalid_message", "not str"),
    ],
)
def test_a_bad_client_message_is_refused_with_the_field_named(
    message: object, code: str, words: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_client(message)
    assert refused.value.code == code
    assert words in refused.value.message


def test_the_id_of_a_refused_request_is_read_from_inside_it() -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_client({"v": 1, "type": "request", "request": {"id": "r-9", "ruleset": 3}})
    assert refused.value.id == "r-9"


def test_outcome_texts_built_around_a_serialised_outcome_are_valid_server_messages() -> None:
    outcome = {"id": "c-1", "result": {"kind": "check"}, "dice": [], "state": None}
    text = json.dumps(outcome, separators=(",", ":"))
    message = SERVER_MESSAGE.validate_json(outcome_message_text(17, True, text))
    event = SERVER_MESSAGE.validate_json(outcome_event_text(18, text))
    assert message == OutcomeMessage(seq=17, replayed=True, outcome=outcome)
    assert event == OutcomeEvent(seq=18, outcome=outcome)
    assert json.loads(outcome_message_text(3, False, text)) == json.loads(
        encode(OutcomeMessage(seq=3, replayed=False, outcome=outcome))
    )
