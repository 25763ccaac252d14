"""The combat-styles engine follows its rule data: each test edits a rule value and shows the
outcome changes with it."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.bodies.requests import Situation
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.combat_styles.grades.situations import attack_terms
from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited


def _archers(model: RulesetBase) -> tuple[dict[str, Any], dict[str, Any]]:
    table = Table(model)
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    return table.typed("a"), table.typed("b")


def _aimed_grade(model: RulesetBase, *situations: str) -> str:
    view = view_of(model)
    a, b = _archers(model)
    situation = Situation(aiming=True, attacker_situations=list(situations))
    return attack_terms(view, a, b, view.arm("short_bow"), situation).grade.id


def test_aiming_eases_a_standard_shot_by_the_data_s_aim_steps(model: RulesetBase) -> None:
    assert _aimed_grade(model) == "easy"
    assert _aimed_grade(edited(model, "combat.ranged.aim_grade_steps", -2)) == "very_easy"


def test_aiming_never_eases_a_very_easy_shot_to_automatic(model: RulesetBase) -> None:
    assert _aimed_grade(model, "very_easy") == "very_easy"
    assert _aimed_grade(model, "easy") == "very_easy"
    deeper = edited(model, "combat.ranged.aim_grade_steps", -3)
    assert _aimed_grade(deeper) == "very_easy"


def test_the_easiest_grade_aiming_reaches_is_read_from_the_data(model: RulesetBase) -> None:
    house = edited(model, "combat.ranged.aim_easiest_grade", "easy")
    assert _aimed_grade(house, "easy") == "easy"
    assert _aimed_grade(house, "hard") == "standard"
    free = edited(model, "combat.ranged.aim_easiest_grade", "automatic")
    assert _aimed_grade(free, "very_easy") == "automatic"


def test_initiative_is_rolled_on_the_data_s_die_with_the_data_s_bonus(model: RulesetBase) -> None:
    house = edited(model, "initiative.die", "1d20")
    house = edited(house, "initiative.bonus.divisor", 1)
    table = Table(house)
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    assert table.who("a")["initiative_bonus"] == 12 + 12
    out = table("initiative", {}, [20, 11])
    assert out["rolls"]["a"] == {"die": 20, "total": 44}
    assert table.rolled == [("1d20 initiative a", 20), ("1d20 initiative b", 11)]


def test_tied_initiative_goes_to_dex_then_a_roll_of_the_data_s_die(model: RulesetBase) -> None:
    table = Table(edited(model, "initiative.die", "1d6"))
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    out = table("initiative", {}, [4, 4, 2, 6])
    assert out["order"] == ["b", "a"]
    assert out["rolls"]["b"]["tie_break"] == 6
    assert "concurrent" not in out


def test_concurrent_tie_break_rolls_nothing_and_names_the_tied_group(model: RulesetBase) -> None:
    table = Table(edited(model, "initiative.tie_break", "concurrent"))
    quick = fighter("q", characteristics={"str": 11, "con": 11, "siz": 12, "dex": 14, "int": 10})
    table("start_encounter", {"combatants": [fighter("b"), quick, fighter("a"), fighter("c")]})
    out = table("initiative", {}, [5, 5, 5, 9])
    assert out["order"] == ["c", "a", "b", "q"]
    assert out["concurrent"] == [["a", "b", "q"]]
    assert all("tie_break" not in roll for roll in out["rolls"].values())


def test_action_points_follow_the_attribute_table_when_the_data_chooses_it(
    model: RulesetBase,
) -> None:
    fixed = Table(model)
    sharp = fighter("s", characteristics={"str": 11, "con": 11, "siz": 12, "dex": 18, "int": 18})
    fixed("start_encounter", {"combatants": [fighter("a"), sharp]})
    assert fixed.who("s")["action_points_max"] == 2
    table = Table(edited(model, "action_points.method", "table"))
    table("start_encounter", {"combatants": [fighter("a"), sharp]})
    assert table.who("a")["action_points_max"] == 2  # INT+DEX 24
    assert table.who("s")["action_points_max"] == 3  # INT+DEX 36


def _melee_skill(model: RulesetBase, cap: str) -> int:
    view = view_of(model)
    table = Table(model)
    duel(table, fighter("a"), fighter("b"))
    a, b = table.typed("a"), table.typed("b")
    return attack_terms(view, a, b, view.arm("broadsword"), Situation(cap=cap)).skill


def test_every_skill_cap_in_the_data_caps_the_combat_skill(model: RulesetBase) -> None:
    assert _melee_skill(model, "climbing") == 30  # athletics
    assert _melee_skill(model, "unstable_footing") == 20  # acrobatics
    house = edited(model, "skill_caps.climbing.capped_by", "acrobatics")
    assert _melee_skill(house, "climbing") == 20
    house = edited(model, "skill_caps.climbing.capped_by", "evade")
    assert _melee_skill(house, "climbing") == 40


def test_a_skill_cap_the_data_lacks_is_refused(model: RulesetBase) -> None:
    with pytest.raises(EngineError, match="unknown skill cap 'levitating'"):
        _melee_skill(model, "levitating")


def _grade_with(model: RulesetBase, weapon: str, **situations: list[str]) -> str:
    view = view_of(model)
    table = Table(model)
    duel(table, fighter("a", weapons=[weapon]), fighter("b"))
    a, b = table.typed("a"), table.typed("b")
    return attack_terms(view, a, b, view.arm(weapon), Situation(**situations)).grade.id


def test_a_situational_modifier_is_refused_outside_its_context(model: RulesetBase) -> None:
    assert _grade_with(model, "short_bow", attacker_situations=["ranged_gale"]) == "hopeless"
    with pytest.raises(EngineError, match="'ranged_gale' is for ranged combat"):
        _grade_with(model, "broadsword", attacker_situations=["ranged_gale"])
    house = edited(model, "situational_modifiers.ranged_gale.context", "close")
    assert _grade_with(house, "broadsword", attacker_situations=["ranged_gale"]) == "hopeless"


def test_a_situational_modifier_is_refused_on_the_roll_it_does_not_apply_to(
    model: RulesetBase,
) -> None:
    behind = ["close_attack_from_behind"]
    _grade_with(model, "broadsword", defender_situations=behind)
    with pytest.raises(EngineError, match="applies to the defence roll"):
        _grade_with(model, "broadsword", attacker_situations=behind)
    house = edited(model, "situational_modifiers.close_attack_from_behind.applies_to", "all")
    assert _grade_with(house, "broadsword", attacker_situations=behind) == "formidable"


def _swing(
    model: RulesetBase, a: dict[str, Any], b: dict[str, Any], dice: list[int], **body: Any
) -> dict[str, Any]:
    table = Table(model)
    duel(table, a, b)
    result: dict[str, Any] = table("exchange", {"attacker": "a", "defender": "b", **body}, dice)
    return result


def test_a_parry_is_ignored_only_by_an_effect_whose_data_says_ignores_parry(
    model: RulesetBase,
) -> None:
    body = {"effects": [{"id": "circumvent_parry"}], "parry_weapon": "heater"}
    out = _swing(model, fighter("a"), fighter("b"), [3, 30, 6, 10], **body)
    assert out["blow"]["after_parry"] == 6
    house = edited(model, "special_effects.circumvent_parry.params.ignores_parry", False)
    out = _swing(house, fighter("a"), fighter("b"), [3, 30, 6, 10], **body)
    assert out["blow"]["after_parry"] == 0  # the large heater blocks the medium sword


def test_the_range_an_effect_sets_is_read_from_its_sets_range(model: RulesetBase) -> None:
    spear = fighter("b", weapons=["shortspear"])
    body = {"effects": [{"id": "close_range"}], "parry_weapon": "shortspear"}
    out = _swing(model, fighter("a"), spear, [30, 90, 1, 10], **body)
    assert out["effects"][0]["engaged_reach"] == "medium"
    house = edited(model, "special_effects.close_range.params.sets_range", "longer")
    out = _swing(house, fighter("a"), spear, [30, 90, 1, 10], **body)
    assert out["effects"][0]["engaged_reach"] == "long"


def test_marksman_moves_a_hit_as_many_steps_as_its_location_steps(model: RulesetBase) -> None:
    archer = fighter("a", weapons=["short_bow"])
    shot = {"defence": "none", "situation": {"distance": 30}}
    head = {"effects": [{"id": "marksman", "location": "head"}], **shot}
    with pytest.raises(EngineError, match="adjoining location of right_leg"):
        _swing(model, archer, fighter("b"), [30, 1, 1], **head)
    house = edited(model, "special_effects.marksman.params.location_steps", 3)
    out = _swing(house, archer, fighter("b"), [30, 1, 1], **head)  # leg, abdomen, chest, head
    assert out["blow"]["location"] == "head"
    house = edited(model, "special_effects.marksman.params.location_steps", 2)
    with pytest.raises(EngineError, match="2 steps of right_leg"):
        _swing(house, archer, fighter("b"), [30, 1, 1], **head)


def test_maximize_damage_sets_as_many_dice_as_its_maximized_dice(model: RulesetBase) -> None:
    clubber = fighter("a", weapons=["great_club"])
    body = {"effects": [{"id": "maximize_damage"}], "defence": "none"}
    out = _swing(model, clubber, fighter("b"), [3, 4, 10, 1, 1], **body)
    assert out["blow"]["damage_rolls"] == [10]  # 1d6 + 6
    house = edited(model, "special_effects.maximize_damage.params.maximized_dice", 2)
    out = _swing(house, clubber, fighter("b"), [3, 10, 1, 1], **body)  # no damage die
    assert out["blow"]["damage_rolls"] == [12]


def test_an_impaled_weapon_is_pulled_free_with_the_data_s_withdraw_skill(
    model: RulesetBase,
) -> None:
    house = edited(model, "special_effects.impale.params.withdraw_skill", "athletics")
    for rules, skill in ((model, "brawn"), (house, "athletics")):
        table = Table(rules)
        duel(table, fighter("a"), fighter("b", armor={"chest": "mail"}))
        impale = {"attacker": "a", "defender": "b", "effects": [{"id": "impale"}]}
        table("exchange", impale, [30, 90, 8, 8, 10])
        pull = {"combatant": "a", "action": "ready_weapon", "weapon": "broadsword"}
        out = table("act", pull, [25, 5])
        assert out["pull_free"]["roll"]["skill"] == skill
        assert table.rolled[0] == (f"1d100 {skill}", 25)
