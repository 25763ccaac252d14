"""The engine finds special effects by the mechanic their data names, not by their id: a renamed
or cloned effect works like the original, an effect given another mechanic works like that one,
and the effect governing each lasting condition is the one ``combat.effect_conditions`` names.

Dice order as in test_special_effects: attack d100, defence d100, damage, location, the effects'
own rolls, wound rolls, knockback."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

from arbiter.bridge.engine.combat_styles.effects.special_effects import HANDLERS
from arbiter.compiler.model.combat_styles.effects import Mechanic
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited


def cloned(model: RulesetBase, effect_id: str, new_id: str, name: str, **update: Any) -> Any:
    """``model`` with a copy of ``effect_id`` under ``new_id`` (and ``update``) added."""
    effects = model.special_effects  # type: ignore[attr-defined]
    original = next(e for e in effects if e.id == effect_id)
    copy = original.model_copy(update={"id": new_id, "name": name, **update})
    return edited(model, "special_effects", [*effects, copy])


def listing(model: RulesetBase, weapon: str, effect_id: str) -> Any:
    """``model`` with ``weapon`` also listing ``effect_id``."""
    arm = next(w for w in model.weapons if w.id == weapon)  # type: ignore[attr-defined]
    return edited(model, f"weapons.{weapon}.effects", (*arm.effects, effect_id))


def swing(
    model: RulesetBase,
    a: dict[str, Any],
    b: dict[str, Any],
    dice: list[int],
    effects: list[dict[str, Any]],
    **body: Any,
) -> tuple[Table, dict[str, Any]]:
    table = Table(model)
    duel(table, a, b)
    request = {"attacker": "a", "defender": "b", "effects": effects, **body}
    out: dict[str, Any] = table("exchange", request, dice)
    return table, out


def test_every_mechanic_the_rule_data_may_name_has_a_consequence_in_the_engine() -> None:
    assert set(HANDLERS) == set(get_args(Mechanic))


def test_a_copy_of_sunder_under_a_new_id_strips_armour_like_sunder(model: RulesetBase) -> None:
    house = listing(cloned(model, "sunder", "shatter", "Shatter"), "great_axe", "shatter")
    choose = {"id": "choose_location", "location": "chest"}
    a, b = fighter("a", weapons=["great_axe"]), fighter("b", armor={"chest": "mail"})
    table, out = swing(house, a, b, [3, 90, 6, 6, 95], [{"id": "shatter"}, choose])
    # 2d6+2 = 14 against mail 6: the 8 over it strips all 6 AP, 2 carry on to hit points
    assert table.who("b")["armor"]["chest"] == 0
    assert out["blow"]["to_hit_points"] == 2
    assert out["effects"][0] == {
        "id": "shatter",
        "name": "Shatter",
        "outcome": "the damage goes against the armour first",
    }


def test_stand_fast_is_whichever_effect_has_its_mechanic(model: RulesetBase) -> None:
    a = fighter("a", weapons=["great_hammer"])
    b = fighter("b", armor={"chest": "plated_mail"})
    house = cloned(model, "stand_fast", "brace", "Brace")
    _, out = swing(house, a, b, [50, 3, 10, 10], [{"id": "brace"}])
    assert out["knockback"] == {"metres": 0, "negated_by": "brace"}
    plain = edited(model, "special_effects.stand_fast.mechanic", "generic")
    _, out = swing(plain, a, b, [50, 3, 10, 10, 50], [{"id": "stand_fast"}])
    assert out["knockback"]["metres"] == 1  # 13 damage against SIZ 12: no longer negated
    assert out["knockback"]["prone"] is True


def test_a_house_rule_file_may_add_a_copy_of_an_effect_under_its_own_id(tmp_path: Path) -> None:
    folder = tmp_path / "combat-styles"
    folder.mkdir()
    (folder / "special_effects.toml").write_text(
        '[[special_effects]]\nid = "brace"\nname = "Brace"\ntaker = "defender"\n'
        'mechanic = "stand_fast"\ndescription = "Stand Fast under a house name."\n',
        encoding="utf-8",
    )
    house = load_ruleset("combat-styles", overlay=tmp_path).model
    a = fighter("a", weapons=["great_hammer"])
    b = fighter("b", armor={"chest": "plated_mail"})
    _, out = swing(house, a, b, [50, 3, 10, 10], [{"id": "brace"}])
    assert out["knockback"] == {"metres": 0, "negated_by": "brace"}
    assert out["effects"] == [{"id": "brace", "name": "Brace", "outcome": "no knockback"}]


def test_select_target_and_damage_weapon_work_under_new_ids(model: RulesetBase) -> None:
    house = cloned(model, "select_target", "redirect", "Redirect")
    table = Table(house)
    table("start_encounter", {"combatants": [fighter("a"), fighter("b"), fighter("c")]})
    assert table.state is not None
    table.state["phase"] = "free"
    request = {"attacker": "a", "defender": "b", "effects": [{"id": "redirect"}], "bystander": "c"}
    out = table("exchange", request, [99, 30, 5, 10])
    assert out["blow"]["target"] == "c"
    notch = cloned(model, "damage_weapon", "notch", "Notch")
    table, out = swing(
        notch, fighter("a"), fighter("b"), [30, 90, 8], [{"id": "notch"}], parry_weapon="heater"
    )
    assert out["blow"]["weapon"] == "heater"
    assert table.who("b")["weapons"]["heater"]["hp"] == 12 - (8 - 6)


def test_a_parry_blocking_everything_names_the_effect_that_did_it(model: RulesetBase) -> None:
    house = cloned(model, "enhance_parry", "turn_blow", "Turn Blow")
    a, b = fighter("a", weapons=["great_axe"]), fighter("b", weapons=["dagger"])
    dice = [30, 3, 6, 6, 10, 90]
    _, out = swing(house, a, b, dice, [{"id": "turn_blow"}], parry_weapon="dagger")
    assert out["blow"]["parry"]["by"] == "turn_blow"
    assert "Turn Blow blocks everything" in out["blow"]["steps"]


def test_the_dispatcher_applies_the_named_mechanic_not_the_id(model: RulesetBase) -> None:
    house = cloned(model, "trip_opponent", "hook", "Hook")
    table, out = swing(house, fighter("a"), fighter("b"), [30, 90, 1, 10, 50], [{"id": "hook"}])
    assert out["effects"][0]["resistance"]["skill"] == "evade"
    assert "prone" in table.who("b")["conditions"]
    # Trip's data with Grip's mechanic: the foe is gripped, not tripped (no resistance roll).
    gripping = edited(model, "special_effects.trip_opponent.mechanic", "grip")
    table, out = swing(
        gripping, fighter("a"), fighter("b"), [30, 90, 1, 10], [{"id": "trip_opponent"}]
    )
    assert table.who("b")["conditions"]["gripped"]["by"] == "a"
    assert "prone" not in table.who("b")["conditions"]


def _entangled_then_parry(model: RulesetBase) -> dict[str, Any]:
    table, _ = swing(
        model, fighter("a", weapons=["net"]), fighter("b"), [30, 90, 3, 19], [{"id": "entangle"}]
    )
    out: dict[str, Any] = table(
        "exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 35]
    )
    return out["defence_roll"]


def test_the_effect_governing_an_entangled_head_is_the_one_effect_conditions_names(
    model: RulesetBase,
) -> None:
    assert _entangled_then_parry(model)["grade"] == "hard"
    snare = cloned(model, "entangle", "snare", "Snare", params=_params(model, "formidable"))
    assert _entangled_then_parry(snare)["grade"] == "hard"  # entangle still governs
    governed = edited(snare, "combat.effect_conditions.entangled", "snare")
    assert _entangled_then_parry(governed)["grade"] == "formidable"


def _params(model: RulesetBase, grade: str) -> Any:
    entangle = next(e for e in model.special_effects if e.id == "entangle")  # type: ignore[attr-defined]
    return entangle.params.model_copy(update={"imposes_grade": grade})


def test_which_effects_free_an_entangled_fighter_is_read_from_the_governing_effect(
    model: RulesetBase,
) -> None:
    def freed(rules: RulesetBase) -> bool:
        table, _ = swing(
            rules,
            fighter("a", weapons=["net"]),
            fighter("b"),
            [30, 90, 3, 19],
            [{"id": "entangle"}],
        )
        request = {
            "attacker": "a",
            "defender": "b",
            "effects": [{"id": "damage_weapon"}],
            "parry_weapon": "broadsword",
        }
        table("exchange", request, [80, 30, 2])
        return "entangled" not in table.who("b")["conditions"]

    assert freed(model)
    entangle = next(e for e in model.special_effects if e.id == "entangle")  # type: ignore[attr-defined]
    tight = entangle.escape.model_copy(update={"also_by_effects": ("slip_free",)})
    net = cloned(model, "entangle", "tight_net", "Tight Net", escape=tight)
    assert freed(net)  # the original entangle still governs
    assert not freed(edited(net, "combat.effect_conditions.entangled", "tight_net"))


def _stunned(model: RulesetBase, location_die: int) -> dict[str, Any]:
    table, _ = swing(
        model,
        fighter("a", weapons=["mace"]),
        fighter("b"),
        [30, 90, 2, location_die, 95],
        [{"id": "stun_location"}],
    )
    conditions: dict[str, Any] = table.who("b")["conditions"]
    return conditions


def test_which_stunned_locations_leave_the_victim_senseless_is_read_from_the_effect(
    model: RulesetBase,
) -> None:
    assert "incapacitated" in _stunned(model, 19)  # the head
    assert "cannot_attack" in _stunned(model, 10)  # the chest
    house = edited(model, "special_effects.stun_location.params.senseless_locations", ("chest",))
    assert "cannot_attack" in _stunned(house, 19)
    assert "incapacitated" in _stunned(house, 10)


def _pulled_free(model: RulesetBase) -> dict[str, Any]:
    table = Table(model)
    tough = {"str": 11, "con": 18, "siz": 18, "dex": 12, "int": 12, "pow": 10}
    duel(table, fighter("a"), fighter("b", characteristics=tough, armor={"chest": "mail"}))
    impale = {"attacker": "a", "defender": "b", "effects": [{"id": "impale", "leave_in": True}]}
    table("exchange", impale, [30, 90, 8, 8, 10])
    pull = {"combatant": "a", "action": "ready_weapon", "weapon": "broadsword"}
    out: dict[str, Any] = table("act", pull, [25, 5])["pull_free"]
    return out


def test_pulling_an_impaled_weapon_free_follows_the_effect_conditions_name(
    model: RulesetBase,
) -> None:
    out = _pulled_free(model)
    assert (out["roll"]["skill"], out["damage"]) == ("brawn", 3)  # half of 5, rounded up
    impale = next(e for e in model.special_effects if e.id == "impale")  # type: ignore[attr-defined]
    wrench = impale.params.model_copy(update={"withdraw_skill": "athletics"})
    house = cloned(model, "impale", "skewer", "Skewer", params=wrench)
    house = edited(house, "combat.effect_conditions.impaled", "skewer")
    out = _pulled_free(house)
    assert (out["roll"]["skill"], out["damage"]) == ("athletics", 3)


def _blinded_attack_grade(model: RulesetBase) -> str:
    table, _ = swing(model, fighter("a"), fighter("b"), [80, 3, 70, 2], [{"id": "blind_opponent"}])
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 35])
    grade: str = out["attack"]["grade"]
    return grade


def test_the_situation_a_blinded_fighter_fights_in_is_the_close_row_following_blinded(
    model: RulesetBase,
) -> None:
    assert _blinded_attack_grade(model) == "herculean"  # close_blinded
    house = edited(model, "situational_modifiers.close_blinded.while_condition", None)
    assert _blinded_attack_grade(house) == "standard"  # no row follows the condition
    house = edited(house, "situational_modifiers.close_partial_darkness.while_condition", "blinded")
    assert _blinded_attack_grade(house) == "formidable"  # close_partial_darkness's grade


def _shot_through_cover(model: RulesetBase, effect_id: str) -> int:
    shot = {"defence": "none", "situation": {"distance": 30, "cover": {"chest": 3}}}
    a = fighter("a", weapons=["short_bow"])
    _, out = swing(model, a, fighter("b"), [30, 6, 10], [{"id": effect_id}], **shot)
    after: int = out["blow"]["after_parry"]
    return after


def test_a_copy_of_circumvent_cover_shoots_around_the_cover(model: RulesetBase) -> None:
    assert _shot_through_cover(model, "circumvent_cover") == 6  # 1d6 = 6, cover ignored
    house = cloned(model, "circumvent_cover", "ricochet", "Ricochet")
    assert _shot_through_cover(house, "ricochet") == 6
    plain = edited(model, "special_effects.circumvent_cover.mechanic", None)
    assert _shot_through_cover(plain, "circumvent_cover") == 3  # the cover stops 3


def test_a_new_effect_with_the_generic_mechanic_leaves_its_condition(tmp_path: Path) -> None:
    folder = tmp_path / "combat-styles"
    folder.mkdir()
    (folder / "special_effects.toml").write_text(
        '[[special_effects]]\nid = "taunt"\nname = "Taunt"\ntaker = "attacker"\n'
        'mechanic = "generic"\nparams = { duration = { amount = "one", unit = "turns" } }\n'
        'description = "The foe is goaded for a Turn."\n',
        encoding="utf-8",
    )
    house = load_ruleset("combat-styles", overlay=tmp_path).model
    table, out = swing(house, fighter("a"), fighter("b"), [30, 90, 1, 10], [{"id": "taunt"}])
    assert out["effects"] == [{"id": "taunt", "name": "Taunt", "outcome": "applied"}]
    assert table.who("b")["conditions"]["taunt"]["turns"] == 1
