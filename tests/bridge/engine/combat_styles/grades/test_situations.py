"""Situations reached through requests: Ward Location, grapples, odds with an outcome, reach,
counterattacks, luck in an exchange."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def test_ward_location_with_a_shield_covers_its_passive_block_count(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "act",
        {
            "combatant": "b",
            "action": "ward_location",
            "weapon": "heater",
            "locations": ["head", "chest", "left_arm"],
        },
    )
    assert out["warding"] == {"weapon": "heater", "locations": ["chest", "head", "left_arm"]}
    with pytest.raises(EngineError, match="at most 3"):
        table(
            "act",
            {
                "combatant": "b",
                "action": "ward_location",
                "weapon": "heater",
                "locations": ["head", "chest", "left_arm", "abdomen"],
            },
        )
    out = table(
        "act",
        {
            "combatant": "b",
            "action": "ward_location",
            "weapon": "heater",
            "crouching": True,
            "locations": ["head", "chest", "left_arm", "abdomen"],
        },
    )
    assert len(out["warding"]["locations"]) == 4
    # a blow on a warded location is parried by the shield (large vs medium: all blocked)
    hit = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "none", "effects": []},
        [30, 8, 11],
    )
    assert hit["blow"]["location"] == "chest"
    assert hit["blow"]["to_hit_points"] == 0


def test_parrying_actively_with_the_warding_shield_ends_the_ward(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table(
        "act",
        {"combatant": "b", "action": "ward_location", "weapon": "heater", "locations": ["head"]},
    )
    out = table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"}, [80, 90])
    assert "b's heater no longer wards head" in out["notes"]
    assert "warding" not in table.who("b")["conditions"]


def test_a_won_grapple_holds_a_location_instead_of_damaging(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "grapple": True,
            "parry_weapon": "broadsword",
            "effects": [],
        },
        [30, 70, 14],
    )
    assert out["blow"] is None
    assert out["grapple"] == {"location": "right_arm", "limb": True}
    assert table.who("b")["conditions"]["grappled"]["by"] == "a"
    with pytest.raises(EngineError, match="empty hand"):
        table("exchange", {"attacker": "a", "defender": "b", "grapple": True, "weapon": "heater"})


def test_an_exchange_can_carry_its_exact_odds(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "odds": True, "effects": []},
        [80, 90],
    )
    assert out["odds"]["attack"]["levels"]["critical"]["exact"] == "3/50"
    assert out["odds"]["defence"]["target"] == 60


def test_inside_a_longer_weapons_reach_it_cannot_parry(table: Table) -> None:
    duel(table, fighter("a", weapons=["dagger"]), fighter("b", weapons=["longspear"]))
    with pytest.raises(EngineError, match="inside its reach"):
        table(
            "exchange",
            {
                "attacker": "a",
                "defender": "b",
                "parry_weapon": "longspear",
                "situation": {"engaged_reach": "short"},
            },
        )


def test_a_counterattack_counts_as_a_failed_parry(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "counterattack", "effects": []},
        [40, 4, 10],
    )
    assert out["defence_level"] == "failure"
    assert out["differential"]["effects"] == 1
    assert any("counterattack" in n for n in out["notes"])


def test_luck_points_reroll_a_failed_attack_and_are_spent(table: Table) -> None:
    duel(table, fighter("a", luck_points=1), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "attacker_luck": "success",
            "effects": [],
        },
        [90, 20, 4, 10],
    )
    assert out["attack"]["luck_rerolled_from"] == 90
    assert out["attack"]["roll"] == 20
    assert table.who("a")["luck_points"] == 0
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "none", "attacker_luck": "success"},
        [90],
    )
    assert "luck_rerolled_from" not in out["attack"]


def test_a_defender_over_100_lowers_both_skills_unless_he_parries_after_seeing(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b", skills={"combat_style": 130}))
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [40, 99])
    assert out["attack"]["target"] == 30  # 60 − 30
    assert out["attack"]["level"] == "failure"
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_only_if_hit": True, "effects": []},
        [40, 99, 1, 10],
    )
    assert out["attack"]["target"] == 60
    assert out["defence_roll"]["level"] == "failure"  # 99 is no fumble over 100


def test_a_surprised_defender_may_defend_once_his_initiative_has_come(table: Table) -> None:
    table(
        "start_encounter",
        {"combatants": [fighter("a"), fighter("b"), fighter("c")], "surprised": ["b"]},
    )
    table("initiative", {}, [9, 9, 1])  # a 21, b 11, c 13: a, c, b
    out = table("exchange", {"attacker": "a", "defender": "b"}, [30])
    assert out["defence"] == "none"
    assert out["differential"]["effects"] == 2  # the bonus effect of the first attack
    table("choose_effects", {"token": out["token"], "effects": []}, [1, 10])
    table("next_turn", {})  # c dithers
    table("next_turn", {})  # b's initiative comes (he may not attack: he dithers)
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [30, 90, 1, 10])
    assert out["defence"] == "parry"
    assert out["differential"]["effects"] == 1  # no bonus on later attacks


def test_struggle_breaks_a_grip_by_winning_the_opposed_roll(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    table(
        "exchange",
        {"attacker": "a", "defender": "b", "weapon": "unarmed", "effects": [{"id": "grip"}]},
        [30, 90, 1, 10],
    )
    out = table("act", {"combatant": "b", "action": "struggle"}, [50, 70])
    assert out["struggle"]["victim_roll"]["skill"] == "unarmed"  # 60 beats Brawn 30
    assert out["struggle"]["holder_roll"]["skill"] == "unarmed"  # the gripper's preference
    assert out["struggle"]["freed"] is True
    assert "gripped" not in table.who("b")["conditions"]
    with pytest.raises(EngineError, match="not held"):
        table("act", {"combatant": "b", "action": "struggle"})


def test_pulling_an_impaled_weapon_free_does_half_a_damage_roll_through_armour(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b", armor={"chest": "mail"}))
    table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "impale"}]},
        [30, 90, 8, 8, 10],  # 8 against mail 6: 2 to the chest, the sword stays in
    )
    assert table.who("b")["conditions"]["impaled"]["grades"] == ["formidable"]
    out = table(
        "act", {"combatant": "a", "action": "ready_weapon", "weapon": "broadsword"}, [25, 5]
    )
    pulled = out["pull_free"]
    assert pulled["freed"] is True
    assert pulled["damage"] == 3  # half of 5, rounded up; no armour, no damage modifier
    assert table.who("b")["hit_points"]["chest"] == 7 - 2 - 3
    assert "impaled" not in table.who("b")["conditions"]
    assert table.who("a")["conditions"]["impaled_in"]["weapons"] == []


def test_a_long_weapon_inside_its_reach_is_smaller_and_its_damage_capped(table: Table) -> None:
    duel(table, fighter("a", weapons=["longspear"]), fighter("b", weapons=["dagger"]))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "parry_weapon": "dagger",
            "situation": {"engaged_reach": "short"},
            "effects": [],
        },
        [40, 30, 3, 10],
    )
    # very long → short is 2 steps inside: large drops to small, equal to the dagger
    assert out["blow"]["parry"]["attacking_size"] == "small"
    assert out["blow"]["damage"] == 4  # capped at 1d3+1
    assert out["blow"]["after_parry"] == 0


def test_under_water_only_thrusting_weapons_work(table: Table) -> None:
    duel(table, fighter("a", weapons=["mace", "dagger"], skills={"swim": 50}), fighter("b"))
    with pytest.raises(EngineError, match="thrusting"):
        table(
            "exchange",
            {"attacker": "a", "defender": "b", "weapon": "mace", "situation": {"cap": "swimming"}},
        )
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "weapon": "dagger",
            "defence": "none",
            "situation": {"cap": "swimming"},
            "effects": [],
        },
        [45, 4, 10],
    )
    assert out["attack"]["target"] == 50  # Combat Style 60 capped by Swim 50
    assert out["blow"]["damage"] == 3  # 1d4+1 = 5, halved under water


def test_conditions_left_by_effects_make_later_rolls_harder(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    # b blinds a (Blind Opponent), then a attacks blinded: the Blinded situation, Herculean
    table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "blind_opponent"}]},
        [80, 3, 70, 3],
    )
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [90])
    assert out["attack"]["grade"] == "herculean"
    assert "a: blinded" in out["notes"]


def test_evading_leaves_the_defender_prone_and_prone_parries_are_formidable(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "evade", "effects": []}, [80, 30]
    )
    assert "b ends prone after evading" in out["notes"]
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 35])
    assert out["defence_roll"]["grade"] == "formidable"
    assert out["defence_roll"]["target"] == 30


def test_a_spear_set_against_a_charge_strikes_with_the_chargers_damage_modifier(
    table: Table,
) -> None:
    charger = fighter(
        "b",
        characteristics={"str": 18, "con": 11, "siz": 18, "dex": 12, "int": 12},
        armor={"chest": "mail"},
    )
    duel(table, fighter("a", weapons=["shortspear"]), charger)  # b: STR+SIZ 36 → +1d6
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "effects": [],
            "situation": {"set_against_charge": True},
        },
        [30, 5, 3, 10],  # 1d8+1 → 6, then the charger's +1d6 stepped once → +1d8 → 3
    )
    assert any("+1d8" in n for n in out["notes"])
    assert out["blow"]["damage"] == 9
    with pytest.raises(EngineError, match="cannot be set"):
        duel(table, fighter("a"), charger)
        table(
            "exchange",
            {"attacker": "a", "defender": "b", "situation": {"set_against_charge": True}},
        )


def test_outreached_a_short_weapon_can_only_strike_the_longer_weapon(table: Table) -> None:
    duel(table, fighter("a", weapons=["dagger"]), fighter("b", weapons=["longspear"]))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "effects": [],
            "situation": {"engaged_reach": "very_long"},
        },
        [30, 4],
    )
    assert out["blow"]["weapon"] == "longspear"
    assert table.who("b")["weapons"]["longspear"]["hp"] == 10 - (5 - 4)


def test_prepare_counter_substitutes_its_own_effect_and_keeps_it_secret(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table.run_full(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "effects": [
                {
                    "id": "prepare_counter",
                    "counter": "trip_opponent",
                    "with_effect": "trip_opponent",
                }
            ],
        },
        [80, 30],
    )
    assert out.private == {
        "b": {"prepared_counter": "trip_opponent", "substitute": "trip_opponent"}
    }
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "trip_opponent"}]},
        [30, 90, 1, 10],
    )
    assert out["counter"]["cancelled"] == "trip_opponent"
    assert out["effects"][0]["by_counter"] is True
    assert "prone" in table.who("a")["conditions"]
    assert "prone" not in table.who("b")["conditions"]


def test_a_charge_with_a_damage_modifier_off_the_ladder_is_refused_before_any_die(
    table: Table,
) -> None:
    # +1d3 is rollable but not on the ladder, so a charge cannot step it: the exchange is
    # refused whatever its dice would be, and before the first of them.
    duel(table, fighter("a", damage_modifier="+1d3"), fighter("b"))
    charge = {"attacker": "a", "defender": "b", "situation": {"charging": True}, "effects": []}
    with pytest.raises(EngineError, match=r"'\+1d3' is not on the ladder .* cannot be stepped"):
        table("exchange", charge, [30, 80, 4, 2])
    assert table.rolled == []
    # Without the charge nothing steps it: the same blow lands with its +1d3.
    hit = table("exchange", {**charge, "situation": {}}, [30, 80, 4, 3, 2, 1, 1])
    assert hit["status"] == "complete" and ("1d3", 3) in table.rolled


def _knocked_prone(table: Table, weapons: list[str], **over: Any) -> None:
    """a (Combat Style 60) with ``weapons`` evades b's blow and ends prone."""
    duel(table, fighter("a", weapons=weapons, **over), fighter("b"))
    out = table(
        "exchange", {"attacker": "b", "defender": "a", "defence": "evade", "effects": []}, [80, 30]
    )
    assert "a ends prone after evading" in out["notes"]


