"""One scripted exchange per special effect, showing its consequence.

Stock fighters (helpers.fighter): Combat Style 60, Evade 40, Endurance 40, Willpower 40,
Brawn 30, Athletics 30, Acrobatics 20; damage modifier +0; hit points head 5, chest 7,
abdomen 6, arms 4, legs 5. Dice order: attack d100, defence d100, damage, location, then the
effects' own rolls in the order chosen, then wound rolls, then knockback.
"""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def swing(table: Table, dice: list[int], effects: list[dict[str, Any]], **body: Any) -> dict:
    request = {"attacker": "a", "defender": "b", "effects": effects, **body}
    return table("exchange", request, dice)


def effect(out: dict, effect_id: str) -> dict:
    return next(e for e in out["effects"] if e["id"] == effect_id)


def test_maximize_damage_stacks_to_count_the_die_at_its_maximum(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [3, 90, 10, 2, 95], [{"id": "maximize_damage"}, {"id": "maximize_damage"}])
    assert out["blow"]["damage_rolls"] == [8]  # 1d8 counted as 8, no die rolled
    assert out["blow"]["damage"] == 8


def test_bypass_armor_ignores_the_worn_armour(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", armor={"chest": "mail"}))
    out = swing(
        table,
        [3, 90, 5],
        [{"id": "bypass_armor"}, {"id": "choose_location", "location": "chest"}],
    )
    assert out["blow"]["armor"] == 0
    assert out["blow"]["to_hit_points"] == 5


def test_choose_location_puts_the_blow_where_the_winner_wants(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 4], [{"id": "choose_location", "location": "head"}])
    assert out["blow"]["location"] == "head"
    assert table.who("b")["hit_points"]["head"] == 1


def test_choose_location_with_a_bow_needs_a_critical_unless_close_and_unaware(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [30])
    assert out["ineligible"]["choose_location"] == "with a ranged weapon it needs a critical"
    close = {"distance": 10, "target_stationary": True}
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "none", "situation": close},
        [30],
    )
    assert "choose_location" in {e["id"] for e in out["eligible"]}


def test_impale_rolls_damage_twice_keeps_the_better_and_sticks_in_the_wound(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 3, 6, 10], [{"id": "impale"}])
    assert out["blow"]["damage_rolls"] == [3, 6]
    assert out["blow"]["damage"] == 6
    assert table.who("b")["conditions"]["impaled"]["grades"] == ["formidable"]
    with pytest.raises(EngineError, match="impaled"):
        table("exchange", {"attacker": "a", "defender": "b", "weapon": "broadsword"})


def test_bleed_needs_a_wound_then_endurance_or_a_fatigue_level_each_round(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 2, 10, 95], [{"id": "bleed"}])
    assert effect(out, "bleed")["resistance"]["resisted"] is False
    assert table.who("b")["conditions"]["bleeding"]["fatigue_per_round"] == 1
    duel(table, fighter("a"), fighter("b", armor={"chest": "mail"}))
    out = swing(table, [30, 90, 2, 10], [{"id": "bleed"}])
    assert effect(out, "bleed")["outcome"] == "no effect: the blow did not wound"


def test_stun_location_incapacitates_the_location_for_turns_equal_to_damage(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    out = swing(table, [30, 90, 3, 13, 95], [{"id": "stun_location"}])
    stun = effect(out, "stun_location")
    # The numbed weapon hand lets go (combat.hands.stunned_arm; test_hands has the rest).
    assert stun["outcome"] == "right_arm incapacitated for 3 turns; drops broadsword"
    assert table.who("b")["conditions"]["stunned"]["locations"] == {"right_arm": 3}


def test_sunder_strips_armour_before_hit_points(table: Table) -> None:
    duel(table, fighter("a", weapons=["great_axe"]), fighter("b", armor={"chest": "mail"}))
    out = swing(
        table,
        [3, 90, 6, 6, 95],
        [{"id": "sunder"}, {"id": "choose_location", "location": "chest"}],
    )
    # 2d6+2 = 14 against mail 6: the 8 over it strips all 6 AP, 2 carry on to hit points
    assert table.who("b")["armor"]["chest"] == 0
    assert out["blow"]["to_hit_points"] == 2
    assert out["knockback"]["metres"] == 1


def test_damage_weapon_by_the_attacker_hits_the_parrying_weapon(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 8], [{"id": "damage_weapon"}], parry_weapon="heater")
    assert out["blow"]["weapon"] == "heater"
    assert table.who("b")["weapons"]["heater"]["hp"] == 12 - (8 - 6)


