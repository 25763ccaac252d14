"""The exchange: attack, reaction, differential, pending choice, damage and wounds."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def test_an_unaware_guard_struck_by_a_surprising_attacker_gives_two_special_effects(
    table: Table,
) -> None:
    assassin = fighter("assassin", weapons=["dagger"], traits=["assassination"])
    table("start_encounter", {"combatants": [fighter("guard"), assassin], "surprised": ["guard"]})
    table("initiative", {}, [8, 8])  # the guard is at −10: the assassin acts first
    out = table("exchange", {"attacker": "assassin", "defender": "guard", "defence": "parry"}, [30])
    assert out["status"] == "awaiting_effects"
    assert out["differential"] == {"winner": "attacker", "effects": 2, "bonus_effects": 1}
    assert "kill_silently" in {e["id"] for e in out["eligible"]}
    out = table(
        "choose_effects",
        {
            "token": out["token"],
            "effects": [{"id": "choose_location", "location": "head"}, {"id": "kill_silently"}],
        },
        [4, 2],  # dagger 1d4+1 → 5; serious wound: 1d3 turns without attacking
    )
    wound = out["blow"]["wound"]
    assert out["blow"]["location"] == "head"
    assert out["blow"]["to_hit_points"] == 5
    assert wound["wound"] == "serious"
    assert wound["endurance"] == {
        "skill": "endurance",
        "automatic_failure": True,
        "resisted": False,
    }
    assert "unconscious for 5 minutes" in wound["consequences"]


def test_the_surprise_bonus_is_only_for_the_first_attack(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")], "surprised": ["b"]})
    table.state["phase"] = "free"  # type: ignore[index]
    first = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [30, 1, 10])
    assert first["differential"]["effects"] == 2
    second = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [30, 1, 10])
    assert second["differential"]["effects"] == 1


def test_a_parry_with_a_shield_as_large_as_the_weapon_blocks_everything(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "heater"},
        [40, 30, 7, 10],  # both succeed, b rolls lower: no effects; 1d8 → 7; chest
    )
    assert out["differential"]["winner"] is None
    assert out["blow"]["after_parry"] == 0
    assert out["blow"]["parry"]["blocked"] == "1"
    assert table.who("b")["hit_points"]["chest"] == 7


def test_a_parry_one_size_smaller_lets_half_through_rounded_up(table: Table) -> None:
    duel(table, fighter("a", weapons=["battleaxe_2h"]), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "broadsword"},
        [40, 30, 6, 10],  # 1d8+1 → 7, medium parries large: 4 gets through to the chest
    )
    assert out["blow"]["damage"] == 7
    assert out["blow"]["after_parry"] == 4
    assert table.who("b")["hit_points"]["chest"] == 3


def test_a_parry_two_sizes_smaller_blocks_nothing(table: Table) -> None:
    duel(table, fighter("a", weapons=["great_axe"]), fighter("b", weapons=["broadsword"]))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "parry_weapon": "broadsword"},
        [40, 30, 1, 1, 1],  # 2d6+2 → 4, huge vs medium: all 4 through; right leg
    )
    assert out["blow"]["after_parry"] == 4
    assert table.who("b")["hit_points"]["right_leg"] == 1


def test_a_charge_makes_the_weapon_a_size_larger_and_the_attack_harder(table: Table) -> None:
    duel(table, fighter("a", weapons=["battleaxe_1h"]), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "parry_weapon": "broadsword",
            "situation": {"charging": True},
        },
        [40, 30, 5, 1, 10],  # 1d6+1 → 6, DM +0 → +1d2 → 1: 7; large vs medium parry: 4
    )
    assert out["attack"]["grade"] == "hard"
    assert out["attack"]["target"] == 40
    assert out["blow"]["parry"]["attacking_size"] == "large"
    assert out["blow"]["damage"] == 7
    assert out["blow"]["after_parry"] == 4


def test_an_evade_that_beats_the_attack_avoids_the_damage(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "evade", "effects": []},
        [40, 4],
    )
    assert out["defence_roll"]["level"] == "critical"
    assert out["blow"] is None
    assert "b evades the blow" in out["notes"]


def test_armor_stops_damage_and_wounds_follow_hit_points(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", armor={"chest": "mail"}))
    out = table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [40, 80, 8, 11])
    assert out["blow"]["armor"] == 6
    assert out["blow"]["to_hit_points"] == 2
    assert out["blow"]["wound"]["wound"] == "minor"


def test_a_major_wound_to_the_head_that_fails_endurance_kills(table: Table) -> None:
    duel(table, fighter("a", weapons=["great_axe"]), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "none", "effects": []},
        [40, 6, 6, 20, 97, 90],  # …, Endurance 97, then Acrobatics against the knockback
    )
    assert out["knockback"]["metres"] == 1
    wound = out["blow"]["wound"]
    assert (wound["damage"], wound["hit_points"], wound["wound"]) == (14, -9, "major")
    assert "dead" in wound["consequences"]
    assert "dead" in table.who("b")["conditions"]
    with pytest.raises(EngineError, match="dead"):
        table("exchange", {"attacker": "a", "defender": "b"})


def test_the_winner_must_choose_only_what_he_won(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b"}, [30, 90])
    token = out["token"]
    with pytest.raises(EngineError, match="only 1 were won"):
        table("choose_effects", {"token": token, "effects": [{"id": "scar_foe"}] * 2})
    with pytest.raises(EngineError, match="needs a critical"):
        table("choose_effects", {"token": token, "effects": [{"id": "maximize_damage"}]})
    with pytest.raises(EngineError, match="only the defender"):
        table("choose_effects", {"token": token, "effects": [{"id": "withdraw"}]})
    with pytest.raises(EngineError, match="weapon does not allow"):
        table("choose_effects", {"token": token, "effects": [{"id": "stun_location"}]})
    table("choose_effects", {"token": token, "effects": [{"id": "scar_foe"}]}, [3, 1])
    with pytest.raises(EngineError, match="no exchange 'x1'"):
        table("choose_effects", {"token": token, "effects": []})


def test_a_non_stacking_effect_cannot_be_chosen_twice(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b"}, [3, 90])
    with pytest.raises(EngineError, match="does not stack"):
        table(
            "choose_effects",
            {"token": out["token"], "effects": [{"id": "bleed"}, {"id": "bleed"}]},
        )


def test_a_ranged_attack_at_long_range_halves_damage_and_drops_force(table: Table) -> None:
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "situation": {"distance": 110},
            "effects": [],
        },
        [5, 5, 13],
    )
    # distance 110 m at SIZ 12: 3 grades harder (standard → herculean): 60 → 6
    assert out["attack"]["grade"] == "herculean"
    assert out["attack"]["target"] == 6
    assert out["blow"]["damage_rolls"] == [5]
    assert out["blow"]["damage"] == 3  # halved, rounded up


def test_only_shields_parry_missiles(table: Table) -> None:
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b"))
    with pytest.raises(EngineError, match="only shields"):
        table(
            "exchange",
            {"attacker": "a", "defender": "b", "parry_weapon": "broadsword"},
        )


def test_a_pulled_blow_halves_the_damage(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "situation": {"pulled_blow": True},
            "effects": [],
        },
        [40, 7, 10],
    )
    assert out["blow"]["damage"] == 4


def test_firing_into_a_crowd_and_missing_only_because_of_it_hits_the_bystander(
    table: Table,
) -> None:
    table(
        "start_encounter",
        {"combatants": [fighter("a", weapons=["short_bow"]), fighter("b"), fighter("c")]},
    )
    table.state["phase"] = "free"  # type: ignore[index]
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "bystander": "c",
            "situation": {"crowd": "edge"},
            "effects": [],
        },
        [50, 4, 10],  # Hard: 40; 50 would have hit at Standard
    )
    assert out["attack"]["level"] == "failure"
    assert out["blow"]["target"] == "c"
    assert table.who("c")["hit_points"]["chest"] == 3


def test_climbing_caps_the_combat_skill_by_athletics(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "defence": "none", "situation": {"cap": "climbing"}},
        [35],
    )
    assert out["attack"]["target"] == 30


def test_an_unfamiliar_weapon_is_one_or_two_grades_harder_or_base_skill(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "situation": {"familiarity": "reasonably_different"},
        },
        [90],
    )
    assert out["attack"]["grade"] == "formidable"
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "situation": {"familiarity": "substantially_different"},
        },
        [90],
    )
    assert out["attack"]["target"] == 23  # STR+DEX


def test_a_defender_parrying_with_an_unfamiliar_weapon_is_graded_as_an_attacker_is(
    table: Table,
) -> None:
    """Unfamiliar weapons affect "offensive and defensive actions": b parries with a weapon
    reasonably different from his style's, two grades harder (60 → 30), so 35 fails."""
    duel(table, fighter("a"), fighter("b"))
    body = {
        "attacker": "a",
        "defender": "b",
        "situation": {"defender_familiarity": "reasonably_different"},
    }
    out = table("exchange", body | {"effects": []}, [90, 35])
    assert (out["defence_roll"]["grade"], out["defence_roll"]["target"]) == ("formidable", 30)
    assert out["defence_roll"]["level"] == "failure"
    body["situation"] = {"defender_familiarity": "substantially_different"}
    out = table("exchange", body | {"effects": []}, [90, 35])
    assert (out["defence_roll"]["skill"], out["defence_roll"]["target"]) == (23, 23)  # STR+DEX
    assert "b's parry: unfamiliar weapon: base Combat Style (STR+DEX)" in out["notes"]


