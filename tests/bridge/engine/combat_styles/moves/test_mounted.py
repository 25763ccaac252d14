"""Mounted combat (text "Mounted Combat", "Evading"): mounting, the Ride cap on a rider's
combat skills, defending the mount, the mount's SIZ against knockback, weapons braced for a
charge, evading out of the saddle, withdrawing on a faster mount and the mounted location die —
every key of ``combat.mounted`` (and ``evading.mounted_leaves_saddle``) changed through a
rules overlay changes the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule

HORSE_STATS = {"str": 25, "con": 15, "siz": 25, "dex": 10, "int": 5}


def cavalry(table: Table, *, turns: bool = False, mounted: bool = True, **knight: Any) -> None:
    """A knight (Combat Style 80, Ride 50) with his horse (SIZ 25, Movement 12) against a
    brute (damage modifier +1d6, Movement 8). Initiative: knight, brute, horse."""
    combatants = [
        fighter(
            "knight",
            skills={"combat_style": 80, "ride": 50, **knight.pop("skills", {})},
            weapons=["lance", "heater"],
            **knight,
        ),
        fighter("horse", characteristics=HORSE_STATS, quadruped=True, weapons=[], movement=12),
        fighter("brute", damage_modifier="+1d6", movement=8),
    ]
    table("start_encounter", {"combatants": combatants})
    if mounted:
        table("mount", {"rider": "knight", "mount": "horse"})
    if turns:
        table("initiative", {}, [9, 5, 3])
    else:
        assert table.state is not None
        table.state["phase"] = "free"


BLOW_ON_KNIGHT = {
    "attacker": "brute",
    "defender": "knight",
    "parry_weapon": "heater",
    "effects": [],
}


def test_a_rider_mounts_before_initiative_for_free_and_dismounts_as_an_action(
    table: Table,
) -> None:
    cavalry(table, turns=True)
    assert table.who("knight")["conditions"]["mounted"]["mount"] == "horse"
    assert table.who("horse")["conditions"]["ridden"]["by"] == "knight"
    full = table.who("knight")["ap"]
    out = table("mount", {"rider": "knight"})
    assert (out["dismounted_from"], out["action_points"]["knight"]) == ("horse", full - 1)
    assert out["current"] == "brute"  # the Mount action was his proactive action
    assert "mounted" not in table.who("knight")["conditions"]
    assert "ridden" not in table.who("horse")["conditions"]


def mount_last(table: Table) -> None:
    """A knight and his horse with one action point each; the horse acts first and dithers, so
    the knight's Mount action spends the round's last point."""
    knight = fighter("knight", skills={"ride": 50}, action_points=1)
    horse = fighter(
        "horse", characteristics=HORSE_STATS, quadruped=True, weapons=[], action_points=1
    )
    table("start_encounter", {"combatants": [knight, horse]})
    table("initiative", {}, [3, 9])
    table("next_turn", {})  # the horse dithers


def test_mounting_with_the_rounds_last_point_keeps_the_rider_in_the_saddle(
    table: Table,
) -> None:
    mount_last(table)
    out = table("mount", {"rider": "knight", "mount": "horse"})
    assert (out["round"], out["cycle"], out["current"]) == (2, 1, "horse")
    assert out["action_points"] == {"knight": 1, "horse": 1}
    assert table.who("knight")["conditions"] == {"mounted": {"turns": None, "mount": "horse"}}
    assert table.who("horse")["conditions"] == {"ridden": {"turns": None, "by": "knight"}}


def test_dismounting_with_the_rounds_last_point_leaves_both_out_of_the_saddle(
    table: Table,
) -> None:
    knight = fighter("knight", skills={"ride": 50}, action_points=1)
    horse = fighter(
        "horse", characteristics=HORSE_STATS, quadruped=True, weapons=[], action_points=1
    )
    table("start_encounter", {"combatants": [knight, horse]})
    table("mount", {"rider": "knight", "mount": "horse"})  # before initiative: free
    table("initiative", {}, [3, 9])
    table("next_turn", {})  # the horse dithers
    out = table("mount", {"rider": "knight"})
    assert (out["round"], out["cycle"], out["dismounted_from"]) == (2, 1, "horse")
    assert out["action_points"] == {"knight": 1, "horse": 1}
    assert table.who("knight")["conditions"] == {}
    assert table.who("horse")["conditions"] == {}


def test_mounting_what_cannot_be_mounted_is_refused(table: Table) -> None:
    cavalry(table)
    with pytest.raises(EngineError, match="already rides horse: dismount first"):
        table("mount", {"rider": "knight", "mount": "brute"})
    with pytest.raises(EngineError, match="horse is already ridden"):
        table("mount", {"rider": "brute", "mount": "horse"})
    with pytest.raises(EngineError, match="brute is not mounted"):
        table("mount", {"rider": "brute"})


def test_a_riders_combat_skills_are_capped_by_his_ride(table: Table) -> None:
    cavalry(table)
    out = table("exchange", {"attacker": "knight", "defender": "brute", "effects": []}, [90, 90])
    assert (out["attack"]["skill"], out["attack"]["target"]) == (50, 50)  # not 80
    out = table("exchange", BLOW_ON_KNIGHT, [90, 90])
    assert out["defence_roll"]["target"] == 50


def test_a_mounted_combat_style_lifts_the_cap(table: Table) -> None:
    cavalry(table, traits=["mounted_combat"])
    out = table("exchange", {"attacker": "knight", "defender": "brute", "effects": []}, [90, 90])
    assert out["attack"]["target"] == 80


def test_a_rider_defends_his_mount_with_his_own_skill_and_action_point(table: Table) -> None:
    cavalry(table, turns=True)
    table("next_turn", {})  # the knight dithers; the brute attacks the horse
    knight_ap, horse_ap = table.who("knight")["ap"], table.who("horse")["ap"]
    out = table(
        "exchange",
        {
            "attacker": "brute",
            "defender": "horse",
            "defended_by": "knight",
            "parry_weapon": "heater",
            "effects": [],
        },
        [30, 20, 8, 6, 10],
    )
    assert (out["parry_weapon"], out["defence_roll"]["target"]) == ("heater", 50)
    assert out["blow"]["after_parry"] == 0
    assert table.who("knight")["ap"] == knight_ap - 1
    assert table.who("horse")["ap"] == horse_ap


def test_a_rider_may_defend_his_mount_with_ride(table: Table) -> None:
    cavalry(table, skills={"ride": 65}, traits=["mounted_combat"])
    out = table(
        "exchange",
        {
            "attacker": "brute",
            "defender": "horse",
            "defence": "evade",
            "defended_by": "knight",
            "defended_with": "ride",
            "effects": [],
        },
        [30, 40],
    )
    assert out["defence_roll"]["target"] == 65
    assert out["blow"] is None  # the horse, steered clear, evades


def test_only_his_rider_defends_a_mount(table: Table) -> None:
    cavalry(table, mounted=False)
    with pytest.raises(EngineError, match="knight is not riding horse"):
        table(
            "exchange",
            {"attacker": "brute", "defender": "horse", "defended_by": "knight"},
        )


def test_a_rider_adds_his_mounts_siz_against_knockback_on_a_ride_roll(table: Table) -> None:
    cavalry(table)
    out = table("exchange", BLOW_ON_KNIGHT, [30, 20, 8, 6, 10, 40])
    assert table.rolled[-1] == ("1d100 ride against knockback", 40)
    assert out["blow"]["damage"] == 14  # over his SIZ 12, but not over 12 + 25
    assert out["knockback"]["metres"] == 0
    assert out["knockback"]["ride"]["mount_siz"] == 25


def test_a_failed_ride_roll_leaves_the_rider_knocked_back(table: Table) -> None:
    cavalry(table)
    out = table("exchange", BLOW_ON_KNIGHT, [30, 20, 8, 6, 10, 90, 50])
    assert out["knockback"]["ride"]["success"] is False
    assert out["knockback"]["metres"] == 1  # 14 − 12 = 2: one metre
    assert out["knockback"]["prone"] is True


def test_a_weapon_braced_for_a_mounted_charge_cannot_parry(table: Table) -> None:
    cavalry(table, turns=True)
    charge = {"charging": True, "braced_weapon": True}
    table(
        "exchange",
        {
            "attacker": "knight",
            "defender": "brute",
            "weapon": "lance",
            "situation": charge,
            "effects": [],
        },
        [90, 90],
    )
    assert table.who("knight")["conditions"]["braced_weapon"]["weapons"] == ["lance"]
    with pytest.raises(EngineError, match="knight's Lance is braced for the charge"):
        table("exchange", {"attacker": "brute", "defender": "knight", "parry_weapon": "lance"})
    out = table("exchange", BLOW_ON_KNIGHT, [90, 90])  # the shield still parries
    assert out["parry_weapon"] == "heater"


def test_a_beast_back_lancer_in_the_saddle_charges_without_the_grade_step(table: Table) -> None:
    charge = {"attacker": "knight", "defender": "brute", "weapon": "lance", "effects": []}
    cavalry(table, traits=["beast_back_lancer", "mounted_combat"])
    out = table("exchange", {**charge, "situation": {"charging": True}}, [90, 90])
    assert out["attack"]["grade"] == "standard"
    table("mount", {"rider": "knight"})
    out = table("exchange", {**charge, "situation": {"charging": True}}, [90, 90])
    assert out["attack"]["grade"] == "hard"  # on foot the charge is one grade harder


def test_only_a_mounted_charge_braces_a_weapon(table: Table) -> None:
    cavalry(table, mounted=False)
    with pytest.raises(EngineError, match="braced only for a mounted charge"):
        table(
            "exchange",
            {
                "attacker": "knight",
                "defender": "brute",
                "weapon": "lance",
                "situation": {"charging": True, "braced_weapon": True},
            },
        )


def test_a_rider_who_evades_is_flung_from_the_saddle(table: Table) -> None:
    cavalry(table, skills={"evade": 70})
    out = table(
        "exchange",
        {"attacker": "brute", "defender": "knight", "defence": "evade", "effects": []},
        [30, 60],
    )
    assert out["defence_roll"]["target"] == 70  # Evade is not a combat skill: no Ride cap
    assert "knight flings himself clear of horse's saddle" in out["notes"]
    assert "mounted" not in table.who("knight")["conditions"]
    assert "ridden" not in table.who("horse")["conditions"]
    assert "prone" in table.who("knight")["conditions"]


def test_a_rider_withdraws_freely_when_his_mount_is_faster(table: Table) -> None:
    cavalry(table, turns=True)
    full = table.who("knight")["ap"]
    out = table("mounted_withdraw", {"rider": "knight", "opponents": ["brute"]})
    assert out["movement"] == {"horse": 12, "brute": 8}
    assert out["action_points"]["knight"] == full - 1
    assert out["current"] == "brute"


def test_no_free_withdrawal_from_a_faster_foe_or_while_the_mount_attacks(table: Table) -> None:
    cavalry(table, turns=True)
    table.state["combatants"]["brute"]["movement"] = 12  # type: ignore[index]
    with pytest.raises(EngineError, match=r"horse \(Movement 12\) is not faster than brute"):
        table("mounted_withdraw", {"rider": "knight", "opponents": ["brute"]})
    table.state["combatants"]["brute"]["movement"] = 8  # type: ignore[index]
    table("next_turn", {})  # knight dithers
    table("next_turn", {})  # brute dithers; the horse attacks
    table("exchange", {"attacker": "horse", "defender": "brute", "effects": []}, [90, 90])
    with pytest.raises(EngineError, match="horse is attacking this round"):
        table("mounted_withdraw", {"rider": "knight", "opponents": ["brute"]})


# --- every data key changes the outcome (rules overlays) -----------------------------------------


def mounted_rules(model: RulesetBase, tmp_path: Path, **changes: Any) -> Table:
    return Table(with_combat_rule(model, tmp_path, "mounted", **changes))


def test_the_mounted_location_die_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = mounted_rules(model, tmp_path, location_die="1d4", location_add=16)
    cavalry(table)
    body = {
        "attacker": "knight",
        "defender": "brute",
        "defence": "none",
        "effects": [],
        "situation": {"mounted": True},
    }
    out = table("exchange", body, [30, 2, 3])
    assert table.rolled[-1] == ("1d4+16", 3)
    assert out["blow"]["location"] == "head"  # 3 + 16 = 19


def test_the_riders_skill_cap_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = mounted_rules(model, tmp_path, skill_cap="athletics")
    cavalry(table)
    out = table("exchange", {"attacker": "knight", "defender": "brute", "effects": []}, [90, 90])
    assert out["attack"]["target"] == 30  # Athletics 30, not Ride 50


def test_the_trait_lifting_the_cap_comes_from_the_trait_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    from arbiter.compiler.model.loader import load_ruleset

    house = tmp_path / "house" / "combat-styles"
    house.mkdir(parents=True)
    (house / "style_traits.toml").write_text(
        '[[style_traits]]\nid = "mounted_combat"\nname = "Mounted Combat"\n'
        'effect = "narrative"\ndescription = "No longer lifts the mounted cap."\n',
        encoding="utf-8",
    )
    table = Table(load_ruleset("combat-styles", overlay=tmp_path / "house").model)
    cavalry(table, traits=["mounted_combat"])
    out = table("exchange", {"attacker": "knight", "defender": "brute", "effects": []}, [90, 90])
    assert out["attack"]["target"] == 50


def test_free_withdrawal_can_be_switched_off_in_the_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    table = mounted_rules(model, tmp_path, withdraw_freely_if_faster=False)
    cavalry(table)
    with pytest.raises(EngineError, match="no free withdrawal"):
        table("mounted_withdraw", {"rider": "knight", "opponents": ["brute"]})


def test_the_cost_of_defending_the_mount_comes_from_the_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    table = mounted_rules(model, tmp_path, defend_mount_ap_cost=2)
    cavalry(table, turns=True, action_points=3)
    table("next_turn", {})  # knight dithers: 2 points left
    body = {
        "attacker": "brute",
        "defender": "horse",
        "defended_by": "knight",
        "parry_weapon": "heater",
        "effects": [],
    }
    table("exchange", body, [30, 20, 8, 6, 10])
    assert table.who("knight")["ap"] == 0


def test_the_skill_that_adds_the_mounts_siz_comes_from_the_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    table = mounted_rules(model, tmp_path, knockback_adds_mount_siz_on="brawn")
    cavalry(table)
    table("exchange", BLOW_ON_KNIGHT, [30, 20, 8, 6, 10, 20])
    assert table.rolled[-1] == ("1d100 brawn against knockback", 20)


def test_braced_weapons_may_parry_if_the_data_says_so(model: RulesetBase, tmp_path: Path) -> None:
    table = mounted_rules(model, tmp_path, braced_weapon_can_parry=True)
    cavalry(table, turns=True)
    charge = {"charging": True, "braced_weapon": True}
    table(
        "exchange",
        {
            "attacker": "knight",
            "defender": "brute",
            "weapon": "lance",
            "situation": charge,
            "effects": [],
        },
        [90, 90],
    )
    out = table(
        "exchange",
        {"attacker": "brute", "defender": "knight", "parry_weapon": "lance", "effects": []},
        [90, 90],
    )
    assert out["parry_weapon"] == "lance"


def test_evading_keeps_the_saddle_if_the_data_says_so(model: RulesetBase, tmp_path: Path) -> None:
    evading = model.combat.evading.model_dump(mode="json")  # type: ignore[attr-defined]
    assert evading["mounted_leaves_saddle"] is True
    table = Table(with_combat_rule(model, tmp_path, "evading", mounted_leaves_saddle=False))
    cavalry(table, skills={"evade": 70})
    table(
        "exchange",
        {"attacker": "brute", "defender": "knight", "defence": "evade", "effects": []},
        [30, 60],
    )
    assert table.who("knight")["conditions"]["mounted"]["mount"] == "horse"