def test_damage_weapon_by_the_defender_hits_the_attacking_weapon(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [80, 30, 8], [{"id": "damage_weapon"}], parry_weapon="broadsword")
    assert out["weapon_damage"] == {"weapon": "broadsword", "rolled": 8, "armor": 6, "damage": 2}
    assert table.who("a")["weapons"]["broadsword"]["hp"] == 8


def test_disarm_opponent_is_harder_to_resist_for_each_size_the_disarmer_is_larger(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["great_axe"]), fighter("b", weapons=["dagger"]))
    out = swing(
        table,
        [30, 90, 1, 1, 1, 20],
        [{"id": "disarm_opponent"}],
        parry_weapon="dagger",
    )
    resist = effect(out, "disarm_opponent")["resistance"]
    assert resist["target"] == 6  # three sizes larger: Herculean, 60 → 6
    assert resist["resisted"] is False
    assert table.who("b")["conditions"]["disarmed"]["weapons"] == ["dagger"]
    with pytest.raises(EngineError, match="disarmed"):
        table("exchange", {"attacker": "b", "defender": "a", "weapon": "dagger"})


def test_trip_opponent_puts_the_loser_prone_unless_he_resists(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 1, 10, 50], [{"id": "trip_opponent"}])
    assert effect(out, "trip_opponent")["resistance"]["skill"] == "evade"
    assert "prone" in table.who("b")["conditions"]
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 1, 10, 35], [{"id": "trip_opponent"}])
    assert effect(out, "trip_opponent")["outcome"] == "resisted"


