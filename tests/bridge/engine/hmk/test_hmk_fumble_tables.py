"""Every row of the melee and missile fumble tables: a strike roll of 97 fumbles, the scripted
table roll lands on the row (both ends), and the consequence appears in outcome and state.

Ana (STR 50, skill 80: +5 +8) fumbles; Cy (no armor) is the nearest friend / first in the line
of fire. The d10 injury roll is 1: long sword 2, short bow 1 (its maximum is 8).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

JSON = dict[str, Any]
Check = Callable[[Any, JSON], None]


def _only(result: JSON, kind: str) -> JSON:
    found = [e for e in result["events"] if e["kind"] == kind]
    assert len(found) == 1, result["events"]
    return found[0]


def bystander_hit(suffered: int, kind: str = "normal") -> Check:
    def check(table: Any, result: JSON) -> None:
        event = _only(result, "strike_bystander")
        assert event["bystander"] == "cy"
        assert (event["injury"]["kind"], event["injury"]["suffered"]) == (kind, suffered)
        assert table.who("cy")["ip"] == 200 - suffered
        assert table.who("bo")["ip"] == 200

    return check


def broken(chance: int, roll: int | None) -> Check:
    def check(table: Any, result: JSON) -> None:
        event = _only(result, "break_weapon")
        assert (event["chance"], event["roll"], event["broken"]) == (chance, roll, True)
        ana = table.who("ana")
        assert ana["gear"][event["weapon"]]["broken"] is True
        assert ana["weapon"] is None

    return check


def fell(table: Any, result: JSON) -> None:
    roll = _only(result, "attribute_roll")
    assert (roll["attribute"], roll["roll"], roll["success"]) == ("AGL", 99, False)
    assert table.who("ana")["prone"] is True


def lost_grip(table: Any, result: JSON) -> None:
    roll = _only(result, "attribute_roll")
    assert (roll["attribute"], roll["success"]) == ("DEX", False)
    ana = table.who("ana")
    assert ana["weapon"] is None
    assert ana["gear"]["long-sword"]["where"] == "dropped"


def twisted_ankle(table: Any, result: JSON) -> None:
    walk = _only(result, "walk_only")
    assert (walk["roll"], walk["days"]) == (7, 4)  # 7 / 2 rounded up
    assert table.who("ana")["walk_only_days"] == 4


def sprain(table: Any, result: JSON) -> None:
    penalty = _only(result, "penalty")
    assert (penalty["targets"], penalty["amount"]) == (["DEX", "strike"], -20)
    assert table.who("ana")["penalties"][0]["amount"] == -20


def wound_self(table: Any, result: JSON) -> None:
    event = _only(result, "wound_self")
    # 2 + 5 + 8 = 15 less Ana's own leather (PV 2).
    assert (event["bystander"], event["injury"]["suffered"]) == ("ana", 13)
    assert table.who("ana")["ip"] == 187


def opened(table: Any, result: JSON) -> None:
    _only(result, "opened_to_strike")
    assert table.who("ana")["opened"] is True
    free = table.run("attack", {"attacker": "bo", "defender": "ana", "free_strike": True}, [90])
    chance = free["result"]["chance"]
    assert (chance["opened"], chance["dt_applied"], chance["effective"]) == (True, 0, 80)
    assert free["result"]["strike"] == "free"
    assert table.who("bo")["actions_left"] == 1


MELEE: list[tuple[int, int, list[int], Check]] = [
    (1, 5, [1], bystander_hit(25)),
    (6, 15, [35], broken(35, 35)),
    (16, 25, [1], bystander_hit(15)),
    (26, 35, [99], fell),
    (36, 45, [99], lost_grip),
    (46, 55, [25], broken(25, 25)),
    (56, 65, [99], fell),
    (66, 75, [99], lost_grip),
    (76, 85, [99, 7], twisted_ankle),
    (86, 90, [], sprain),
    (91, 95, [1], wound_self),
    (96, 100, [], opened),
]

MISSILE: list[tuple[int, int, list[int], Check]] = [
    (1, 5, [1, 1], bystander_hit(16, "critical")),  # 1 + 13 + 25% of 8 rounded up
    (6, 15, [1], bystander_hit(14)),
    (16, 25, [1], bystander_hit(1, "base")),
    (26, 35, [], broken(100, None)),
    (36, 65, [99], fell),
    (66, 75, [], sprain),
    (76, 85, [1], bystander_hit(1, "base")),
    (86, 90, [1], bystander_hit(14)),
    (91, 95, [1], bystander_hit(24)),
    (96, 100, [1, 1], bystander_hit(16, "critical")),
]


def _cases(rows: list[tuple[int, int, list[int], Check]]) -> list[Any]:
    return [
        pytest.param(roll, dice, check, id=f"{low:02d}-{high:02d}@{roll}")
        for low, high, dice, check in rows
        for roll in (low, high)
    ]


def test_the_tables_in_the_rules_are_the_tables_tested(hmk: Any) -> None:
    assert [r.range for r in hmk.model.melee_fumbles.rows] == [(lo, hi) for lo, hi, *_ in MELEE]
    assert [r.range for r in hmk.model.missile_fumbles.rows] == [(lo, hi) for lo, hi, *_ in MISSILE]


@pytest.mark.parametrize(("roll", "dice", "check"), _cases(MELEE))
def test_a_melee_fumble_lands_on_its_row_and_applies_it(
    fight: Any, roll: int, dice: list[int], check: Check
) -> None:
    body = {"attacker": "ana", "defender": "bo", "bystander": "cy"}
    outcome = fight.run("attack", body, [97, roll, *dice])
    result = outcome["result"]
    assert result["outcome"] == "fumble"
    assert (result["fumble"]["table"], result["fumble"]["roll"]) == ("melee-fumbles", roll)
    assert result["injury"] is None
    check(fight, result)


@pytest.mark.parametrize(("roll", "dice", "check"), _cases(MISSILE))
def test_a_missile_fumble_lands_on_its_row_and_applies_it(
    table: Any, block: Any, roll: int, dice: list[int], check: Check
) -> None:
    table.start(
        block("ana", weapon="short-bow"),
        block("bo", party="villains"),
        block("cy", armor=None),
    )
    body = {"attacker": "ana", "defender": "bo", "bystander": "cy", "range": "short"}
    outcome = table.run("attack", body, [97, roll, *dice])
    result = outcome["result"]
    assert result["outcome"] == "fumble"
    assert (result["fumble"]["table"], result["fumble"]["roll"]) == ("missile-fumbles", roll)
    assert table.who("ana")["gear"]["short-bow"]["loaded"] is False
    check(table, result)


def test_a_thrown_weapon_fumbles_on_the_missile_table(fight: Any) -> None:
    body = {"attacker": "ana", "defender": "bo", "weapon": "dagger", "thrown": True}
    fight.run("ready", {"combatant": "ana", "weapon": "dagger"})
    fight.run("round", {})
    outcome = fight.run("attack", {**body, "distance_feet": 12}, [98, 40, 99])
    assert outcome["result"]["fumble"]["table"] == "missile-fumbles"
    assert fight.who("ana")["gear"]["dagger"]["where"] == "thrown"


def test_a_break_roll_above_the_chance_leaves_the_weapon_whole(fight: Any) -> None:
    outcome = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 6, 36])
    (event,) = outcome["result"]["events"]
    assert (event["chance"], event["roll"], event["broken"]) == (35, 36, False)
    assert fight.who("ana")["weapon"] == "long-sword"


def test_a_fumble_with_no_bystander_named_strikes_no_one(fight: Any) -> None:
    outcome = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 1])
    (event,) = outcome["result"]["events"]
    assert (event["kind"], event["bystander"], event["injury"]) == ("strike_bystander", None, None)


def test_a_successful_attribute_roll_avoids_the_fall(fight: Any) -> None:
    outcome = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 30, 50])
    (event,) = outcome["result"]["events"]
    assert (event["roll"], event["target_number"], event["success"]) == (50, 50, True)
    assert fight.who("ana")["prone"] is False