def test_a_defender_s_unfamiliar_weapon_never_parries_below_str_plus_dex(table: Table) -> None:
    stats = {"str": 10, "con": 11, "siz": 12, "dex": 11, "int": 12, "pow": 10}
    duel(table, fighter("a"), fighter("b", characteristics=stats, skills={"combat_style": 40}))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "situation": {"defender_familiarity": "reasonably_different"},
            "effects": [],
        },
        [90, 21],
    )
    assert (out["defence_roll"]["target"], out["defence_roll"]["skill"]) == (21, 21)  # not 20
    assert out["defence_roll"]["level"] == "success"
    floor = "b's parry: unfamiliar weapon: the penalty stops at the floor (STR+DEX 21)"
    assert floor in out["notes"]


def test_defender_familiarity_is_refused_for_an_evade(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    with pytest.raises(EngineError, match="defender_familiarity is for a parry"):
        table(
            "exchange",
            {
                "attacker": "a",
                "defender": "b",
                "defence": "evade",
                "situation": {"defender_familiarity": "similar"},
            },
        )


def test_a_warded_location_is_parried_passively_and_cannot_be_chosen(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table.who("b")["conditions"]["warding"] = {"turns": None, "locations": {"head": "heater"}}
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [30])
    with pytest.raises(EngineError, match="passive block"):
        table(
            "choose_effects",
            {"token": out["token"], "effects": [{"id": "choose_location", "location": "head"}]},
        )
    out = table(
        "choose_effects",
        {"token": out["token"], "effects": [{"id": "scar_foe"}]},
        [8, 19],
    )
    assert out["blow"]["location"] == "head"
    assert out["blow"]["to_hit_points"] == 0


def test_a_mounted_attacker_rolls_locations_on_1d10_plus_10(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "situation": {"mounted": True},
            "effects": [],
        },
        [30, 2, 1],
    )
    assert out["blow"]["location"] == "chest"  # 1 + 10 = 11


