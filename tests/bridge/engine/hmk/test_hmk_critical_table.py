"""Every row of the Critical Combat Success table: a scripted roll lands on the row (both ends),
and its extra injury, permanent penalty and effects appear in the outcome and the state.

Ana (STR 50, long sword skill 80: +5 +8) strikes Bo (leather, PV 2) with a natural 1, a
critical since 1 × 10 < 80. The d10 injury roll is 1: the long sword's column gives 2. The long
sword's maximum is 10, so the extra injury is 3 (+25%), 5 (+50%), 10, 15 or 20.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

JSON = dict[str, Any]
Check = Callable[[Any, JSON], None]


def _events(result: JSON, kind: str) -> list[JSON]:
    return [e for e in result["events"] if e["kind"] == kind]


def no_effects(table: Any, result: JSON) -> None:
    assert result["events"] == []


def knocked_over(table: Any, result: JSON) -> None:
    (roll,) = _events(result, "attribute_roll")
    assert (roll["attribute"], roll["roll"], roll["target_number"], roll["success"]) == (
        "AGL", 99, 50, False,
    )  # fmt: skip
    (lost,) = _events(result, "lose_actions")
    assert (lost["count"], lost["this_round"]) == (1, 1)
    assert table.who("bo")["actions_left"] == 0


def disarmed(table: Any, result: JSON) -> None:
    (disarm,) = _events(result, "disarm")
    assert (disarm["weapon"], disarm["roll"], disarm["feet"]) == ("long-sword", 7, 10)
    bo = table.who("bo")
    assert bo["weapon"] is None
    assert bo["gear"]["long-sword"]["where"] == "disarmed"
    assert bo["gear"]["long-sword"]["distance_feet"] == 10


def second_strike(table: Any, result: JSON) -> None:
    assert table.who("ana")["bonus_strikes"] == 1
    assert table.who("ana")["actions_left"] == 0
    again = table.run("attack", {"attacker": "ana", "defender": "bo", "bonus_strike": True}, [90])
    assert again["result"]["strike"] == "bonus"
    assert table.who("ana")["bonus_strikes"] == 0


def hole_in_armor(table: Any, result: JSON) -> None:
    injury = result["injury"]
    assert (injury["armor_pv"], injury["armor_ignored"], injury["suffered"]) == (0, True, 18)
    assert _events(result, "ignore_armor")


def stunned(table: Any, result: JSON) -> None:
    assert table.who("bo")["lost_rounds"] == 2
    for rounds_left in (1, 0):
        table.run("round", {})
        bo = table.who("bo")
        assert (bo["out_this_round"], bo["actions_left"], bo["lost_rounds"]) == (
            True, 0, rounds_left,
        )  # fmt: skip
    table.run("round", {})
    assert table.who("bo")["actions_left"] == 1


def weapon_broke(table: Any, result: JSON) -> None:
    (broke,) = _events(result, "break_weapon")
    assert (broke["chance"], broke["roll"], broke["broken"]) == (50, 50, True)
    bo = table.who("bo")
    assert bo["gear"]["long-sword"]["broken"] is True
    assert bo["weapon"] is None


def armor_shredded(table: Any, result: JSON) -> None:
    (shred,) = _events(result, "armor_loss")
    assert (shred["amount"], shred["pv"]) == (1, 1)
    assert table.who("bo")["armor_loss"] == 1
    hit = table.run("attack", {"attacker": "cy", "defender": "bo"}, [50, 1])
    assert hit["result"]["injury"]["armor_pv"] == 1


def knockout(table: Any, result: JSON) -> None:
    (ko,) = _events(result, "knockout")
    assert ko["rounds"] == 7  # 1d10 (4) + 3
    (penalty,) = _events(result, "penalty")
    assert (penalty["targets"], penalty["amount"]) == (["INT", "AWA"], -5)
    bo = table.who("bo")
    assert (bo["knocked_out"], bo["out_this_round"], bo["actions_left"]) == (7, True, 0)
    table.run("round", {})
    assert (table.who("bo")["knocked_out"], table.who("bo")["actions_left"]) == (6, 0)


def bleeder(per_round: int) -> Check:
    def check(table: Any, result: JSON) -> None:
        (bleed,) = _events(result, "bleeding")
        assert bleed["per_round"] == per_round
        before = table.who("bo")["ip"]
        table.run("round", {})
        assert table.who("bo")["ip"] == before - per_round

    return check


def lasting(targets: list[str], amount: int, *, hand: str | None = None) -> Check:
    def check(table: Any, result: JSON) -> None:
        (penalty,) = _events(result, "penalty")
        assert (penalty["targets"], penalty["amount"], penalty["hand"]) == (targets, amount, hand)
        assert table.who("bo")["penalties"][0]["targets"] == targets

    return check


def shield_arm(table: Any, result: JSON) -> None:
    lasting(["defensive_tactics"], -10)(table, result)
    odds = table.run("odds", {"attacker": "cy", "defender": "bo"})
    # Bo carries a shield: DT 20 - 10 = 10, a quarter of it is 2.
    assert odds["result"]["chance"]["dt_applied"] == 2


def leg_hit(table: Any, result: JSON) -> None:
    lasting(["AGL", "defensive_tactics"], -10)(table, result)
    assert (
        table.run("odds", {"attacker": "cy", "defender": "bo"})["result"]["chance"]["dt_applied"]
        == 2
    )


def weapon_arm(table: Any, result: JSON) -> None:
    lasting(["DEX", "strike"], -10)(table, result)
    odds = table.run("odds", {"attacker": "bo", "defender": "cy"})
    assert odds["result"]["chance"]["lasting_penalty"] == -10


def hand_hit(table: Any, result: JSON) -> None:
    lasting(["DEX", "strike"], -20, hand="right")(table, result)
    odds = table.run("odds", {"attacker": "bo", "defender": "cy"})
    assert odds["result"]["chance"]["lasting_penalty"] == -20  # Bo strikes right-handed


def groin(table: Any, result: JSON) -> None:
    assert _events(result, "incapacitated")
    assert table.who("bo")["incapacitated"] is True
    table.run("round", {})
    assert table.who("bo")["actions_left"] == 0


def ear(table: Any, result: JSON) -> None:
    (penalty,) = _events(result, "penalty")
    assert (penalty["targets"], penalty["amount"]) == (["AGL"], -20)
    (condition,) = _events(result, "condition")
    assert condition["name"] == "hearing-halved"
    assert table.who("bo")["conditions"][0]["name"] == "hearing-halved"


def eye(table: Any, result: JSON) -> None:
    lasting(["depth_perception"], -20)(table, result)
    melee = table.run("odds", {"attacker": "bo", "defender": "cy"})["result"]["chance"]
    assert melee["lasting_penalty"] == 0
    throw = {"attacker": "bo", "defender": "cy", "weapon": "dagger", "thrown": True}
    ranged = table.run("odds", {**throw, "distance_feet": 10})["result"]["chance"]
    assert (ranged["range"], ranged["lasting_penalty"]) == ("long", -20)


# (low, high, name, extra injury, permanent loss or None, extra dice after the table roll, check)
ROWS: list[tuple[int, int, str, int, tuple[str, int] | None, list[int], Check]] = [
    (1, 6, "Minor Wound", 3, None, [], no_effects),
    (7, 12, "Knocked Over", 3, None, [99], knocked_over),
    (13, 18, "Disarmed Opponent", 3, None, [99, 7], disarmed),
    (19, 24, "Second Strike", 3, None, [], second_strike),
    (25, 30, "Hole in Armor", 3, None, [], hole_in_armor),
    (31, 36, "Major Wound", 5, None, [], no_effects),
    (37, 42, "Stunned", 5, None, [], stunned),
    (43, 48, "Weapon Broke", 5, None, [50], weapon_broke),
    (49, 54, "Armor Shredded", 5, None, [], armor_shredded),
    (55, 59, "KO opponent", 5, None, [4], knockout),
    (60, 64, "Critical Wound", 10, None, [], no_effects),
    (65, 69, "Light Bleeder", 10, None, [], bleeder(2)),
    (70, 74, "Shield Arm Hit", 10, ("DEX", -5), [], shield_arm),
    (75, 79, "Leg Hit", 10, ("AGL", -5), [], leg_hit),
    (80, 84, "Weapon Arm Hit", 10, ("STR", -5), [], weapon_arm),
    (85, 89, "Hand Hit", 10, ("DEX", -5), [8], hand_hit),
    (90, 91, "Heavy Bleeder", 15, ("HEA", -5), [], bleeder(5)),
    (92, 93, "Groin Hit", 15, ("HEA", -5), [], groin),
    (94, 95, "Ear Hit", 15, ("AWA", -10), [], ear),
    (96, 97, "Eye Hit", 15, ("AWA", -10), [], eye),
    (98, 100, "Vital Hit", 20, ("HEA", -10), [], bleeder(10)),
]

CASES = [
    pytest.param(roll, *rest, id=f"{rest[0]}-{roll:02d}")
    for low, high, *rest in ROWS
    for roll in sorted({low, high})
]


def test_the_table_in_the_rules_is_the_table_tested(hmk: Any) -> None:
    rows = hmk.model.critical_hits.rows
    assert [(r.range[0], r.range[1], r.name) for r in rows] == [row[:3] for row in ROWS]


@pytest.mark.parametrize(("roll", "name", "extra", "loss", "more_dice", "check"), CASES)
def test_a_critical_roll_lands_on_its_row_and_applies_it(
    table: Any,
    block: Any,
    roll: int,
    name: str,
    extra: int,
    loss: tuple[str, int] | None,
    more_dice: list[int],
    check: Check,
) -> None:
    table.start(
        block("ana"),
        block("bo", party="villains", shield=True),
        block("cy", armor=None),
    )
    outcome = table.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, roll, *more_dice])
    result = outcome["result"]
    assert result["outcome"] == "critical"
    injury = result["injury"]
    assert injury["critical"]["name"] == name
    assert injury["critical"]["roll"] == roll
    assert (injury["base"], injury["strength_bonus"], injury["skill_bonus"]) == (2, 5, 8)
    assert injury["extra"] == extra
    assert injury["dealt"] == 2 + 5 + 8 + extra
    if name != "Hole in Armor":
        assert injury["suffered"] == injury["dealt"] - 2
    bo = table.who("bo")
    assert bo["ip"] == 200 - injury["suffered"]
    if loss is None:
        assert bo["attribute_losses"] == []
    else:
        attribute, amount = loss
        assert bo["attributes"][attribute] == block("bo")["attributes"][attribute] + amount
        assert bo["attribute_losses"] == [
            {"attribute": attribute, "amount": amount, "source": name}
        ]
    assert [d["result"] for d in outcome["dice"]] == [1, 1, roll, *more_dice]
    check(table, result)
