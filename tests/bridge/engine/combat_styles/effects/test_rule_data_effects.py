"""Rule values that used to be decided in code now come from the data: each test edits one
value through a rules overlay and sees the game follow."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.combat_styles.basics import Fraction
from arbiter.compiler.model.combat_styles.body import HitLocationTable, LocationRow
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited


def _swing(
    model: RulesetBase, a: dict[str, Any], b: dict[str, Any], dice: list[int], **body: Any
) -> dict[str, Any]:
    table = Table(model)
    duel(table, a, b)
    result: dict[str, Any] = table("exchange", {"attacker": "a", "defender": "b", **body}, dice)
    return result


_UNDER_WATER = {"defence": "none", "situation": {"cap": "swimming"}, "effects": []}


def test_which_weapons_thrust_under_water_is_read_from_the_swimming_data(
    model: RulesetBase,
) -> None:
    swimmer = fighter("a", weapons=["mace", "dagger"], skills={"swim": 50})
    with pytest.raises(EngineError, match="only thrusting weapons work, not Mace"):
        _swing(model, swimmer, fighter("b"), [], weapon="mace", **_UNDER_WATER)
    house = edited(model, "combat.swimming.thrusting_effects", ("impale", "stun_location"))
    out = _swing(house, swimmer, fighter("b"), [45, 6, 10], weapon="mace", **_UNDER_WATER)
    assert out["blow"]["damage"] == 3  # 1d8 = 6, halved: the mace now counts as thrusting
    by_trait = edited(model, "combat.swimming.thrusting_effects", ())
    with pytest.raises(EngineError, match="not Dagger"):
        _swing(by_trait, swimmer, fighter("b"), [], weapon="dagger", **_UNDER_WATER)
    by_trait = edited(by_trait, "combat.swimming.thrusting_traits", ("thrown",))
    out = _swing(by_trait, swimmer, fighter("b"), [45, 4, 10], weapon="dagger", **_UNDER_WATER)
    assert out["blow"]["damage"] == 3  # 1d4+1 = 5, halved


def test_the_water_s_damage_share_is_read_from_thrusting_damage(model: RulesetBase) -> None:
    swimmer = fighter("a", weapons=["dagger"], skills={"swim": 50})
    house = edited(model, "combat.swimming.thrusting_damage", Fraction(numerator=1, denominator=5))
    out = _swing(house, swimmer, fighter("b"), [45, 4, 10], weapon="dagger", **_UNDER_WATER)
    assert out["blow"]["damage"] == 1  # 5 / 5


def test_unarmed_blows_under_water_are_neither_forbidden_nor_halved_as_the_data_says(
    model: RulesetBase,
) -> None:
    swimmer = fighter("a", weapons=["unarmed"], skills={"swim": 50, "unarmed": 60})
    out = _swing(model, swimmer, fighter("b"), [45, 3, 10], weapon="unarmed", **_UNDER_WATER)
    assert out["blow"]["damage"] == 3  # 1d3 = 3, not halved
    house = edited(model, "combat.swimming.unaffected_kinds", ())
    with pytest.raises(EngineError, match="not Unarmed"):
        _swing(house, swimmer, fighter("b"), [], weapon="unarmed", **_UNDER_WATER)


def _prone_parry(model: RulesetBase) -> dict[str, Any]:
    table = Table(model)
    duel(table, fighter("a"), fighter("b"))
    assert table.state is not None
    table.state["combatants"]["b"]["conditions"]["prone"] = {"turns": None}
    out: dict[str, Any] = table(
        "exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 35]
    )
    return out["defence_roll"]


def test_the_situation_a_prone_combatant_fights_under_is_the_one_the_data_ties_to_prone(
    model: RulesetBase,
) -> None:
    assert _prone_parry(model)["grade"] == "formidable"
    harder = edited(model, "situational_modifiers.close_prone.grade", "herculean")
    assert _prone_parry(harder)["grade"] == "herculean"
    untied = edited(model, "situational_modifiers.close_prone.while_condition", None)
    assert _prone_parry(untied)["grade"] == "standard"
    other = edited(untied, "situational_modifiers.close_unstable_ground.while_condition", "prone")
    assert _prone_parry(other)["grade"] == "hard"


def _choose_head_past_a_ward(model: RulesetBase, dice: list[int]) -> dict[str, Any]:
    table = Table(model)
    duel(table, fighter("a"), fighter("b"))
    ward = {"combatant": "b", "action": "ward_location", "weapon": "heater", "locations": ["head"]}
    table("act", ward)
    body = {"defence": "none", "effects": [{"id": "choose_location", "location": "head"}]}
    out: dict[str, Any] = table("exchange", {"attacker": "a", "defender": "b", **body}, dice)
    return out


def test_a_location_is_chosen_by_the_effect_whose_data_says_chooses_location(
    model: RulesetBase,
) -> None:
    table = Table(model)
    duel(table, fighter("a"), fighter("b"))
    body = {"defence": "none", "effects": [{"id": "choose_location", "location": "head"}]}
    out = table("exchange", {"attacker": "a", "defender": "b", **body}, [30, 2])
    assert out["blow"]["location"] == "head"
    house = edited(model, "special_effects.choose_location.params.chooses_location", False)
    table = Table(house)
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", **body}, [30, 2, 1])
    assert out["blow"]["location"] == "right_leg"  # rolled: the effect no longer chooses
    marksman = edited(model, "special_effects.marksman.params.chooses_location", True)
    marksman = edited(marksman, "special_effects.marksman.params.location_steps", None)
    marksman = edited(marksman, "special_effects.marksman.requires.weapon_kinds", ())
    table = Table(marksman)
    duel(table, fighter("a"), fighter("b"))
    body = {"defence": "none", "effects": [{"id": "marksman", "location": "left_arm"}]}
    out = table("exchange", {"attacker": "a", "defender": "b", **body}, [30, 2])
    assert out["blow"]["location"] == "left_arm"


def test_whether_a_chosen_location_gets_past_a_ward_is_read_from_the_passive_block_data(
    model: RulesetBase,
) -> None:
    with pytest.raises(EngineError, match="Choose Location cannot bypass the passive block"):
        _choose_head_past_a_ward(model, [30, 2])
    house = edited(model, "combat.passive_block.choose_location_bypasses", True)
    out = _choose_head_past_a_ward(house, [30, 2])
    assert out["blow"]["location"] == "head"
    assert out["blow"]["to_hit_points"] == 2  # the heater's ward does not parry it


def _with_serpent_table(model: RulesetBase) -> RulesetBase:
    """``model`` with a second hit-location table: a legless body of head, chest and abdomen."""
    serpent = HitLocationTable(
        id="serpent",
        name="Serpent Hit Locations",
        die="1d10",
        rows=[
            LocationRow(range=(1, 4), text="Abdomen", location="abdomen"),
            LocationRow(range=(5, 8), text="Chest", location="chest"),
            LocationRow(range=(9, 10), text="Head", location="head"),
        ],
    )
    return edited(model, "hit_location_tables", [*model.hit_location_tables, serpent])


def test_the_body_plan_is_the_data_s_default_or_the_one_a_stat_block_names(
    model: RulesetBase,
) -> None:
    house = _with_serpent_table(model)
    table = Table(house)
    duel(table, fighter("a"), fighter("b", body_plan="serpent"))
    assert sorted(table.who("b")["hit_points"]) == ["abdomen", "chest", "head"]
    assert sorted(table.who("a")["hit_points"])[0] == "abdomen"
    assert len(table.who("a")["hit_points"]) == 7
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "none", "effects": []}, [30, 2, 1]
    )
    assert out["blow"]["location"] == "abdomen"  # 1 on the serpent's 1d10
    assert table.rolled[-1] == ("1d10", 1)
    out = table(
        "exchange", {"attacker": "b", "defender": "a", "defence": "none", "effects": []}, [30, 2, 1]
    )
    assert out["blow"]["location"] == "right_leg"  # 1 on the humanoid 1d20
    everyone = Table(edited(house, "combat.body_plan", "serpent"))
    duel(everyone, fighter("a"), fighter("b"))
    assert sorted(everyone.who("a")["hit_points"]) == ["abdomen", "chest", "head"]
    out = everyone(
        "exchange", {"attacker": "a", "defender": "b", "defence": "none", "effects": []}, [30, 2, 9]
    )
    assert out["blow"]["location"] == "head"


def test_a_body_plan_the_data_lacks_is_refused(model: RulesetBase) -> None:
    table = Table(model)
    with pytest.raises(EngineError, match="unknown body plan 'serpent'"):
        table("start_encounter", {"combatants": [fighter("a", body_plan="serpent"), fighter("b")]})


def _clubbed(model: RulesetBase, dice: list[int], **body: Any) -> Table:
    """A great club (2d6) strikes b's right leg (5 hit points); b has two Luck Points."""
    table = Table(model)
    duel(table, fighter("a", weapons=["great_club"]), fighter("b", luck_points=2))
    exchange = {"attacker": "a", "defender": "b", "defence": "none", "effects": [], **body}
    table("exchange", exchange, [30, *dice])
    return table


