"""The reader's kept bodies: a request whose text after its id is one the reader validated
before (under the same rules: kept the second time it came) is taken as validated, around its
own id, and logged as the compact JSON of its values; anything else is validated as always."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic_core import from_json

from arbiter.bridge.deciding import Context, decide
from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.pure.frame_text import _envelope_text
from arbiter.bridge.reading import FrameReader, Sent
from arbiter.bridge.reading_known import NOT_KEPT
from arbiter.bridge.rules import RuleSource, snapshot
from arbiter.bridge.store import Store
from tests.bridge.test_reading_envelope import EXCHANGE, readers

ROOT = Path(__file__).resolve().parents[2]
OPEN = '{"v":1,"type":"request","request":'


class Counting:
    """A validator that counts its calls (standing in for the reader's envelope validator)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls = inner, 0

    def validate_json(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.inner.validate_json(*args, **kwargs)


def counted(reader: FrameReader) -> Counting:
    """``reader`` with its plain envelope validator counting its calls."""
    assert reader._envelopes is not None
    (plain, message), referencing = reader._envelopes
    counting = Counting(plain)
    reader._envelopes = ((counting, message), referencing)  # type: ignore[assignment]
    return counting


def logged_values(frame: str) -> str:
    """The compact JSON of the values pydantic's parser reads from ``frame``'s envelope."""
    text = _envelope_text(frame)
    assert text is not None
    return orjson.dumps(from_json(text)).decode()


def test_a_body_read_before_is_taken_as_validated_around_a_new_id(tmp_path: Path) -> None:
    route, whole = readers(tmp_path)
    counting = counted(route)
    # Seen once, kept the second time, taken as validated the third.
    reads = [
        route.read(
            OPEN + f'{{"id":"k-{n}","ruleset":"tiny","type":"check","body":{{"skill":40}}}}}}'
        )
        for n in range(3)
    ]
    first, kept, second = reads
    assert isinstance(first, Sent) and isinstance(kept, Sent) and isinstance(second, Sent)
    assert counting.calls == 2
    assert second.message.request.body is kept.message.request.body
    assert kept.message.request.body is not first.message.request.body
    assert second.message.request.id == "k-2"
    assert second.text == '{"id":"k-2","ruleset":"tiny","type":"check","body":{"skill":40}}'
    expected = whole.read(
        OPEN + '{"id":"k-2","ruleset":"tiny","type":"check","body":{"skill":40}}}'
    )
    assert isinstance(expected, Sent)
    assert second.message.model_dump() == expected.message.model_dump()
    # (The whole frame's envelope also reads the body as written, as ``written_body``.)
    given = expected.message.request.model_fields_set - {"written_body"}
    assert second.message.request.model_fields_set == given
    assert "encounter" not in second.message.request.model_fields_set


def test_a_body_is_kept_with_its_encounter_as_written(tmp_path: Path) -> None:
    route, _ = readers(tmp_path)
    counting = counted(route)
    envelope = '{{"id":"{}","ruleset":"tiny","type":"check","body":{{"skill":40}},"encounter":{}}}'
    reads = [
        route.read(OPEN + envelope.format(rid, encounter) + "}")
        for encounter in ("null", '"fight"')
        for rid in ("e-1", "e-2", "e-3")
    ]
    assert counting.calls == 4  # twice per encounter (seen, kept), then taken as kept
    assert [r.message.request.encounter for r in reads] == [None] * 3 + ["fight"] * 3  # type: ignore[union-attr]
    assert all("encounter" in r.message.request.model_fields_set for r in reads)  # type: ignore[union-attr]
    assert [r.text for r in reads] == [  # type: ignore[union-attr]
        envelope.format(rid, encounter).replace(" ", "")
        for encounter in ("null", '"fight"')
        for rid in ("e-1", "e-2", "e-3")
    ]


@pytest.mark.parametrize(
    "rid",
    ["", "x" * 129, "a\\u0062", "tab\\there", "stored", 'q\\"q', "x" * 128, "ünïcödé"],
)
def test_a_kept_body_is_taken_only_around_an_id_the_envelope_takes(
    tmp_path: Path, rid: str
) -> None:
    route, whole = readers(tmp_path)
    for first in ("first", "second"):  # seen, then kept
        route.read(
            OPEN + f'{{"id":"{first}","ruleset":"tiny","type":"check","body":{{"skill":40}}}}}}'
        )
    frame = OPEN + f'{{"id":"{rid}","ruleset":"tiny","type":"check","body":{{"skill":40}}}}}}'
    read, expected = route.read(frame), whole.read(frame)
    if expected is None:
        assert read is None
        return
    assert isinstance(read, Sent) and isinstance(expected, Sent)
    assert read.message.model_dump() == expected.message.model_dump()
    assert read.text == logged_values(frame)


TRICKY = [
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":99},"body":{"skill":40}}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40},"encounter":"x",'
    '"body":{"skill":41}}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40},"encounter":"x",'
    '"body":{"skill":41},"encounter":null}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40},"id":"other"}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40,"skill":41}}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40} ,\n"encounter" : null }',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40},"encounter":"\\u0078"}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40},"ruleset":"tiny"}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":1e1}}',
    '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40}}',
]
"""Envelopes with members written twice, escapes, whitespace: each read twice around new ids."""


