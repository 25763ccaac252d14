"""Stunned limbs (Stun Location: "the Hit Location is incapacitated for a number of turns").
An arm's hand can neither strike nor parry with what it holds, nor take anything up; by the
bundled data (``combat.hands.stunned_arm``, assumed) it drops its weapon but keeps a strapped
shield. A leg drops him prone (``params.leg_falls_prone``, assumed) and keeps him down while
the stun lasts (``combat.regain_footing.needs_working_legs``). a's mace deals 3 (1d8 rolled
3); b's Endurance 40 fails at 95; location 2 is the right leg, 13 the right arm, 16 the left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule
from tests.bridge.engine.combat_styles.overlays import house_rules

RIGHT_LEG, RIGHT_ARM, LEFT_ARM = 2, 13, 16


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


def stand(table: Table) -> dict[str, Any]:
    return table("act", {"combatant": "b", "action": "regain_footing"})


def test_a_stunned_leg_drops_him_prone_and_keeps_him_down_while_it_lasts(table: Table) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    effect = stun(table, RIGHT_LEG)
    assert effect["outcome"] == "right_leg incapacitated for 3 turns; falls prone"
    assert table.who("b")["conditions"]["prone"] == {"turns": None}
    with pytest.raises(
        EngineError, match="b's right_leg is stunned: he cannot stand until it works"
    ):
        stand(table)
    del table.who("b")["conditions"]["stunned"]  # outside turns nothing counts it down
    assert stand(table)["footing"]["stood"] is True


def test_a_useless_leg_keeps_him_down(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    conditions = table.who("b")["conditions"]
    conditions["limb_useless"] = {"turns": None, "locations": ["left_leg"]}
    conditions["prone"] = {"turns": None}
    with pytest.raises(EngineError, match="b's left_leg is useless: he cannot stand"):
        stand(table)


def test_by_house_rule_he_may_stand_on_a_stunned_leg(model: RulesetBase, tmp_path: Path) -> None:
    rules = with_combat_rule(model, tmp_path, "regain_footing", needs_working_legs=False)
    table = Table(rules)
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    stun(table, RIGHT_LEG)
    assert stand(table)["footing"]["stood"] is True


STUN_ARMS_ONLY = """
[[special_effects]]
id = "stun_location"
name = "Stun Location"
taker = "attacker"
mechanic = "stun_location"
requires = { weapon_lists_effect = true, blow_wounds = true }
resisted_by = { skills = ["endurance"] }
params = { duration = { amount = "damage", unit = "turns" }, senseless_locations = ["head"] }
description = "House rule: a stunned leg does not fell its owner."
"""


def test_whether_a_stunned_leg_fells_him_comes_from_the_rule_data(tmp_path: Path) -> None:
    table = Table(house_rules(tmp_path, {"special_effects.toml": STUN_ARMS_ONLY}))
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    assert stun(table, RIGHT_LEG)["outcome"] == "right_leg incapacitated for 3 turns"
    assert "prone" not in table.who("b")["conditions"]