def test_mitigate_damage_spends_a_luck_point_to_turn_a_major_wound_serious(
    model: RulesetBase,
) -> None:
    plain = _clubbed(model, [5, 5, 1, 10])  # 10 damage: Major; Endurance 10
    assert plain.who("b")["wounds"]["right_leg"] == "major"
    assert plain.who("b")["hit_points"]["right_leg"] == -5
    lucky = _clubbed(model, [5, 5, 1, 2, 10], mitigate_damage=["b"])  # Serious: 1d3, Endurance
    b = lucky.who("b")
    assert b["wounds"]["right_leg"] == "serious"
    assert b["hit_points"]["right_leg"] == -4  # one short of Major (−5)
    assert b["luck_points"] == 1


def test_what_mitigate_damage_turns_into_what_is_read_from_the_luck_data(
    model: RulesetBase,
) -> None:
    dear = edited(model, "combat.luck.points_per_use", 3)
    table = _clubbed(dear, [5, 5, 1, 10], mitigate_damage=["b"])  # two points are not enough
    assert table.who("b")["wounds"]["right_leg"] == "major"
    assert table.who("b")["luck_points"] == 2
    house = edited(model, "combat.luck.mitigate_from", "serious")
    house = edited(house, "combat.luck.mitigate_to", "minor")
    table = _clubbed(house, [3, 4, 1], mitigate_damage=["b"])  # 7 damage would be Serious
    assert table.who("b")["wounds"]["right_leg"] == "minor"
    assert table.who("b")["hit_points"]["right_leg"] == 1
    assert table.who("b")["luck_points"] == 1


