"""docs/examples/karmic.json replays through ``arbiter replay`` to the worked round's totals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.bridge.cli import main

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "karmic.json"


def replay(capsys: pytest.CaptureFixture[str], path: Path = EXAMPLE) -> list[dict]:
    assert main(["replay", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_documented_example_replays_the_worked_round(
    capsys: pytest.CaptureFixture[str],
) -> None:
    outcomes = replay(capsys)
    registers = [o["result"] for o in outcomes if o["type"] == "resolve_register"]
    attacks = [r["outcomes"][0] for r in registers]
    assert [a["net"] for a in attacks] == [-1, -1, 6]
    assert [a["success"] for a in attacks] == [False, False, True]
    assert attacks[2]["disarmed"] == {"weapon": "sword", "hand": "main"}
    hands = next(o for o in outcomes if o["type"] == "draw_hands")
    assert [c["value"] for c in hands["private"]["devon"]["hand"]] == [3, -2, 10]
    assert set(hands["private"]) == {"devon", "soldier"}
    assert all(o["rules_version"] == "1.0.0" for o in outcomes)


def test_replaying_twice_gives_the_same_bytes(capsys: pytest.CaptureFixture[str]) -> None:
    first = replay(capsys)
    second = replay(capsys)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def test_a_request_the_rules_forbid_stops_the_replay_with_its_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = json.loads(EXAMPLE.read_text())
    requests = data["requests"][:4]
    requests[3]["body"]["maneuvers"][0]["card"] = "plus-9#1"  # not in Devon's hand
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(requests))
    assert main(["replay", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "entry #4 (k-04)" in err and "'plus-9#1' is not in devon's hand" in err
