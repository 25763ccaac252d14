"""``arbiter replay`` resolves the documented hmk example and reproduces its outcomes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.cli import main

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "hmk.json"
SEED = "00112233445566778899aabbccddeeff"


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, list[dict[str, Any]]]:
    assert main(["replay", *args]) == 0
    out = capsys.readouterr().out
    return out, json.loads(out)


def test_the_example_fight_at_the_ford_replays_to_the_documented_numbers(capsys) -> None:
    _, outcomes = replay(capsys, str(EXAMPLE))
    by_id = {o["id"]: o["result"] for o in outcomes}
    assert by_id["ford-2"]["order"] == [["bandits"], ["heroes"]]
    shot = by_id["ford-3"]
    # Crossbow 50 - 30/4 (7) - 5 at medium range (100 ft) = 38; roll 38 hits.
    assert (shot["chance"]["effective"], shot["outcome"]) == (38, "hit")
    # d10 6: 5 + STR 50/10 + skill 50/10 = 15, less leather 2.
    assert (shot["injury"]["dealt"], shot["injury"]["suffered"]) == (15, 13)
    crit = by_id["ford-5"]
    # Ana jogs: 65 - 5 - 5 = 55; a 4 is under 65/10: critical, Light Bleeder (66).
    assert (crit["chance"]["effective"], crit["outcome"]) == (55, "critical")
    assert crit["injury"]["critical"]["name"] == "Light Bleeder"
    assert (crit["injury"]["dealt"], crit["injury"]["suffered"]) == (27, 21)
    fumble = by_id["ford-6"]
    assert fumble["fumble"]["text"] == "Hit nearest friend or innocent for normal injury."
    assert fumble["events"][0]["injury"]["suffered"] == 9
    assert by_id["ford-7"]["combatants"]["bo"]["ip"] == 5  # 28 - 21 - 2 bleeding
    # Bo bleeds in every summary from the Light Bleeder until the aid that cures him; Cy is down
    # from his fumble (ford-11) until he stands (ford-13).
    bleeding = ["ford-5", "ford-6", "ford-7", "ford-10", "ford-11", "ford-12"]
    assert all(by_id[i]["combatants"]["bo"]["lasting"] == ["bleeding"] for i in bleeding)
    assert by_id["ford-12"]["combatants"]["cy"]["lasting"] == ["prone"]
    assert by_id["ford-13"]["combatants"]["cy"]["lasting"] == []
    assert by_id["ford-15"]["combatants"]["bo"]["lasting"] == []
    assert (by_id["ford-8"]["loaded"], by_id["ford-8"]["progress"]) == (False, 1)
    assert by_id["ford-9"]["hit"]["exact"] == "3/5"
    assert {o["id"]: o for o in outcomes}["ford-8"]["state"]["combatants"]["bo"]["gear"]["light-crossbow"] == {
        "where": "hand", "broken": False, "loaded": False, "reload_progress": 1,
        "distance_feet": None,
    }  # fmt: skip


def test_replaying_twice_gives_the_same_bytes(capsys) -> None:
    first, _ = replay(capsys, str(EXAMPLE))
    second, _ = replay(capsys, str(EXAMPLE))
    assert first == second


def test_keyed_dice_outcomes_replay_identically_from_their_recorded_dice(
    capsys, tmp_path: Path
) -> None:
    entries = json.loads(EXAMPLE.read_text())["requests"]
    for entry in entries:
        entry.pop("dice", None)
    (tmp_path / "rolled.json").write_text(json.dumps(entries))
    rolled_text, rolled = replay(capsys, str(tmp_path / "rolled.json"), "--seed", SEED)
    for entry, outcome in zip(entries, rolled, strict=True):
        entry["dice"] = outcome["dice"]
    (tmp_path / "recorded.json").write_text(json.dumps(entries))
    recorded_text, _ = replay(capsys, str(tmp_path / "recorded.json"))
    assert recorded_text == rolled_text
    assert any(o["dice"] for o in rolled)
