"""A stunned arm (Stun Location: "the Hit Location is incapacitated for a number of turns"):
its hand can neither strike nor parry with what it holds, nor take anything up; by the
bundled data (``combat.hands.stunned_arm``, assumed) it drops its weapon but keeps a strapped
shield. a's mace deals 3 (1d8 rolled 3); b's Endurance 40 fails at 95; location 13 is the
right arm, 16 the left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bridge.engine.contract import EngineError
from compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule

RIGHT_ARM, LEFT_ARM = 13, 16


def stun(table: Table, location: int) -> dict[str, Any]:
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "stun_location"}]}
    out = table("exchange", body, [30, 90, 3, location, 95])
    return next(e for e in out["effects"] if e["id"] == "stun_location")


def house(model: RulesetBase, tmp_path: Path, **stunned_arm: Any) -> Table:
    bundled = model.combat.hands.stunned_arm.model_dump(mode="json")  # type: ignore[attr-defined]
    rules = with_combat_rule(model, tmp_path, "hands", stunned_arm={**bundled, **stunned_arm})
    return Table(rules)


def test_a_stunned_weapon_arm_drops_its_weapon_and_cannot_take_it_up(table: Table) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    effect = stun(table, RIGHT_ARM)
    assert effect["outcome"] == "right_arm incapacitated for 3 turns; drops broadsword"
    assert effect["dropped"] == ["broadsword"]
    b = table.who("b")
    assert b["hands"] == {"right": None, "left": "heater"}
    assert b["conditions"]["dropped"]["weapons"] == ["broadsword"]
    with pytest.raises(EngineError, match="cannot attack with 'broadsword': it was dropped"):
        table("exchange", {"attacker": "b", "defender": "a", "weapon": "broadsword"})
    # The numbed hand is not free: the only other hand holds the shield.
    with pytest.raises(EngineError, match="b has 0 free hand"):
        table("act", {"combatant": "b", "action": "ready_weapon", "weapon": "broadsword"})


def test_the_other_arm_still_parries(table: Table) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    stun(table, RIGHT_ARM)
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 30])
    assert (out["parry_weapon"], out["defence_roll"]["level"]) == ("heater", "success")


def test_a_stunned_shield_arm_keeps_its_strapped_shield_but_cannot_parry_with_it(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    effect = stun(table, LEFT_ARM)
    assert effect["outcome"] == "left_arm incapacitated for 3 turns"
    assert "dropped" not in effect
    assert table.who("b")["hands"] == {"right": "broadsword", "left": "heater"}
    body = {"attacker": "a", "defender": "b", "parry_weapon": "heater"}
    with pytest.raises(
        EngineError, match="cannot parry with 'heater': the arm holding it is stunned"
    ):
        table("exchange", body)


def test_by_house_rule_a_shield_that_is_not_strapped_is_dropped_too(
    model: RulesetBase, tmp_path: Path
) -> None:
    table = house(model, tmp_path, keeps_shields=False)
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    assert stun(table, LEFT_ARM)["dropped"] == ["heater"]
    assert table.who("b")["hands"] == {"right": "broadsword", "left": None}


def test_by_house_rule_a_stunned_arm_keeps_its_weapon_unusable_until_the_stun_wears_off(
    model: RulesetBase, tmp_path: Path
) -> None:
    table = house(model, tmp_path, drops=False)
    table("start_encounter", {"combatants": [fighter("a", weapons=["mace"]), fighter("b")]})
    table("initiative", {}, [9, 2])  # a first
    assert stun(table, RIGHT_ARM)["outcome"] == "right_arm incapacitated for 3 turns"
    assert table.who("b")["hands"] == {"right": "broadsword", "left": "heater"}
    strike = {"attacker": "b", "defender": "a", "weapon": "broadsword", "defence": "none"}
    left = []
    while "stunned" in table.who("b")["conditions"]:
        if table("state", {})["current"] == "b":
            with pytest.raises(EngineError, match="the arm holding it is stunned"):
                table("exchange", strike)
            left.append(table.who("b")["conditions"]["stunned"]["locations"]["right_arm"])
        table("next_turn", {})
    assert left == [3, 2, 1]  # one of b's own turns each
    while table("state", {})["current"] != "b":
        table("next_turn", {})
    assert table("exchange", strike, [80])["weapon"] == "broadsword"
