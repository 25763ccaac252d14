"""Hands: a weapon strikes or parries only while held; two-handed weapons, shields and a second
weapon share the hands; disarming, dropping and a useless arm free them; Ready Weapon fills them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules


def act(table: Table, action: str, weapon: str, who: str = "a") -> dict[str, Any]:
    return table("act", {"combatant": who, "action": action, "weapon": weapon})


def test_listed_weapons_fill_the_hands_in_order(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", weapons=["great_axe", "heater", "short_bow"]))
    assert table.who("a")["hands"] == {"right": "broadsword", "left": "heater"}
    # the great axe takes both hands; the shield and the bow are carried
    assert table.who("b")["hands"] == {"right": "great_axe", "left": "great_axe"}


def test_a_carried_shield_cannot_parry_until_readied(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", weapons=["great_axe", "heater"]))
    with pytest.raises(EngineError, match="cannot parry with 'heater': it is not in his hands"):
        table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"})
    with pytest.raises(EngineError, match="has 0 free hand"):
        act(table, "ready_weapon", "heater", "b")
    assert act(table, "ready_weapon", "great_axe", "b")["hands"]["outcome"] == "sheathed"
    readied = act(table, "ready_weapon", "heater", "b")["hands"]
    assert (readied["outcome"], readied["hands"]) == ("drawn", {"right": "heater", "left": None})


def test_the_default_weapon_is_one_in_hand(table: Table) -> None:
    duel(table, fighter("a", weapons=["short_bow", "dagger"]), fighter("b"))
    assert table.who("a")["hands"] == {"right": "short_bow", "left": "short_bow"}
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [95])
    assert out["weapon"] == "short_bow"


def test_stated_hands_are_checked(table: Table) -> None:
    for hands, message in (
        ({"right": "great_axe"}, "'great_axe' needs 2 hand\\(s\\) but is held in 1"),
        ({"tail": "great_axe"}, "unknown hand 'tail'"),
        ({"right": "mace"}, "holds 'mace', which is not in the weapons list"),
    ):
        with pytest.raises(EngineError, match=message):
            duel(table, fighter("a", weapons=["great_axe"], hands=hands), fighter("b"))


def test_stated_hands_choose_which_weapon_is_ready(table: Table) -> None:
    block = fighter("a", weapons=["broadsword", "dagger"], hands={"left": "dagger"})
    duel(table, block, fighter("b"))
    assert table.who("a")["hands"] == {"right": None, "left": "dagger"}
    with pytest.raises(EngineError, match="cannot attack with 'broadsword'"):
        table("exchange", {"attacker": "a", "defender": "b", "weapon": "broadsword"})
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [95])
    assert out["weapon"] == "dagger"


def test_a_disarmed_hand_is_free_and_the_weapon_is_picked_up_in_two_turns(table: Table) -> None:
    duel(table, fighter("a", weapons=["broadsword", "dagger"]), fighter("b"))
    # b evades and wins: he disarms a of the broadsword (a resists with 95: fails)
    body = {"attacker": "a", "defender": "b", "defence": "evade"}
    table("exchange", {**body, "effects": [{"id": "disarm_opponent"}]}, [80, 30, 95])
    assert table.who("a")["conditions"]["disarmed"]["weapons"] == ["broadsword"]
    out = table("exchange", {**body, "weapon": "dagger", "effects": []}, [95, 95])
    assert out["weapon"] == "dagger"  # the other hand still holds the dagger
    first = act(table, "ready_weapon", "broadsword")["hands"]
    assert first["outcome"] == "picking up (1 of 2 turns)"
    second = act(table, "ready_weapon", "broadsword")["hands"]
    assert (second["outcome"], second["hands"]) == (
        "picked up",
        {"right": "broadsword", "left": "dagger"},
    )
    assert "disarmed" not in table.who("a")["conditions"]


def test_dropping_a_weapon_frees_its_hand_for_a_grapple(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    grapple = {"attacker": "a", "defender": "b", "grapple": True, "defence": "none"}
    with pytest.raises(EngineError, match="a has no free hand to grapple"):
        table("exchange", grapple, [95])
    dropped = act(table, "drop_weapon", "heater")["hands"]
    assert dropped["hands"] == {"right": "broadsword", "left": None}
    assert table("exchange", grapple, [95])["weapon"] == "unarmed"
    with pytest.raises(EngineError, match="cannot drop 'heater': it was dropped"):
        act(table, "drop_weapon", "heater")


def test_a_useless_arm_lets_go_of_what_its_hand_held(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    assert table.state is not None
    table.state["combatants"]["a"]["conditions"]["limb_useless"] = {
        "turns": None,
        "locations": ["right_arm"],
    }
    with pytest.raises(EngineError, match="the arm holding it is useless"):
        table("exchange", {"attacker": "a", "defender": "b", "weapon": "broadsword"})
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [95])
    assert out["weapon"] == "heater"  # the shield arm still works


def test_a_taken_weapon_goes_into_the_takers_free_hand(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    body = {"attacker": "a", "defender": "b", "weapon": "unarmed", "parry_weapon": "broadsword"}
    table("exchange", {**body, "effects": [{"id": "take_weapon"}]}, [30, 90, 1, 10, 70])
    assert table.who("a")["hands"] == {"right": "broadsword", "left": None}
    assert table.who("b")["hands"]["right"] == "broadsword"  # listed, but gone: not usable
    with pytest.raises(EngineError, match="taken"):
        act(table, "ready_weapon", "broadsword", "b")


def test_missile_weapons_need_the_hands_their_data_gives(table: Table) -> None:
    duel(table, fighter("a", weapons=["sling", "javelin", "short_bow"]), fighter("b"))
    assert table.who("a")["hands"] == {"right": "sling", "left": "javelin"}


def test_editing_the_hands_data_changes_what_fits(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "combat.toml": (
                "[combat.hands]\n"
                'hands = [{ id = "claw", location = "right_arm" }]\n'
                "shield_hands = 1\n"
                "ranged_hands = 1\n"
                "grapple_needs_free_hand = false\n"
                "pick_up_turns = 1\n"
            )
        },
    )
    table = Table(rules)
    duel(table, fighter("a", weapons=["short_bow", "heater"]), fighter("b"))
    assert table.who("a")["hands"] == {"claw": "short_bow"}  # one hand; a bow needs one
    grapple = {"attacker": "a", "defender": "b", "grapple": True, "defence": "none"}
    assert table("exchange", grapple, [95])["weapon"] == "unarmed"  # no free hand needed
    act(table, "drop_weapon", "short_bow")
    assert act(table, "ready_weapon", "short_bow")["hands"]["outcome"] == "picked up"


def test_an_entangled_arm_cannot_use_what_it_holds_until_freed(table: Table) -> None:
    # Entangle: "An entangled arm cannot use whatever it is holding".
    duel(table, fighter("a", weapons=["net"]), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "entangle"}]},
        [30, 90, 3, 14],
    )
    assert out["effects"][0]["outcome"].startswith("right_arm entangled")
    assert table.who("b")["hands"] == {"right": "broadsword", "left": "heater"}  # still held
    with pytest.raises(
        EngineError, match="cannot attack with 'broadsword': the arm holding it is entangled"
    ):
        table("exchange", {"attacker": "b", "defender": "a", "weapon": "broadsword"})
    table("act", {"combatant": "b", "action": "struggle"}, [10, 90])  # Brawn 30 against 30
    assert "entangled" not in table.who("b")["conditions"]
    done = table(
        "exchange",
        {"attacker": "b", "defender": "a", "weapon": "broadsword", "defence": "none"},
        [80],
    )
    assert done["weapon"] == "broadsword"


def test_a_grappled_arm_is_inoperable(table: Table) -> None:
    # Grappling: "A grappled limb is rendered inoperable".
    duel(table, fighter("a", weapons=[]), fighter("b"))
    grapple = {"attacker": "a", "defender": "b", "grapple": True, "effects": []}
    out = table("exchange", {**grapple, "parry_weapon": "broadsword"}, [30, 70, 14])
    assert out["grapple"] == {"location": "right_arm", "limb": True}
    with pytest.raises(
        EngineError, match="cannot parry with 'broadsword': the arm holding it is grappled"
    ):
        table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "broadsword"})
    # The shield arm is free to parry.
    assert (
        table("exchange", {"attacker": "a", "defender": "b", "effects": []}, [80, 90])[
            "parry_weapon"
        ]
        == "heater"
    )
