"""What lasts is in every combatant summary (``lasting``): the tabletop shows it while the
state holds it and takes it off when a result no longer names it (docs/requests-hmk.md)."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.hmk.state import LASTING

# Roll 4 under 80/10: critical; d10 7 (6 + STR 5 + skill 8, +100%: 10) = 29, less leather 2;
# critical row 66: Light Bleeder, 2 IP a round until healed.
LIGHT_BLEEDER = [4, 7, 66]
KNOCKOUT = [1, 1, 55, 1]  # critical, d10 1, row 55 (KO 1d10+3, -5% INT and AWA): d10 1, 4 rounds


def test_a_bleeder_bleeds_in_every_summary_until_cured(fight: Any) -> None:
    struck = fight.run("attack", {"attacker": "ana", "defender": "bo"}, LIGHT_BLEEDER)["result"]
    assert struck["injury"]["critical"]["name"] == "Light Bleeder"
    assert struck["combatants"]["bo"]["lasting"] == ["bleeding"]
    assert struck["combatants"]["ana"]["lasting"] == []
    for _ in range(2):
        turned = fight.run("round", {})["result"]
        assert {"kind": "bleeding", "target": "bo", "amount": 2} in turned["events"]
        assert turned["combatants"]["bo"]["lasting"] == ["bleeding"]
    cured = fight.run("aid", {"combatant": "bo", "cure": True})["result"]
    assert cured["combatants"] == {
        "bo": {"name": "Bo", "ip": 200 - 27 - 2 - 2, "max_ip": 200, "status": "active",
               "death_in": None, "lasting": []},
    }  # fmt: skip
    assert fight.run("round", {})["result"]["combatants"]["bo"]["lasting"] == []


def test_a_knock_out_lasts_its_rounds_and_the_round_it_ends_in(fight: Any) -> None:
    struck = fight.run("attack", {"attacker": "ana", "defender": "bo"}, KNOCKOUT)["result"]
    out = ["penalized", "knocked_out", "out_this_round"]
    assert struck["combatants"]["bo"]["lasting"] == out
    seen = [fight.run("round", {})["result"]["combatants"]["bo"]["lasting"] for _ in range(5)]
    assert seen == [out] * 3 + [["penalized", "out_this_round"], ["penalized"]]
    assert all(kind in LASTING for kind in out)  # the documented kinds, in their order
    assert out == [kind for kind in LASTING if kind in out]


def test_a_fall_lasts_until_the_combatant_stands_and_stand_says_so(fight: Any) -> None:
    fumbled = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 30, 99])["result"]
    assert fumbled["combatants"]["ana"]["lasting"] == ["prone"]
    fight.run("round", {})
    stood = fight.run("stand", {"combatant": "ana"})["result"]
    assert stood["combatants"]["ana"]["lasting"] == []


def test_lasting_names_no_number_of_a_stat_block(fight: Any) -> None:
    struck = fight.run("attack", {"attacker": "ana", "defender": "bo"}, LIGHT_BLEEDER)["result"]
    for summary in struck["combatants"].values():
        assert set(summary) == {"name", "ip", "max_ip", "status", "death_in", "lasting"}
        assert all(isinstance(kind, str) for kind in summary["lasting"])


def test_an_ear_hit_lasts_as_a_penalty_and_a_named_condition_until_cured(fight: Any) -> None:
    struck = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 94])["result"]
    assert struck["injury"]["critical"]["name"] == "Ear Hit"
    assert struck["combatants"]["bo"]["lasting"] == ["penalized", "condition:hearing-halved"]
    assert fight.run("round", {})["result"]["combatants"]["bo"]["lasting"] == [
        "penalized",
        "condition:hearing-halved",
    ]
    cured = fight.run("aid", {"combatant": "bo", "cure": True})["result"]
    assert cured["combatants"]["bo"]["lasting"] == []
