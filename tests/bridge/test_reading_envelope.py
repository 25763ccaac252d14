"""The reader's envelope route: a frame of the client's own shape is validated from its request
envelope's text, and the log keeps the compact JSON of the values read from it (never the text
itself); any other frame is read whole, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.bridge.deciding import Context, decide, envelope_values
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.bridge.rules import RuleSource, snapshot
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.store import Store
from arbiter.bridge.views import GM
from tests.bridge.support import (
    bundled_request,
    request,
    tiny_get_engine,
    tiny_source,
    write_rules,
)

ROOT = Path(__file__).resolve().parents[2]
_EXAMPLE = json.loads((ROOT / "docs/examples/combat-styles.json").read_text())
_ENTRIES = _EXAMPLE.get("requests", _EXAMPLE) if isinstance(_EXAMPLE, dict) else _EXAMPLE
EXCHANGE = {
    **next(e for e in _ENTRIES if e.get("type") == "exchange")["body"],
    "combatants": next(e for e in _ENTRIES if e.get("type") == "start_encounter")["body"][
        "combatants"
    ],
    "effects": [],
}
"""The example's exchange carrying its fighters' stat blocks (as benchmarks/bridge.py sends)."""

ENVELOPE = '{"id":"r-1","ruleset":"tiny","type":"check","body":{"skill":40}}'
OTHER = '{"id":"r-2","ruleset":"tiny","type":"check","body":{"skill":41}}'


def readers(tmp_path: Path) -> tuple[FrameReader, FrameReader]:
    """The reader of the tiny rules, and the same reader with its envelope route switched off
    (every frame validated whole, as before the route was)."""
    rules = snapshot(tiny_source(write_rules(tmp_path / "rules")).load(), tiny_get_engine)
    whole = FrameReader({rid: s.engine for rid, s in rules.served.items()}, rules.context)
    whole._envelopes = None
    return rules.reader, whole


def test_a_frame_of_the_client_s_shape_is_logged_as_the_compact_json_of_its_envelope_s_values(
    tmp_path: Path,
) -> None:
    envelope = '{"id": "r-1",\n "ruleset": "tiny", "type": "check", "body": {"skill": 40}}'
    frame = f' {{ "type" : "request", "v":1 ,"request":\t{envelope} \r\n}}\n'
    read = readers(tmp_path)[0].read(frame)
    assert isinstance(read, Sent)
    assert read.text == ENVELOPE
    assert read.message.request.body.skill == 40  # type: ignore[attr-defined]
    # What the authority and the vault read of it: the values as written, defaults filled in.
    assert read.request == {
        "id": "r-1",
        "ruleset": "tiny",
        "type": "check",
        "body": {"skill": 40},
        "encounter": None,
    }


ROUTED = [
    '{"v":1,"type":"request","request":' + ENVELOPE + "}",
    json.dumps(request("r-1", "check", {"skill": 40})),
    '{"type":"request","v":1,"request":' + ENVELOPE + "}",
]
"""Frames of the client's shape (as ``JSON.stringify`` and ``json.dumps`` write them)."""


@pytest.mark.parametrize("frame", ROUTED)
def test_frames_of_the_client_s_shape_take_the_envelope_route(tmp_path: Path, frame: str) -> None:
    read = readers(tmp_path)[0].read(frame)
    assert isinstance(read, Sent)
    assert read.text == ENVELOPE


@pytest.mark.parametrize(
    "frame",
    [
        *ROUTED,
        '{"v":1,"type":"request","request":' + ENVELOPE + ',"dice":[5]}',
        '{"v":1,"type":"request","request":' + ENVELOPE + ',"player":"pat"}',
        '{"v":1,"type":"request","request":' + ENVELOPE + ',"request":' + OTHER + "}",
        '{"v":1,"type":"request","request":' + ENVELOPE + ',"v":1}',
        '{"v":1,"v":1,"type":"request","request":' + ENVELOPE + "}",
        '{"\\u0076":1,"type":"request","request":' + ENVELOPE + "}",
        '{"v":1,"type":"request","request":' + ENVELOPE + "}}",
        '{"v":1,"type":"request","request":' + ENVELOPE,
        '{"v":1,"type":"request","request":' + ENVELOPE[:-1] + "}",
        '{"v":1,"type":"request","request":' + ENVELOPE.replace("40", '"40"') + "}",
        '{"v":1,"type":"request","request":' + ENVELOPE.replace("40", "40.0") + "}",
        '{"v":1,"type":"request","request":"' + ENVELOPE.replace('"', '\\"') + '"}',
        '{"v":1.0,"type":"request","request":' + ENVELOPE + "}",
        '{"v":1,"type":"request","request":' + ENVELOPE.replace("40", "NaN") + "}",
    ],
)
def test_the_envelope_route_accepts_and_refuses_what_reading_the_whole_frame_does(
    tmp_path: Path, frame: str
) -> None:
    route, whole = readers(tmp_path)
    read, expected = route.read(frame), whole.read(frame)
    if expected is None:
        assert read is None
        return
    assert isinstance(read, Sent) and isinstance(expected, Sent)
    # The same message (of the route's own classes, so compared field by field).
    assert read.message.model_dump() == expected.message.model_dump()
    assert read.message.model_fields_set == expected.message.model_fields_set
    assert list(read.message.__dict__) == list(expected.message.__dict__)
    assert read.message.request.body == expected.message.request.body
    # (The whole frame's envelope also reads the body as written, as ``written_body``.)
    given = read.message.request.model_fields_set - {"written_body"}
    assert given == expected.message.request.model_fields_set - {"written_body"}
    assert read.request == expected.request
    if read.text is not None:
        # Taken by the route: the text is the one envelope the whole frame was read with.
        assert envelope_values(read.text) == expected.request


def test_a_request_written_twice_is_read_as_its_last_never_as_the_envelope_route_s_first(
    tmp_path: Path,
) -> None:
    frame = '{"v":1,"type":"request","request":' + ENVELOPE + ',"request":' + OTHER + "}"
    read = readers(tmp_path)[0].read(frame)
    assert isinstance(read, Sent)
    assert read.text is None
    assert read.message.request.id == "r-2"
    assert read.request["body"] == {"skill": 41}


def test_a_sent_request_needs_its_values_or_its_text(tmp_path: Path) -> None:
    read = readers(tmp_path)[0].read('{"v":1,"type":"request","request":' + ENVELOPE + "}")
    assert isinstance(read, Sent)
    with pytest.raises(ValueError, match="needs the request as written"):
        Sent(read.message)


def test_the_gm_s_request_read_as_text_is_resolved_and_decided_without_reading_its_values(
    tmp_path: Path,
) -> None:
    # The reader made only the log's text of the envelope: the vault (no reference in it, the
    # GM's) and the decision take it as it is, and the body is never read back as plain values.
    rules = snapshot(RuleSource().load())
    store = Store(tmp_path / "log.db")
    frame = json.dumps(bundled_request("c-1", "exchange", EXCHANGE))
    read = rules.reader.read(frame)
    assert isinstance(read, Sent) and read.text is not None
    resolved = Vault(store).resolve(read, GM, None, rules)
    assert resolved.read is read
    ctx = Context("s", "gm", KeyedSource(b"k" * 32), False, 2000)
    decided = decide(read, rules, store, ctx, 1.0)
    assert decided.row.entry.request == read.text
    assert read._request is None
