"""Combat-style and weapon traits act through their rule data: each test shows a trait's effect
and then edits its values (or gives its rules to another trait) and sees the game follow."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.bodies.requests import Situation
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.combat_styles.grades.situations import attack_terms
from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.combat_styles.basics import Fraction
from arbiter.compiler.model.combat_styles.traits import StyleTraitRules
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited

STRONG = {"str": 18, "con": 11, "siz": 18, "dex": 12, "int": 12, "pow": 10}  # STR+SIZ 36: +1d6


def _exchange(
    model: RulesetBase, a: dict[str, Any], b: dict[str, Any], dice: list[int], **body: Any
) -> tuple[Table, dict[str, Any]]:
    table = Table(model)
    duel(table, a, b)
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": [], **body}, dice)
    return table, out


def _given(model: RulesetBase, trait: str, **rules: Any) -> RulesetBase:
    """``model`` with ``trait`` turned into an engine-applied trait with these rules."""
    house = edited(model, f"style_traits.{trait}.effect", "rules")
    return edited(house, f"style_traits.{trait}.rules", StyleTraitRules(**rules))


def _evader_prone(model: RulesetBase, trait: str) -> bool:
    table, _ = _exchange(
        model, fighter("a"), fighter("b", traits=[trait]), [80, 30], defence="evade"
    )
    return "prone" in table.who("b")["conditions"]


def test_daredevil_keeps_an_evader_standing_because_its_data_says_so(model: RulesetBase) -> None:
    assert _evader_prone(model, "cautious_fighter")
    assert not _evader_prone(model, "daredevil")
    house = edited(model, "style_traits.daredevil.rules", StyleTraitRules(evade_ends_prone=True))
    assert _evader_prone(house, "daredevil")
    assert not _evader_prone(
        _given(model, "cautious_fighter", evade_ends_prone=False), "cautious_fighter"
    )


def _parried(model: RulesetBase, b: dict[str, Any], weapon: str, dice: list[int]) -> dict[str, Any]:
    _, out = _exchange(model, fighter("a"), b, dice, parry_weapon=weapon)
    blow: dict[str, Any] = out["blow"]
    return blow


def test_batter_aside_parries_one_size_larger_against_a_weaker_attacker(model: RulesetBase) -> None:
    batterer = fighter("b", characteristics=STRONG, weapons=["dagger"], traits=["batter_aside"])
    blow = _parried(model, batterer, "dagger", [30, 40, 8, 10])
    assert blow["parry"]["parrying_size"] == "medium"  # small dagger, +1d6 three steps above +0
    assert blow["after_parry"] == 0
    plain = fighter("b", characteristics=STRONG, weapons=["dagger"])
    blow = _parried(model, plain, "dagger", [30, 40, 8, 10])
    assert (blow["parry"]["parrying_size"], blow["after_parry"]) == ("small", 4)
    house = edited(model, "style_traits.batter_aside.rules.damage_modifier_steps", 4)
    blow = _parried(house, batterer, "dagger", [30, 40, 8, 10])
    assert blow["parry"]["parrying_size"] == "small"  # three steps above is not four


def test_defensive_minded_parries_larger_only_in_a_round_without_its_own_attack(
    model: RulesetBase,
) -> None:
    table = Table(model)
    duel(table, fighter("a"), fighter("b", weapons=["dagger"], traits=["defensive_minded"]))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "dagger", "effects": []},
        [30, 40, 8, 10],
    )
    assert out["blow"]["parry"]["parrying_size"] == "medium"
    table("exchange", {"attacker": "b", "defender": "a", "defence": "none", "effects": []}, [99])
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "dagger", "effects": []},
        [30, 40, 8, 10],
    )
    assert out["blow"]["parry"]["parrying_size"] == "small"
    house = edited(model, "style_traits.defensive_minded.rules.parry_size_steps", 2)
    table = Table(house)
    duel(table, fighter("a"), fighter("b", weapons=["dagger"], traits=["defensive_minded"]))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "dagger", "effects": []},
        [30, 40, 8, 10],
    )
    assert out["blow"]["parry"]["parrying_size"] == "large"


def test_unarmed_prowess_parries_with_the_size_its_data_names(model: RulesetBase) -> None:
    boxer = fighter("b", weapons=[], skills={"unarmed": 60}, traits=["unarmed_prowess"])
    blow = _parried(model, boxer, "unarmed", [30, 40, 8, 10])
    assert (blow["parry"]["parrying_size"], blow["after_parry"]) == ("medium", 0)
    house = edited(model, "style_traits.unarmed_prowess.rules.unarmed_parry_size", "large")
    blow = _parried(house, boxer, "unarmed", [30, 40, 8, 10])
    assert blow["parry"]["parrying_size"] == "large"
    clumsy = fighter("b", weapons=[], skills={"unarmed": 60})
    blow = _parried(model, clumsy, "unarmed", [30, 40, 8, 10])
    assert (blow["parry"]["parrying_size"], blow["after_parry"]) == ("small", 4)


def _grade(model: RulesetBase, traits: list[str], **situation: Any) -> tuple[str, int]:
    view = view_of(model)
    table = Table(model)
    duel(table, fighter("a", traits=traits), fighter("b"))
    terms = attack_terms(
        view, table.typed("a"), table.typed("b"), view.arm("broadsword"), Situation(**situation)
    )
    return terms.grade.id, terms.skill


def test_blind_fighting_eases_the_darkness_and_blindness_its_data_lists(model: RulesetBase) -> None:
    dark = {"attacker_situations": ["close_pitch_black"]}
    assert _grade(model, [], **dark)[0] == "herculean"
    assert _grade(model, ["blind_fighting"], **dark)[0] == "formidable"
    assert (
        _grade(
            edited(model, "style_traits.blind_fighting.rules.eased_steps", 2),
            ["blind_fighting"],
            **dark,
        )[0]
        == "hard"
    )
    rain = {"attacker_situations": ["close_unstable_ground"]}
    assert _grade(model, ["blind_fighting"], **rain)[0] == "hard"  # not a situation it eases
    listed = edited(
        model, "style_traits.blind_fighting.rules.eases_situations", ("close_unstable_ground",)
    )
    assert _grade(listed, ["blind_fighting"], **rain)[0] == "standard"
    assert _grade(listed, ["blind_fighting"], **dark)[0] == "herculean"


def test_beast_back_lancer_charges_from_a_mount_with_its_data_s_grade_steps(
    model: RulesetBase,
) -> None:
    charge = {"charging": True, "mounted": True}
    assert _grade(model, [], **charge)[0] == "hard"
    assert _grade(model, ["beast_back_lancer"], **charge)[0] == "standard"
    assert _grade(model, ["beast_back_lancer"], charging=True)[0] == "hard"  # on foot
    house = edited(model, "style_traits.beast_back_lancer.rules.mounted_charge_grade_steps", -1)
    assert _grade(house, ["beast_back_lancer"], **charge)[0] == "easy"


def test_mounted_and_water_combat_lift_the_skill_caps_their_data_names(model: RulesetBase) -> None:
    assert _grade(model, [], cap="mounted")[1] == 0  # capped by Ride 0
    assert _grade(model, ["mounted_combat"], cap="mounted")[1] == 60
    assert _grade(model, ["water_combat"], cap="swimming")[1] == 60
    assert _grade(model, ["water_combat"], cap="mounted")[1] == 0
    house = edited(model, "style_traits.water_combat.rules.lifts_skill_caps", ("climbing",))
    assert _grade(house, ["water_combat"], cap="swimming")[1] == 0
    assert _grade(house, ["water_combat"], cap="climbing")[1] == 60


def _stun(model: RulesetBase, traits: list[str]) -> tuple[Table, dict[str, Any]]:
    body = {"defence": "none", "weapon": "mace", "situation": {"surprise": True}}
    body["effects"] = [{"id": "stun_location"}]
    return _exchange(
        model, fighter("a", weapons=["mace"], traits=traits), fighter("b"), [30, 3, 1, 90], **body
    )


def test_knockout_blow_stuns_a_surprised_victim_for_the_unit_its_data_names(
    model: RulesetBase,
) -> None:
    table, out = _stun(model, [])
    stunned = table.who("b")["conditions"]["stunned"]
    assert stunned["locations"] == {"right_leg": 3}
    table, out = _stun(model, ["knockout_blow"])
    stunned = table.who("b")["conditions"]["stunned"]
    assert stunned["minutes"] == {"right_leg": 3}
    assert stunned["locations"] == {}
    assert out["effects"][0]["lasting"] == "3 minutes"
    house = edited(model, "style_traits.knockout_blow.rules.stun_unit_on_surprised", None)
    table, out = _stun(house, ["knockout_blow"])
    assert table.who("b")["conditions"]["stunned"]["locations"] == {"right_leg": 3}


def _pulled_free(model: RulesetBase) -> int:
    table = Table(model)
    tough = {"str": 11, "con": 18, "siz": 18, "dex": 12, "int": 12, "pow": 10}  # chest 10 HP
    duel(table, fighter("a"), fighter("b", characteristics=tough, armor={"chest": "mail"}))
    impale = {"attacker": "a", "defender": "b", "effects": [{"id": "impale", "leave_in": True}]}
    table("exchange", impale, [30, 90, 8, 8, 10])
    pull = {"combatant": "a", "action": "ready_weapon", "weapon": "broadsword"}
    out = table("act", pull, [25, 5])
    damage: int = out["pull_free"]["damage"]
    return damage


def test_a_barbed_weapon_pulled_free_deals_the_share_its_trait_data_sets(
    model: RulesetBase,
) -> None:
    assert _pulled_free(model) == 3  # half of 5, rounded up
    barbed = edited(model, "weapons.broadsword.traits", ("barbed",))
    assert _pulled_free(barbed) == 5
    three_quarters = Fraction(numerator=3, denominator=4)
    gentler = edited(barbed, "weapon_traits.barbed.rules.withdraw_damage", three_quarters)
    assert _pulled_free(gentler) == 4  # 3/4 of 5, rounded up
    judged = edited(barbed, "weapon_traits.barbed.effect", "narrative")
    assert _pulled_free(judged) == 3  # a narrative trait is not applied: the Impale share


def test_a_stat_block_naming_a_trait_the_data_lacks_is_refused(model: RulesetBase) -> None:
    table = Table(model)
    with pytest.raises(EngineError, match="unknown style trait 'ninja'"):
        table("start_encounter", {"combatants": [fighter("a", traits=["ninja"]), fighter("b")]})
