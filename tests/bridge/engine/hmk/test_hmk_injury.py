"""Injury after armor, unconsciousness at 0 IP, the HEA/4 death timer, Terminal Injury and
bleeding between rounds."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError


def hit(table: Any, d10: int, attacker: str = "ana", defender: str = "bo") -> dict[str, Any]:
    """Ana hits with a strike roll of 20 (a plain hit) and the given d10."""
    return table.run("attack", {"attacker": attacker, "defender": defender}, [20, d10])["result"]


@pytest.mark.parametrize(("armor", "suffered"), [("ring-mail", 2), ("scale-mail", 1),
                                                 ("chain-mail", 0), ("plate", 0)])  # fmt: skip
def test_armor_absorbs_its_pv_and_injury_at_or_below_zero_does_nothing(
    table: Any, block: Any, armor: str, suffered: int
) -> None:
    # A weak blow: club (d10 of 1 gives 1), STR 20 and skill 30: 1 + 2 + 3 = 6.
    weak = block("ana", attributes={"STR": 20}, skills={"club": 30}, weapon="club")
    table.start(weak, block("bo", party="villains", armor=armor))
    result = hit(table, 1)
    assert result["injury"]["dealt"] == 6
    assert result["injury"]["suffered"] == suffered
    assert table.who("bo")["ip"] == 200 - suffered
    assert table.who("bo")["status"] == "active"


def test_injury_is_the_weapon_column_plus_a_tenth_of_strength_and_skill(
    table: Any, block: Any
) -> None:
    ana = block("ana", attributes={"STR": 59}, skills={"long-sword": 69})
    table.start(ana, block("bo", party="villains", armor=None))
    injury = hit(table, 10)["injury"]
    assert (injury["base"], injury["strength_bonus"], injury["skill_bonus"]) == (10, 5, 6)
    assert injury["suffered"] == 21


def test_reaching_zero_ip_knocks_out_with_a_death_timer_of_a_quarter_health(
    table: Any, block: Any
) -> None:
    # 2 + 5 + 8 = 15 against no armor; Bo has 15 IP and HEA 43 (43 / 4 = 10 rounds).
    table.start(block("ana"), block("bo", ip=15, armor=None, attributes={"HEA": 43}))
    result = hit(table, 1)
    assert table.who("bo")["ip"] == 0
    assert result["events"] == [{"kind": "unconscious", "target": "bo", "death_in": 10}]
    assert result["combatants"]["bo"]["status"] == "unconscious"


def test_without_aid_the_unconscious_die_when_the_timer_runs_out(table: Any, block: Any) -> None:
    table.start(block("ana"), block("bo", ip=15, armor=None, attributes={"HEA": 8}))
    hit(table, 1)
    assert table.who("bo")["death_in"] == 2
    first = table.run("round", {})["result"]
    assert {"kind": "death_timer", "target": "bo", "death_in": 1} in first["events"]
    second = table.run("round", {})["result"]
    assert second["combatants"]["bo"]["status"] == "dead"
    assert any(e["kind"] == "dead" and e["target"] == "bo" for e in second["events"])


def test_medical_assistance_stops_the_death_timer(table: Any, block: Any) -> None:
    table.start(block("ana"), block("bo", ip=15, armor=None, attributes={"HEA": 4}))
    hit(table, 1)
    table.run("aid", {"combatant": "bo"})
    for _ in range(3):
        table.run("round", {})
    assert (table.who("bo")["status"], table.who("bo")["stabilized"]) == ("unconscious", True)
    healed = table.run("aid", {"combatant": "bo", "heal_ip": 5})["result"]
    assert healed["combatants"]["bo"] == {
        "name": "Bo", "ip": 5, "max_ip": 15, "status": "active", "death_in": None, "lasting": [],
    }  # fmt: skip


def test_injury_down_to_minus_terminal_injury_is_survivable(table: Any, block: Any) -> None:
    # HEA 40: Terminal Injury 10. 15 IP - 25 = -10, exactly the limit.
    table.start(block("ana"), block("bo", ip=15, armor=None))
    table.run("attack", {"attacker": "ana", "defender": "bo"}, [50, 10])  # 10 + 13 = 23
    assert table.who("bo")["ip"] == -8
    assert table.who("bo")["status"] == "unconscious"


def test_injury_beyond_terminal_injury_kills_at_once(table: Any, block: Any) -> None:
    # HEA 40: Terminal Injury 10; 12 IP - 23 = -11 is beyond it.
    table.start(block("ana"), block("bo", ip=12, armor=None))
    result = hit(table, 10)
    assert table.who("bo")["ip"] == -11
    assert result["combatants"]["bo"]["status"] == "dead"
    (event,) = result["events"]
    assert event["kind"] == "dead"
    assert "Terminal Injury" in event["reason"]


def test_exactly_minus_terminal_injury_is_not_death(table: Any, block: Any) -> None:
    table.start(block("ana"), block("bo", ip=13, armor=None))
    hit(table, 10)  # 13 - 23 = -10
    assert table.who("bo")["status"] == "unconscious"


def test_bleeding_continues_into_unconsciousness_and_death(table: Any, block: Any) -> None:
    # A Vital Hit (crit table 98) bleeds 10 a round and costs 10 HEA (40 -> 30: Terminal 7).
    table.start(block("ana"), block("bo", ip=50, armor=None))
    result = table.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 98])["result"]
    assert result["injury"]["suffered"] == 2 + 13 + 20
    assert table.who("bo")["ip"] == 15
    table.run("round", {})
    assert (table.who("bo")["ip"], table.who("bo")["status"]) == (5, "active")
    table.run("round", {})
    assert (table.who("bo")["ip"], table.who("bo")["status"]) == (-5, "unconscious")
    last = table.run("round", {})["result"]
    assert (table.who("bo")["ip"], table.who("bo")["status"]) == (-15, "dead")
    assert any(e["kind"] == "dead" for e in last["events"])


def test_curing_stops_bleeding_and_lasting_effects_but_not_permanent_losses(
    table: Any, block: Any
) -> None:
    table.start(block("ana"), block("bo", armor=None))
    table.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 90])  # Heavy Bleeder
    table.run("aid", {"combatant": "bo", "cure": True})
    bo = table.who("bo")
    assert (bo["bleeding"], bo["attributes"]["HEA"]) == ([], 35)
    before = bo["ip"]
    table.run("round", {})
    assert table.who("bo")["ip"] == before


def test_the_dead_cannot_be_aided(table: Any, block: Any) -> None:
    table.start(block("ana"), block("bo", ip=1, armor=None))
    hit(table, 10)
    with pytest.raises(EngineError, match="only magical or divine means"):
        table.run("aid", {"combatant": "bo"})


def test_the_dead_cannot_be_struck_again(table: Any, block: Any) -> None:
    table.start(block("ana"), block("bo", ip=1, armor=None), block("cy"))
    hit(table, 10)
    with pytest.raises(EngineError, match="Bo is already dead"):
        hit(table, 10, attacker="cy")