def test_surprise_declared_on_one_exchange_leaves_no_lasting_condition(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "situation": {"surprise": True}, "effects": []},
        [30, 1, 10],
    )
    assert out["differential"]["effects"] == 2
    assert "surprised" not in table.who("b")["conditions"]
    table("exchange", {"attacker": "b", "defender": "a", "defence": "none"}, [90])


def test_an_attack_that_closes_the_round_keeps_its_luck_point_spent_and_its_round(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b", action_points=1)]})
    table("initiative", {}, [9, 2])
    table("next_turn", {})  # a dithers: 1 point left
    table("next_turn", {})  # b dithers: none left
    luck = table.who("a")["luck_points"]
    body = {"attacker": "a", "defender": "b", "attacker_luck": "success", "effects": []}
    out = table("exchange", {**body, "defence": "parry"}, [90, 20, 1, 5])
    assert table.rolled == [
        ("1d100 attack", 90),
        ("1d100 attack (luck)", 20),
        ("1d8", 1),
        ("1d20", 5),
    ]
    # Resolved in round 1: b has no point to parry with (the new round's are not his yet).
    assert "b has no action points left: counts as a failure" in out["notes"]
    assert (out["blow"]["location"], table.who("b")["hit_points"]["left_leg"]) == ("left_leg", 4)
    # Then round 2 began, with the re-roll paid for and the attack recorded in round 1.
    assert table.state is not None
    assert (table.state["round"], table.state["cycle"]) == (2, 1)
    assert (table.who("a")["ap"], table.who("b")["ap"]) == (2, 1)
    assert table.who("a")["luck_points"] == luck - 1
    assert table.who("a")["attacked_round"] == 1


def test_a_parked_exchange_shows_the_summary_keys_of_its_stored_record_in_their_order(
    table: Table,
) -> None:
    from arbiter.bridge.engine.combat_styles.exchange.exchange import SUMMARY_KEYS

    assassin = fighter("assassin", weapons=["dagger"], traits=["assassination"])
    table("start_encounter", {"combatants": [fighter("guard"), assassin], "surprised": ["guard"]})
    table("initiative", {}, [8, 8])
    out = table("exchange", {"attacker": "assassin", "defender": "guard", "defence": "parry"}, [30])
    assert out["status"] == "awaiting_effects"
    assert table.state is not None
    stored = table.state["pending"][out["token"]]
    # Then what every result may add (lasting, pending).
    assert list(out)[: 2 + len(SUMMARY_KEYS)] == ["kind", "status", *SUMMARY_KEYS]
    assert {k: out[k] for k in SUMMARY_KEYS} == {k: stored[k] for k in SUMMARY_KEYS}