@pytest.mark.parametrize("envelope", TRICKY)
def test_every_envelope_is_read_as_the_whole_frame_is_and_logged_as_its_values(
    tmp_path: Path, envelope: str
) -> None:
    route, whole = readers(tmp_path)
    for n in range(3):
        frame = OPEN + envelope.replace("ID", f"t-{n}") + "}"
        read, expected = route.read(frame), whole.read(frame)
        if expected is None:
            assert read is None
            continue
        assert isinstance(read, Sent) and isinstance(expected, Sent)
        assert read.message.model_dump() == expected.message.model_dump()
        given = read.message.request.model_fields_set - {"written_body"}
        assert given == expected.message.request.model_fields_set - {"written_body"}
        assert read.text == logged_values(frame)
        assert json.loads(read.text)["body"] == expected.request["body"]


def test_bodies_kept_by_one_snapshot_s_reader_are_validated_again_by_another_s(
    tmp_path: Path,
) -> None:
    frame = json.dumps(
        {
            "v": 1,
            "type": "request",
            "request": {
                "id": "s-1",
                "ruleset": "combat-styles",
                "type": "exchange",
                "body": EXCHANGE,
            },
        }
    )
    first, second = snapshot(RuleSource().load()), snapshot(RuleSource().load())
    assert isinstance(first.reader.read(frame), Sent)
    assert isinstance(first.reader.read(frame), Sent)  # kept by the first
    counting = counted(second.reader)
    assert isinstance(second.reader.read(frame), Sent)
    assert counting.calls == 1


def test_deciding_a_kept_body_leaves_it_as_it_was_validated(tmp_path: Path) -> None:
    # Every example request of every bundled ruleset, decided in turn (encounters and all),
    # each read three times: the second read keeps its body, the third takes it, and no
    # decision may change it (the next request written the same is decided with it).
    rules = snapshot(RuleSource().load())
    store = Store(tmp_path / "log.db")
    ctx = Context("s", "gm", KeyedSource(b"k" * 32), False, 2000)
    checked = 0
    for example in sorted((ROOT / "docs/examples").glob("*.json")):
        data = json.loads(example.read_text())
        entries = data.get("requests", data) if isinstance(data, dict) else data
        for n, entry in enumerate(entries):
            request = {
                k: entry[k] for k in ("id", "ruleset", "type", "body", "encounter") if k in entry
            }
            frame = json.dumps({"v": 1, "type": "request", "request": request})
            rules.reader.read(frame)
            read = rules.reader.read(frame)
            again = rules.reader.read(frame.replace(json.dumps(entry["id"]), f'"again-{n}"', 1))
            if not isinstance(read, Sent) or not isinstance(again, Sent):
                continue
            body = read.message.request.body
            before = repr(body), body.model_dump()
            # A refusal leaves the body as it was all the same.
            with contextlib.suppress(ProtocolError):
                decide(read, rules, store, ctx, float(n))
            assert (repr(body), body.model_dump()) == before, entry["id"]
            assert again.message.request.body is body
            checked += 1
    store.commit()
    assert checked >= 30


