"""`arbiter replay docs/examples/combat-styles.json` prints the documented outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.bridge.cli import main

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "combat-styles.json"


def test_the_documented_example_replays_to_the_expected_outcomes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(EXAMPLE)]) == 0
    outcomes = {o["id"]: o for o in json.loads(capsys.readouterr().out)}
    init = outcomes["cs-2"]["result"]
    # guard: 6 + 11 − 1 (armour) − 10 (surprised) = 6; Vessa: 4 + 15 = 19
    assert init["order"] == ["vessa", "guard"]
    assert init["rolls"]["guard"]["total"] == 6
    assert init["rolls"]["vessa"]["total"] == 19
    attack = outcomes["cs-3"]["result"]
    assert attack["status"] == "awaiting_effects"
    assert attack["defence"] == "none"
    assert attack["differential"] == {"winner": "attacker", "effects": 2, "bonus_effects": 1}
    blow = outcomes["cs-4"]["result"]["blow"]
    assert (blow["location"], blow["damage"], blow["to_hit_points"]) == ("head", 5, 5)
    assert blow["wound"]["wound"] == "serious"
    assert blow["wound"]["consequences"] == [
        "cannot attack for 2 turns",
        "unconscious for 5 minutes",
    ]
    assert outcomes["cs-4"]["state"]["combatants"]["guard"]["hit_points"]["head"] == 0
    check = outcomes["cs-5"]["result"]
    assert (check["target"], check["roll"], check["level"]) == (47, 47, "success")
    odds = outcomes["cs-6"]["result"]
    assert odds["attack"]["levels"]["critical"]["exact"] == "7/100"
    assert odds["defence"]["levels"]["success"]["exact"] == "49/100"  # 07-55
    assert [d["result"] for d in outcomes["cs-4"]["dice"]] == [4, 2]
    spirit = outcomes["cs-7"]["result"]
    # shaman 65 (success, 20) against the ghost's 50 (failure, 70): one effect to choose
    assert spirit["differential"] == {"winner": "attacker", "effects": 1}
    assert (spirit["status"], spirit["token"], spirit["chooser"]) == (
        "awaiting_effects",
        "s1",
        "shaman",
    )
    assert "spirit_lance" in {e["id"] for e in spirit["eligible"]}
    lance = outcomes["cs-7b"]["result"]
    # Spirit Lance: 1d8 rolled twice (3, 5), the best 5 off the ghost's 12 MP (POW)
    assert lance["spirit_damage"]["dice"] == "1d8"
    assert lance["spirit_damage"]["rolls"] == [3, 5]
    assert lance["spirit_damage"]["magic_points"] == {"before": 12, "after": 7}
    assert [d["result"] for d in outcomes["cs-7b"]["dice"]] == [3, 5]


def test_the_documented_leaping_attack_replays_to_the_expected_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(EXAMPLE)]) == 0
    outcomes = {o["id"]: o for o in json.loads(capsys.readouterr().out)}
    leap = outcomes["cs-10"]["result"]
    assert leap["kind"] == "leaping_attack"
    # Athletics 60 rolls 33; the thief's Brawn 25 rolls 71: the hound wins one effect.
    assert (leap["attack"]["roll"], leap["attack"]["level"]) == (33, "success")
    assert (leap["defence_roll"]["target"], leap["defence_roll"]["level"]) == (25, "failure")
    assert leap["differential"] == {"winner": "attacker", "effects": 1, "bonus_effects": 0}
    # The thief's SIZ 13 is within twice the hound's SIZ 8.
    assert (leap["leap"]["defender_siz_counted"], leap["leap"]["siz_limit"]) == (13, 16)
    thief = outcomes["cs-10"]["state"]["combatants"]["thief"]
    assert thief["conditions"]["prone"]["held_down_by"] == "hound"
    assert [d["result"] for d in outcomes["cs-10"]["dice"]] == [33, 71]
