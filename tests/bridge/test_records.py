"""The roll log's canonical JSON: the json module's text for what engines produce, written by
orjson, with its few differences pinned down."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.dice import KeyedSource
from arbiter.bridge.records import canonical
from arbiter.bridge.replaying import replay_entries
from arbiter.compiler.model.loader import available_rulesets, load_all

ROOT = Path(__file__).resolve().parents[2]


def json_module(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_canonical_text_is_the_json_modules_sorted_compact_text() -> None:
    value = {
        "z": [1, -2, 2**63 - 1, 0.5, 1e16, 123.25, -0.0, True, False, None],
        "a": {"é": 'naïve \u2028 "quoted" back\\slash\ttab\nline \x01 \x7f', "b": {}},
        "m": [{"y": 1, "x": [[], {}]}, "𝄞"],
    }
    assert canonical(value) == json_module(value)


@pytest.mark.parametrize("ruleset", available_rulesets())
def test_every_example_outcome_is_written_as_the_json_module_writes_it(ruleset: str) -> None:
    data = json.loads((ROOT / "docs" / "examples" / f"{ruleset}.json").read_text("utf-8"))
    entries = data["requests"] if isinstance(data, dict) else data
    outcomes = replay_entries(entries, load_all(), KeyedSource(b"\x07" * 32))
    assert outcomes
    for outcome in outcomes:
        assert canonical(outcome) == json_module(outcome)


def test_a_float_under_1e_minus_4_is_written_plainly_and_reads_back_the_same() -> None:
    assert canonical([2.5e-05, 1e-07]) == "[0.000025,1e-7]"
    assert json.loads(canonical([2.5e-05, 1e-07])) == [2.5e-05, 1e-07]


def test_nan_and_the_infinities_are_written_null_as_json_has_neither() -> None:
    assert canonical({"n": math.nan, "i": -math.inf}) == '{"i":null,"n":null}'


def test_what_orjson_cannot_write_is_written_by_the_json_module() -> None:
    assert canonical({"big": 10**30, "a": 1}) == '{"a":1,"big":1000000000000000000000000000000}'
    assert canonical({10: "y", 2: "x"}) == '{"2":"x","10":"y"}'
    assert (
        canonical({"big": -(10**20), "n": [math.inf]})
        == '{"big":-100000000000000000000,"n":[null]}'
    )


def test_text_that_is_not_unicode_is_refused() -> None:
    with pytest.raises(ValueError):
        canonical({"label": "\ud800"})
    with pytest.raises(TypeError):
        canonical({"thing": object()})


def test_a_row_hashes_the_same_whether_its_texts_come_as_text_or_as_their_utf8_bytes() -> None:
    from arbiter.bridge.records import canonical_bytes, row_hash

    outcome = {"id": "é-1", "result": {"text": "naïve 𝄞"}, "dice": []}
    texts = [canonical(outcome), "[]", canonical({"id": "é-1"})]
    fields = [3, "é-1", "s", "u", "tiny", "check", None, "h", *texts, 7, False, 1.25]
    as_bytes = [*fields[:8], *(t.encode() for t in texts), *fields[11:]]
    assert row_hash("0" * 64, as_bytes) == row_hash("0" * 64, fields)
    assert canonical_bytes(outcome) == canonical(outcome).encode()


def test_the_servers_row_hash_is_the_general_row_hash_of_the_same_row() -> None:
    from arbiter.bridge.records import NewRoll, hashed_fields, roll_hash, row_hash

    rows = [
        NewRoll(
            "é-1", "s", "u", "tiny", "check", None, "h", '{"a":1}', "[]", "{}", None, True, 1.25
        ),
        NewRoll(
            "r-2",
            "s",
            "naïve",
            "tiny",
            "check",
            "enc",
            "h",
            "{}",
            "[1]",
            '{"x":"𝄞"}',
            7,
            False,
            1700000000.0000002,
        ),
        NewRoll("r-3", "s", "u", "tiny", "check", "", "h", "", "", "", 0, False, float("nan")),
        NewRoll(
            "r-4",
            "s",
            "u",
            "tiny",
            "check",
            None,
            "h",
            "{}",
            "[]",
            "{}",
            3,
            False,
            2.5,
            "pat (relayed by Gm)",
        ),
    ]
    for seq, roll in enumerate(rows, 1):
        texts = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
        expected = row_hash("f" * 64, hashed_fields(seq, roll))
        assert roll_hash("f" * 64, seq, roll, *texts) == expected
        # Again: the parts kept from the first call frame the same bytes.
        assert roll_hash("f" * 64, seq, roll, *texts) == expected


def test_the_servers_row_hash_writes_every_time_and_part_size_as_the_general_row_hash() -> None:
    from arbiter.bridge.records import NewRoll, hashed_fields, roll_hash, row_hash

    # Times on both sides of the bounds where the server writes a float by orjson rather
    # than repr, and parts on both sides of the 4 KiB where it stops looking prefixes up.
    times = [1e-4, 9.9999e-5, 1e-7, 0.0, -1.25, 1e16, 9999999999999998.0, 1e22]
    times += [1764650000.123456, 1764650000.1, 1764650000.0, 0.1 + 0.2, float("inf")]
    long = "x" * 4096
    rows = [
        NewRoll("r", "s", "u", "tiny", "check", None, "h", "{}", "[]", "{}", 2**40, True, t)
        for t in times
    ]
    rows.append(
        NewRoll(
            long, "s", "u", "tiny", "check", "e", "h", long, long[1:], long + "y", 5, False, 2.0
        )
    )
    rows.append(NewRoll("r", "s", "u", "tiny", "check", None, "h", "", "", "", True, False, 3.0))
    rows.append(
        NewRoll("r", "s", "u", "tiny", "check", None, "h", "{}", "[]", "{}", 1, False, 4.5, long)
    )
    for seq, roll in enumerate(rows, 10**12):
        texts = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
        expected = row_hash("a" * 64, hashed_fields(seq, roll))
        assert roll_hash("a" * 64, seq, roll, *texts) == expected, roll.time