def _shot(table: Table, weapon: str, **situation: Any) -> dict[str, Any]:
    """a shoots (or strikes) b with ``weapon``, the only one in his hands; b does not defend."""
    held = {w for w in table.who("a")["hands"].values() if w}
    for other in sorted(held - {weapon}) + ([] if weapon in held else [weapon]):
        table("act", {"combatant": "a", "action": "ready_weapon", "weapon": other})
    body = {"attacker": "a", "defender": "b", "weapon": weapon, "defence": "none"}
    return table("exchange", {**body, "situation": situation, "effects": []}, [90])


def test_a_prone_archer_shoots_at_herculean_not_at_the_close_combat_formidable(
    table: Table,
) -> None:
    # Ranged table: "Attacker prone: Herculean" (×1/10): 60 → 6; the close-combat row
    # (Fighting while prone, Formidable: 30) is not his when he shoots.
    _knocked_prone(table, ["broadsword", "short_bow"])
    out = _shot(table, "short_bow")
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("herculean", 6)
    assert "a: prone" in out["notes"]
    # With his sword he still fights while prone: Formidable, 60 → 30.
    out = _shot(table, "broadsword")
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("formidable", 30)


def test_a_prone_crossbowman_from_a_prepared_position_escapes_the_attacker_prone_grade(
    table: Table,
) -> None:
    # "** Negated for a crossbow or firearm fired from a prepared position": Standard, 60.
    _knocked_prone(table, ["broadsword", "light_crossbow", "short_bow"])
    out = _shot(table, "light_crossbow", prepared_position=True)
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("standard", 60)
    assert "a: prone, firing from a prepared position" in out["notes"]
    out = _shot(table, "light_crossbow")
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("herculean", 6)
    out = _shot(table, "short_bow", prepared_position=True)  # a bow is not freed
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("herculean", 6)
    with pytest.raises(EngineError, match="prepared position is for firing a ranged weapon"):
        _shot(table, "broadsword", prepared_position=True)


def _blinded(table: Table, **over: Any) -> None:
    """b's critical parry blinds a (Blind Opponent; a fails his Evade)."""
    duel(table, fighter("a", weapons=["broadsword", "short_bow"], **over), fighter("b"))
    table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "weapon": "broadsword",
            "effects": [{"id": "blind_opponent"}],
        },
        [80, 3, 70, 3],
    )
    assert "blinded" in table.who("a")["conditions"]


def test_a_blinded_archer_cannot_shoot_the_ranged_blinded_grade_being_hopeless(
    table: Table,
) -> None:
    # Ranged table: "Blinded: Hopeless" (assumed reading: TSIN and the RQ6 sheet).
    _blinded(table)
    with pytest.raises(EngineError, match="the attack is Hopeless: no attempt is possible"):
        _shot(table, "short_bow")
    # His sword still strikes at the close-combat Blinded grade: Herculean, 60 → 6.
    out = _shot(table, "broadsword")
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("herculean", 6)


def test_blind_fighting_eases_a_blinded_archer_from_hopeless_to_herculean(table: Table) -> None:
    _blinded(table, traits=["blind_fighting"])
    out = _shot(table, "short_bow")
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("herculean", 6)
    assert "a: blinded" in out["notes"]