def test_a_body_is_kept_the_second_time_it_comes_and_no_more_than_the_kept_number(
    tmp_path: Path,
) -> None:
    route, _ = readers(tmp_path)
    known = route._known
    envelope = '{{"id":"{}","ruleset":"tiny","type":"check","body":{{"skill":{}}}}}'
    route.read(OPEN + envelope.format("once", 1) + "}")
    assert known._bodies == {}  # seen once: not kept
    for skill in range(1, known.KEPT + 5):
        for rid in ("a", "b"):
            assert isinstance(route.read(OPEN + envelope.format(rid, skill) + "}"), Sent)
        assert 0 < len(known._bodies) <= known.KEPT
    for spaces in range(known.SEEN + 5):  # as many texts, each seen once
        assert isinstance(route.read(OPEN + envelope.format("c", " " * spaces + "7") + "}"), Sent)
        assert len(known._seen) <= known.SEEN


def test_a_frame_naming_a_stored_block_is_kept_as_the_referencing_validator_read_it() -> None:
    from tests.security.test_stat_block_vault import REFERENCE, attack

    rules = snapshot(RuleSource().load())
    served = {rid: s.engine for rid, s in rules.served.items()}
    whole = FrameReader(served, rules.context)
    whole._envelopes = None
    reads = [rules.reader.read(json.dumps(attack(f"r-{n}", REFERENCE))) for n in range(3)]
    expected = whole.read(json.dumps(attack("r-2", REFERENCE)))
    kept, taken = reads[1], reads[2]
    assert isinstance(kept, Sent) and isinstance(taken, Sent) and isinstance(expected, Sent)
    assert taken.message.request.body is kept.message.request.body
    assert type(taken.message) is type(kept.message)
    assert taken.message.model_dump() == expected.message.model_dump()
    assert taken.request == expected.request  # what the vault reads: the reference as written
    assert json.loads(taken.text or "")["body"]["defender"] == REFERENCE


def test_a_body_kept_for_one_keeper_is_validated_again_for_another(tmp_path: Path) -> None:
    # The GM's connections share their kept bodies; each player has his own: how long an
    # answer takes never tells a player that somebody else sent the body he guesses.
    route, _ = readers(tmp_path)
    counting = counted(route)
    frame = OPEN + '{"id":"ID","ruleset":"tiny","type":"check","body":{"skill":40}}}'
    for n in range(3):  # seen, kept, taken
        assert isinstance(route.read(frame.replace("ID", f"gm-{n}")), Sent)
    assert counting.calls == 2
    for n in range(2):
        assert isinstance(route.read(frame.replace("ID", f"pat-{n}"), "pat"), Sent)
    assert counting.calls == 4  # pat's own: seen, kept
    assert isinstance(route.read(frame.replace("ID", "pat-2"), "pat"), Sent)
    assert isinstance(route.read(frame.replace("ID", "gm-3")), Sent)
    assert counting.calls == 4
    assert isinstance(route.read(frame.replace("ID", "kim-0"), "kim"), Sent)
    assert counting.calls == 5


def test_kept_bodies_of_wide_characters_hold_no_more_than_the_held_bytes(tmp_path: Path) -> None:
    # One emoji makes CPython store every character of a text in 4 bytes: 64 kept texts of
    # 16,000 characters would hold 4 MiB if only characters were counted.
    route, _ = readers(tmp_path)
    known = route._known
    pad = " " * 16_000
    envelope = '{{"id":"{}","ruleset":"tiny","type":"check","body":{{"skill":{}{}}},"encounter":"\U0001f600"}}'
    for skill in range(1, known.KEPT + 1):
        for rid in ("a", "b"):
            assert isinstance(route.read(OPEN + envelope.format(rid, skill, pad) + "}"), Sent)
        held = sum(
            sys.getsizeof(rest) + sys.getsizeof(kept.tail)
            for (_, rest), kept in known._bodies.items()
        )
        assert len(known._bodies) > 0 and held <= known.HELD


def test_frames_read_before_a_hello_neither_leave_nor_take_kept_bodies(tmp_path: Path) -> None:
    route, _ = readers(tmp_path)
    known = route._known
    frame = OPEN + '{"id":"x","ruleset":"tiny","type":"check","body":{"skill":40}}}'
    for _ in range(3):
        assert isinstance(route.read(frame, NOT_KEPT), Sent)
    assert (known._seen, known._bodies) == (set(), {})
    for _ in range(2):
        route.read(frame, "devon")  # now kept for devon ...
    assert len(known._bodies) == 1
    counting = counted(route)
    assert isinstance(route.read(frame, NOT_KEPT), Sent)
    assert counting.calls == 1  # ... and never taken before a hello: validated again