def test_whether_only_shields_parry_missiles_is_read_from_the_ranged_data(
    model: RulesetBase,
) -> None:
    archer = fighter("a", weapons=["short_bow"])
    shot = {"parry_weapon": "broadsword", "situation": {"distance": 10}}
    with pytest.raises(EngineError, match="only shields can"):
        _swing(model, archer, fighter("b"), [], **shot)
    house = edited(model, "combat.ranged.only_shields_parry", False)
    out = _swing(house, archer, fighter("b"), [30, 40, 4, 10], effects=[], **shot)
    assert out["blow"]["parry"]["weapon"] == "broadsword"


def test_which_weapons_may_be_set_against_a_charge_is_read_from_the_weapon_traits(
    model: RulesetBase,
) -> None:
    body = {"defence": "none", "effects": [], "situation": {"set_against_charge": True}}
    with pytest.raises(EngineError, match="Broadsword cannot be set"):
        _swing(model, fighter("a"), fighter("b"), [], **body)
    sword_set = edited(model, "weapons.broadsword.traits", ("set",))
    out = _swing(sword_set, fighter("a"), fighter("b"), [30, 5, 1, 10], **body)  # +0 → +1d2
    assert any("set against the charge" in n for n in out["notes"])
    spear = fighter("a", weapons=["shortspear"])
    unset = edited(model, "weapon_traits.set.rules.receives_charge", False)
    with pytest.raises(EngineError, match="Shortspear cannot be set"):
        _swing(unset, spear, fighter("b"), [], **body)
    out = _swing(model, spear, fighter("b"), [30, 1, 1, 10], **body)
    assert any("set against the charge" in n for n in out["notes"])
    # A trait the data marks narrative is never applied, whatever its rules say.
    judged = edited(model, "weapon_traits.set.effect", "narrative")
    with pytest.raises(EngineError, match="Shortspear cannot be set"):
        _swing(judged, spear, fighter("b"), [], **body)


def test_a_fumbler_named_in_mitigate_damage_may_mitigate_his_own_accidental_injury(
    model: RulesetBase,
) -> None:
    house = edited(model, "combat.luck.mitigate_from", "serious")
    house = edited(house, "combat.luck.mitigate_to", "minor")
    table = Table(house)
    duel(table, fighter("a", luck_points=1), fighter("b"))
    body = {"effects": [{"id": "accidental_injury"}], "mitigate_damage": ["a"]}
    out = table("exchange", {"attacker": "a", "defender": "b", **body}, [99, 30, 6, 19])
    assert out["self_injury"]["wound"]["wound"] == "minor"  # 6 to a 5-point head, mitigated
    assert out["self_injury"]["wound"]["luck_mitigated"]["hit_points"] == 1
    assert table.who("a")["luck_points"] == 0