def test_grip_holds_the_foe(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    out = swing(table, [30, 90, 2, 10], [{"id": "grip"}], weapon="unarmed")
    assert effect(out, "grip")["condition"] == "gripped"
    assert table.who("b")["conditions"]["gripped"]["by"] == "a"


def test_entangle_snares_the_location_struck(table: Table) -> None:
    duel(table, fighter("a", weapons=["net"]), fighter("b"))
    out = swing(table, [30, 90, 3, 19], [{"id": "entangle"}])
    assert effect(out, "entangle")["outcome"] == "head entangled: all skills hard"
    with pytest.raises(EngineError, match="entangled"):
        table("exchange", {"attacker": "a", "defender": "b", "defence": "evade"})


def test_pin_weapon_makes_the_pinned_shield_unusable(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    swing(table, [3, 90, 1, 10], [{"id": "pin_weapon", "weapon": "heater"}])
    with pytest.raises(EngineError, match="pinned"):
        table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"})


def test_press_advantage_stops_the_defender_attacking_next_turn(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    swing(table, [30, 90, 1, 10], [{"id": "press_advantage"}])
    with pytest.raises(EngineError, match="cannot attack"):
        table("exchange", {"attacker": "b", "defender": "a"})


def test_overextend_opponent_stacks_turns_without_attacking(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    swing(table, [99, 30], [{"id": "overextend_opponent"}, {"id": "overextend_opponent"}])
    assert table.who("a")["conditions"]["cannot_attack"]["turns"] == 2


def test_withdraw_breaks_off_engagement(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["engaged"] = {"turns": None, "with": ["a"]}
    out = swing(table, [80, 30], [{"id": "withdraw"}])
    assert effect(out, "withdraw")["outcome"] == "withdraws out of a's reach"
    assert table.who("b")["conditions"]["engaged"]["with"] == []


def test_force_failure_makes_the_fumbler_fail_the_paired_resistance_roll(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(
        table,
        [99, 30],
        [{"id": "trip_opponent"}, {"id": "force_failure", "with_effect": "trip_opponent"}],
    )
    assert effect(out, "trip_opponent")["resistance"] == {"force_failure": True}
    assert "prone" in table.who("a")["conditions"]
    with pytest.raises(EngineError, match="must name"):
        swing(table, [99, 30], [{"id": "force_failure"}])


def test_select_target_sends_the_fumbled_blow_into_a_bystander(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b"), fighter("c")]})
    table.state["phase"] = "free"  # type: ignore[index]
    out = swing(table, [99, 30, 5, 10], [{"id": "select_target"}], bystander="c")
    assert out["blow"]["target"] == "c"
    assert table.who("c")["hit_points"]["chest"] == 2


def test_accidental_injury_makes_the_fumbler_strike_himself(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [99, 30, 6, 19, 1, 95], [{"id": "accidental_injury"}])
    assert out["self_injury"]["location"] == "head"
    assert out["self_injury"]["wound"]["wound"] == "serious"
    assert table.who("a")["hit_points"]["head"] == -1


def test_enhance_parry_blocks_everything_whatever_the_size(table: Table) -> None:
    duel(table, fighter("a", weapons=["great_axe"]), fighter("b", weapons=["dagger"]))
    out = swing(table, [30, 3, 6, 6, 10, 90], [{"id": "enhance_parry"}], parry_weapon="dagger")
    assert out["blow"]["after_parry"] == 0
    assert out["blow"]["parry"]["by"] == "enhance_parry"


def test_circumvent_parry_ignores_a_successful_parry(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [3, 30, 6, 10], [{"id": "circumvent_parry"}], parry_weapon="heater")
    assert out["blow"]["after_parry"] == 6
    assert table.who("b")["hit_points"]["chest"] == 1


def test_blind_opponent_blinds_the_attacker_for_1d3_turns(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [80, 3, 70, 2], [{"id": "blind_opponent"}])
    assert effect(out, "blind_opponent")["resistance"]["skill"] == "combat_style"
    assert table.who("a")["conditions"]["blinded"]["turns"] == 2


def test_slip_free_escapes_a_hold(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["gripped"] = {"turns": None, "by": "a"}
    out = swing(table, [80, 3], [{"id": "slip_free"}])
    assert effect(out, "slip_free")["outcome"] == "free of gripped"
    assert "gripped" not in table.who("b")["conditions"]


def test_arise_lets_a_prone_defender_stand(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["prone"] = {"turns": None}
    out = table("exchange", {"attacker": "a", "defender": "b"}, [80, 30])
    assert "arise" in {e["id"] for e in out["eligible"]}
    table("choose_effects", {"token": out["token"], "effects": [{"id": "arise"}]})
    assert "prone" not in table.who("b")["conditions"]


def test_knockback_topples_a_foe_unless_he_stands_fast(table: Table) -> None:
    duel(
        table, fighter("a", weapons=["great_hammer"]), fighter("b", armor={"chest": "plated_mail"})
    )
    out = swing(table, [50, 90, 10, 10, 50], [])
    assert out["knockback"]["metres"] == 1  # 13 damage against SIZ 12
    assert out["knockback"]["prone"] is True
    duel(
        table, fighter("a", weapons=["great_hammer"]), fighter("b", armor={"chest": "plated_mail"})
    )
    out = swing(table, [50, 3, 10, 10], [{"id": "stand_fast"}])
    assert out["knockback"] == {"metres": 0, "negated_by": "stand_fast"}


def test_bash_with_a_shield_knocks_back_a_metre_per_two_points(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 4, 10], [{"id": "bash"}], weapon="heater")
    assert effect(out, "bash")["metres"] == 2


def test_compel_surrender_works_on_a_disadvantaged_foe(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["prone"] = {"turns": None}
    out = swing(table, [30, 90, 1, 10, 60], [{"id": "compel_surrender"}])
    assert effect(out, "compel_surrender")["resistance"]["skill"] == "willpower"
    assert "surrendered" in table.who("b")["conditions"]


def test_take_weapon_takes_the_foes_weapon_for_the_unarmed_fighter(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    swing(
        table,
        [30, 90, 1, 10, 70],
        [{"id": "take_weapon"}],
        weapon="unarmed",
        parry_weapon="broadsword",
    )
    assert "broadsword" in table.who("a")["weapons"]
    assert table.who("b")["conditions"]["taken"]["weapons"] == ["broadsword"]


def test_close_range_and_open_range_set_the_engagement_reach(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", weapons=["shortspear"]))
    out = swing(table, [30, 90, 1, 10], [{"id": "close_range"}], parry_weapon="shortspear")
    assert effect(out, "close_range")["engaged_reach"] == "medium"
    out = swing(table, [80, 30], [{"id": "open_range"}], parry_weapon="shortspear")
    assert effect(out, "open_range")["engaged_reach"] == "long"


def test_flurry_and_remise_grant_a_follow_up_attack(table: Table) -> None:
    duel(table, fighter("a", weapons=["dagger"]), fighter("b"))
    swing(table, [30, 90, 1, 10], [{"id": "remise"}], weapon="dagger")
    assert table.who("a")["conditions"]["follow_up_attack"]["effect"] == "remise"
    duel(table, fighter("a", weapons=[]), fighter("b"))
    swing(table, [3, 90, 1, 10], [{"id": "flurry"}, {"id": "flurry"}], weapon="unarmed")
    assert table.who("a")["conditions"]["follow_up_attack"]["effect"] == "flurry"


def test_prepare_counter_cancels_the_anticipated_effect(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    swing(table, [80, 30], [{"id": "prepare_counter", "counter": "trip_opponent"}])
    assert table.who("b")["conditions"]["prepared_counter"]["effect"] == "trip_opponent"
    out = swing(table, [30, 90, 1, 10], [{"id": "trip_opponent"}])
    assert out["counter"]["cancelled"] == "trip_opponent"
    assert out["effects"] == []
    assert "prone" not in table.who("b")["conditions"]


def test_kill_silently_needs_the_assassination_trait_and_a_surprised_victim(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["dagger"]), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [30])
    assert out["ineligible"]["kill_silently"] == "needs the assassination style trait"


def test_scar_foe_is_narrative_and_recorded(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [30, 90, 1, 10], [{"id": "scar_foe"}])
    assert effect(out, "scar_foe") == {
        "id": "scar_foe",
        "name": "Scar Foe",
        "narrative": True,
        "outcome": "recorded",
    }
    assert table.who("b")["marks"] == ["scar_foe"]


def test_spoil_spell_needs_a_caster(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["casting"] = {"turns": None}
    out = swing(table, [30, 90, 1, 10], [{"id": "spoil_spell"}])
    assert effect(out, "spoil_spell")["narrative"] is True


def test_ranged_effects_rapid_reload_marksman_pin_down_and_overpenetration(
    table: Table,
) -> None:
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    shot = {"defence": "none", "situation": {"distance": 30}}
    swing(table, [30, 1, 10], [{"id": "rapid_reload"}], **shot)
    assert table.who("a")["conditions"]["rapid_reload"]["turns_off"] == 1
    out = swing(table, [30, 1, 1], [{"id": "marksman", "location": "abdomen"}], **shot)
    assert out["blow"]["location"] == "abdomen"
    with pytest.raises(EngineError, match="adjoining"):
        swing(table, [30, 1, 1], [{"id": "marksman", "location": "head"}], **shot)
    out = swing(table, [30, 1, 10, 70], [{"id": "pin_down"}], **shot)
    assert table.who("b")["conditions"]["pinned_down"]["turns"] == 1
    out = swing(table, [3, 4, 10], [{"id": "overpenetration"}], **shot)
    assert effect(out, "overpenetration")["outcome"] == (
        "passes through: the next target takes 2 damage"
    )
    out = swing(table, [30, 1, 19], [{"id": "circumvent_cover"}], **shot)
    assert effect(out, "circumvent_cover")["narrative"] is True
    out = swing(table, [30, 1, 1], [{"id": "duck_back"}], **shot)
    assert effect(out, "duck_back")["narrative"] is True


FIREARM = """
[[ranged_weapons]]
id = "arquebus"
name = "Arquebus"
kind = "firearm"
damage = "2d6"
damage_modifier = false
force = "huge"
range = { close = 10, effective = 50, long = 100 }
load = 3
effects = []
"""


@pytest.fixture(scope="module")
def firearms(tmp_path_factory: Any) -> Any:
    from arbiter.compiler.model.loader import load_ruleset

    tmp_path = tmp_path_factory.mktemp("firearms")
    folder = tmp_path / "house" / "combat-styles"
    folder.mkdir(parents=True)
    (folder / "ranged_weapons.toml").write_text(FIREARM, encoding="utf-8")
    return load_ruleset("combat-styles", overlay=tmp_path / "house").model


def test_drop_foe_from_a_firearm_wound_incapacitates_for_an_hour_over_healing_rate(
    firearms: Any,
) -> None:
    table = Table(firearms)
    duel(table, fighter("a", weapons=["arquebus"]), fighter("b"))
    out = swing(table, [30, 1, 1, 10, 80], [{"id": "drop_foe"}], defence="none")
    drop = effect(out, "drop_foe")
    assert drop["resistance"]["resisted"] is False
    assert table.who("b")["conditions"]["incapacitated"]["lasts"] == "30 minutes"  # HR 2


def test_weapon_malfunction_jams_a_fumbled_firearm(firearms: Any) -> None:
    table = Table(firearms)
    duel(table, fighter("a", weapons=["arquebus"]), fighter("b"))
    out = swing(table, [100, 30], [{"id": "weapon_malfunction"}], parry_weapon="heater")
    assert effect(out, "weapon_malfunction")["condition"] == "malfunction"
    with pytest.raises(EngineError, match="malfunction"):
        table("exchange", {"attacker": "a", "defender": "b", "weapon": "arquebus"})


def test_a_stunned_torso_can_only_defend_and_a_stunned_head_is_insensible(table: Table) -> None:
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    swing(table, [30, 90, 2, 10, 95], [{"id": "stun_location"}])
    assert table.who("b")["conditions"]["cannot_attack"]["turns"] == 2
    duel(table, fighter("a", weapons=["mace"]), fighter("b"))
    swing(table, [30, 90, 2, 19, 95], [{"id": "stun_location"}])
    assert table.who("b")["conditions"]["incapacitated"]["turns"] == 2


def test_a_braced_target_counts_double_against_bash(table: Table) -> None:
    """Bash on a target over its SIZ limit is refused when chosen, like every ineligible effect
    (it used to be offered and then do nothing)."""
    small = fighter("a", characteristics={"str": 11, "con": 11, "siz": 7, "dex": 12, "int": 12})
    duel(table, small, fighter("b"))  # b's SIZ 12 ≤ 2 × 7, but braced 24 > 14
    body = {"attacker": "a", "defender": "b", "weapon": "heater"}
    out = table("exchange", body, [30, 90])
    assert "bash" in {e["id"] for e in out["eligible"]}
    out = table("exchange", body | {"situation": {"defender_braced": True}}, [30, 90])
    assert "bash" not in {e["id"] for e in out["eligible"]}
    assert out["ineligible"]["bash"] == "works only on targets up to 2× the taker's SIZ"
    with pytest.raises(EngineError, match="Bash cannot be chosen: works only on targets up to 2×"):
        table("choose_effects", {"token": out["token"], "effects": [{"id": "bash"}]})


def test_a_resistance_over_100_lowers_the_original_roll_too(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", skills={"evade": 120}))
    # a succeeds with 55 of 60; b's Evade 120 resists the trip: both lose 20, so a's 55 is
    # now a failure against 40 and b's 90 succeeds against 100
    out = swing(table, [55, 95, 1, 10, 90], [{"id": "trip_opponent"}], parry_weapon="heater")
    resist = effect(out, "trip_opponent")["resistance"]
    assert resist["target"] == 100
    assert resist["resisted"] is True


def test_a_quadruped_resists_a_trip_with_athletics_one_grade_easier(table: Table) -> None:
    horse = fighter("b", quadruped=True, skills={"athletics": 50, "evade": 20})
    duel(table, fighter("a"), horse)
    out = swing(table, [30, 95, 1, 10, 70], [{"id": "trip_opponent"}], parry_weapon="heater")
    resist = effect(out, "trip_opponent")["resistance"]
    assert resist["skill"] == "athletics"
    assert resist["target"] == 75  # Easy: 50 × 1.5


def test_an_evading_defender_who_wins_can_still_disarm_with_his_hands(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = swing(table, [80, 30, 95], [{"id": "disarm_opponent"}], defence="evade")
    assert effect(out, "disarm_opponent")["condition"] == "disarmed"
    assert table.who("a")["conditions"]["disarmed"]["weapons"] == ["broadsword"]
    with pytest.raises(EngineError, match="does not hold 'mace'"):
        swing(table, [80, 10], [{"id": "disarm_opponent", "weapon": "mace"}], defence="evade")


def test_winning_damage_weapon_frees_an_entangled_fighter(table: Table) -> None:
    duel(table, fighter("a", weapons=["net"]), fighter("b"))
    swing(table, [30, 90, 3, 19], [{"id": "entangle"}])
    out = swing(table, [80, 30, 2], [{"id": "damage_weapon"}], parry_weapon="broadsword")
    assert "b breaks free (entangled)" in out["notes"]
    assert "entangled" not in table.who("b")["conditions"]


def test_disarm_and_take_weapon_are_refused_up_front_against_a_foe_over_twice_the_str(
    table: Table,
) -> None:
    """Disarm Opponent and Take Weapon work "only on targets up to 2× STR": against a giant
    (STR 25 > 2 × 11) they are listed as ineligible with that reason and cannot be chosen."""
    giant = fighter("b", characteristics={"str": 25, "con": 11, "siz": 12, "dex": 12, "int": 12})
    duel(table, fighter("a", weapons=[]), giant)  # unarmed: Take Weapon needs empty hands
    body = {"attacker": "a", "defender": "b", "weapon": "unarmed", "parry_weapon": "broadsword"}
    out = table("exchange", body, [30, 90])
    assert {"disarm_opponent", "take_weapon"}.isdisjoint({e["id"] for e in out["eligible"]})
    reason = "works only on targets up to 2× the taker's STR"
    assert out["ineligible"]["disarm_opponent"] == reason
    assert out["ineligible"]["take_weapon"] == reason
    for effect_id, name in (("disarm_opponent", "Disarm Opponent"), ("take_weapon", "Take Weapon")):
        with pytest.raises(EngineError, match=f"{name} cannot be chosen: {reason}"):
            table("choose_effects", {"token": out["token"], "effects": [{"id": effect_id}]})


def test_the_str_limit_reads_each_fight_s_own_stat_blocks(table: Table) -> None:
    giant = fighter("b", characteristics={"str": 25, "con": 11, "siz": 12, "dex": 12, "int": 12})
    duel(table, fighter("a"), giant)
    out = table("exchange", {"attacker": "a", "defender": "b"}, [30, 90])
    assert "disarm_opponent" in out["ineligible"]
    duel(table, fighter("a"), fighter("b"))  # the same ids, an ordinary foe
    out = table("exchange", {"attacker": "a", "defender": "b"}, [30, 90])
    assert "disarm_opponent" in {e["id"] for e in out["eligible"]}
