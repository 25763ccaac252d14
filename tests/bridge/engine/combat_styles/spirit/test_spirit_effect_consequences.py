"""Spirit-combat special effects: one scripted exchange per effect showing its consequence,
and rule-data overlays that change an outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules
from tests.bridge.engine.combat_styles.spirits import (
    choose,
    encounter,
    engage,
    ghost,
    offered,
    shaman,
)

# --- consequences, one per effect ------------------------------------------------------------


def test_spirit_lance_rolls_the_spirit_damage_twice_and_keeps_the_best(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    done = choose(table, out["token"], ["spirit_lance"], [2, 7])
    assert done["spirit_damage"]["rolls"] == [2, 7]
    assert done["spirit_damage"]["rolled"] == 7
    assert done["spirit_damage"]["magic_points"] == {"before": 12, "after": 5}
    assert table.rolled == [("1d8", 2), ("1d8", 7)]  # both dice recorded
    assert done["effects"][0]["outcome"] == "Spirit Damage rolled 2 times (2, 7): 7 kept"


def test_spirit_lance_of_a_defender_who_cannot_strike_back_has_nothing_to_roll(
    tmp_path: Path,
) -> None:
    # A house rule lets the defender lance too; a mortal resisting with Willpower deals no
    # Spirit Damage, so there is nothing to roll twice.
    rules = house_rules(
        tmp_path,
        {
            "spirit_effects.toml": (
                '[[spirit_effects]]\nid = "spirit_lance"\nname = "Spirit Lance"\n'
                'taker = "either"\nmechanic = "spirit_lance"\nparams = { damage_rolls = 2 }\n'
                'description = "House rule: either side may lance."\n'
            )
        },
    )
    table = Table(rules)
    duel(table, shaman(), fighter("ghost", magic_points=12))  # Willpower 40, no spirit combat
    out = engage(table, [80, 20])
    done = choose(table, out["token"], ["spirit_lance"])
    assert done["spirit_damage"] is None
    assert done["effects"][0]["outcome"] == "no Spirit Damage to roll: nothing to keep"


def test_bleed_essence_takes_a_magic_point_at_the_start_of_every_cycle(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [3, 70])  # critical: two effects
    done = choose(table, out["token"], ["bleed_essence"], [4])
    assert table.who("ghost")["magic_points"] == 8  # 12 − 4
    assert done["effects"][0]["condition"] == "bleeding_essence"
    turn = table("next_turn", {})  # the ghost dithers: cycle 2 begins
    assert turn["cycle"] == 2
    assert table.who("ghost")["magic_points"] == 7
    assert turn["essence_lost"] == [
        {"combatant": "ghost", "magic_points": {"before": 8, "after": 7}}
    ]
    table("next_turn", {})  # shaman dithers
    table("next_turn", {})  # ghost dithers: round 2, cycle 1
    assert table.state is not None and table.state["round"] == 2
    assert table.who("ghost")["magic_points"] == 6
    assert table.who("shaman")["magic_points"] == 14


def test_bleed_essence_ends_when_the_spirit_combat_ends(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [3, 70])
    choose(table, out["token"], ["bleed_essence"], [1])  # 12 − 1 = 11
    table("next_turn", {})  # the ghost passes; cycle 2 begins: it bleeds 11 → 10
    assert table.who("ghost")["magic_points"] == 10
    table("next_turn", {})  # the shaman passes; the ghost's turn
    back = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [90, 20])
    done = choose(table, back["token"], ["turn_back"], [2])  # the shaman strikes back for 2
    assert done["engaged"] is False
    assert done["effects"][0]["lapsed"] == ["ghost: bleeding_essence"]
    assert "bleeding_essence" not in table.who("ghost")["conditions"]
    # The ghost's attack spent the last action point: round 2 began (10 → 9) before the shaman
    # struck back for 2.
    assert table.who("ghost")["magic_points"] == 7


def test_bleed_essence_that_empties_the_magic_points_defeats_its_victim(table: Table) -> None:
    encounter(table, shaman(), ghost(magic_points=3))
    out = engage(table, [3, 70])
    choose(table, out["token"], ["bleed_essence"], [2])  # 3 − 2 = 1
    turn = table("next_turn", {})  # cycle 2: 1 − 1 = 0
    assert turn["essence_lost"][0]["defeated"] == "incapacitated"
    assert "incapacitated" in table.who("ghost")["conditions"]
    assert table.state is not None and table.state["spirit_engagements"] == []


def test_psychic_stun_makes_the_foe_lose_his_next_turn(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [20, 70])
    done = choose(table, out["token"], ["psychic_stun"], [3])
    assert done["effects"][0]["outcome"] == "loses his next 1 Turn(s)"
    assert done["current"] == "ghost"
    with pytest.raises(EngineError, match="ghost loses this Turn \\(Psychic Stun\\)"):
        table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [])
    with pytest.raises(EngineError, match="cannot delay"):
        table("delay", {"combatant": "ghost"})
    table("next_turn", {})  # the lost turn passes (and costs its action point)
    assert "loses_turn" not in table.who("ghost")["conditions"]
    table("next_turn", {})  # the shaman passes; cycle 2: the ghost may act again
    attack = table(
        "spirit_combat", {"attacker": "ghost", "defender": "shaman", "effects": []}, [50, 50]
    )
    assert attack["status"] == "complete"


def test_restrain_keeps_the_spirit_from_withdrawing(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [20, 70])
    choose(table, out["token"], ["restrain"], [1])
    assert table.who("ghost")["conditions"]["restrained"]["engagement"] == "shaman"
    table("next_turn", {})  # the ghost passes; cycle 2, the shaman attacks again
    again = engage(table, [80, 20])  # the ghost wins as defender
    assert again["chooser"] == "ghost"
    assert again["ineligible"]["withdraw"] == "the taker is restrained"
    assert "turn_back" in offered(again)


def test_withdraw_ends_the_spirit_combat_and_either_may_engage_again(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [80, 20])  # the ghost wins as defender
    done = choose(table, out["token"], ["withdraw"], [3])  # it strikes back for 3, then leaves
    assert done["engaged"] is False
    assert done["spirit_damage"]["to"] == "shaman"
    assert table.state is not None and table.state["spirit_engagements"] == []
    assert engage(table, [50, 50])["status"] == "complete"  # nothing bars a new engagement


def test_turn_back_bars_the_attacker_for_the_rest_of_the_round(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [80, 20])
    choose(table, out["token"], ["turn_back"], [3])
    table("next_turn", {})  # the ghost passes: cycle 2, the shaman's turn again
    with pytest.raises(EngineError, match="may not engage him in spirit combat again this round"):
        engage(table, [])
    table("next_round", {})
    assert engage(table, [50, 50], effects=[])["status"] == "complete"


def test_drive_off_ends_the_combat_and_bars_the_spirit_for_the_encounter(table: Table) -> None:
    encounter(table, shaman(), ghost())
    out = engage(table, [20, 70])
    done = choose(table, out["token"], ["drive_off"], [5])
    assert done["engaged"] is False
    assert table.who("ghost")["conditions"]["spirit_barred"]["by"]["shaman"]["until"] == (
        "encounter"
    )
    table("next_round", {})
    with pytest.raises(EngineError, match="again this encounter"):
        table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [])


@pytest.mark.parametrize(
    ("effect", "dice"),
    [
        ("compel_bargain", [20, 70]),
        ("leech_strength", [3, 70]),
        ("suppress_ability", [20, 70]),
    ],
)
def test_an_effect_without_a_mechanical_rule_is_recorded_for_the_gm(
    table: Table, effect: str, dice: list[int]
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, dice)
    done = choose(table, out["token"], [effect], [1])
    assert done["effects"][0]["narrative"] is True
    assert table.who("ghost")["marks"] == [effect]
    assert done["spirit_damage"]["magic_points"]["after"] == 11


def test_obscure_is_recorded_on_the_attacker(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [80, 3])  # the ghost's critical
    done = choose(table, out["token"], ["obscure"], [2])
    assert done["effects"][0]["narrative"] is True
    assert table.who("shaman")["marks"] == ["obscure"]
    assert done["spirit_damage"]["to"] == "shaman"


def test_possess_is_recorded_on_the_mortal(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [20, 90])
    done = choose(table, out["token"], ["possess"], [4])
    assert done["effects"][0]["narrative"] is True
    assert table.who("shaman")["marks"] == ["possess"]


# --- rule data -------------------------------------------------------------------------------


def test_an_overlay_that_makes_spirit_lance_roll_three_times_keeps_the_best_of_three(
    tmp_path: Path,
) -> None:
    rules = house_rules(
        tmp_path,
        {
            "spirit_effects.toml": (
                '[[spirit_effects]]\nid = "spirit_lance"\nname = "Spirit Lance"\n'
                'taker = "attacker"\nmechanic = "spirit_lance"\n'
                "params = { damage_rolls = 3 }\n"
                'description = "House rule: three rolls, the best kept."\n'
            )
        },
    )
    table = Table(rules)
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    done = choose(table, out["token"], ["spirit_lance"], [2, 8, 5])
    assert done["spirit_damage"]["rolls"] == [2, 8, 5]
    assert done["spirit_damage"]["magic_points"]["after"] == 4


def test_an_overlay_that_lets_a_spirit_restrain_offers_it_to_the_ghost(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "spirit_effects.toml": (
                '[[spirit_effects]]\nid = "restrain"\nname = "Restrain"\ntaker = "either"\n'
                'mechanic = "restrain"\nparams = { condition = "restrained" }\n'
                'description = "House rule: anyone may restrain."\n'
            )
        },
    )
    table = Table(rules)
    duel(table, shaman(), ghost())
    out = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [20, 90])
    assert "restrain" in offered(out)


def test_a_defeat_by_spirit_damage_ends_the_spirit_combat_and_its_bleeding(table: Table) -> None:
    duel(table, shaman(), ghost(magic_points=9))
    out = engage(table, [3, 70])
    done = choose(table, out["token"], ["bleed_essence"], [4])  # 9 − 4 = 5: still standing
    assert done["engaged"] is True
    again = engage(table, [50, 50], effects=[])  # both succeed: nobody wins
    assert again["engaged"] is True  # the two stay locked
    finish = engage(table, [20, 70, 8], effects=[])  # 5 − 8 = −3
    assert finish["defeated"] == "ghost" and finish["engaged"] is False
    assert "bleeding_essence" not in table.who("ghost")["conditions"]


def test_an_overlay_that_makes_bleed_essence_last_the_encounter_outlives_a_withdrawal(
    tmp_path: Path,
) -> None:
    rules = house_rules(
        tmp_path,
        {
            "spirit_effects.toml": (
                '[[spirit_effects]]\nid = "bleed_essence"\nname = "Bleed Essence"\n'
                'taker = "either"\nmechanic = "bleed_essence"\n'
                'requires = { own_roll = "critical" }\n'
                'params = { magic_points_per_cycle = 2, lasts = "encounter" }\n'
                'description = "House rule: the wound stays open."\n'
            )
        },
    )
    table = Table(rules)
    encounter(table, shaman(), ghost())
    out = engage(table, [3, 70])
    done = choose(table, out["token"], ["bleed_essence"], [1])  # 12 − 1 = 11
    assert done["effects"][0]["outcome"] == "loses 2 Magic Point(s) at the start of every Cycle"
    table("next_turn", {})  # cycle 2: 11 − 2 = 9
    assert table.who("ghost")["magic_points"] == 9
    table("next_turn", {})  # the shaman passes; the ghost attacks, the shaman turns it back
    back = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [90, 20])
    # The ghost's attack spent the last point: round 2 began (9 − 2 = 7) before the exchange.
    turned = choose(table, back["token"], ["turn_back"], [2])  # 7 − 2 = 5
    assert turned["engaged"] is False and "lapsed" not in turned["effects"][0]
    assert table.who("ghost")["magic_points"] == 5
    assert "bleeding_essence" in table.who("ghost")["conditions"]  # the combat ended, not it
