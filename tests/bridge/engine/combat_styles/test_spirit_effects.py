"""Spirit-combat special effects: offered by the rule data's requirements, chosen like the
weapon exchange's (pending token, ``choose_effects``), each with its consequence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules


def shaman(**over: Any) -> dict[str, Any]:
    """A mortal: spirit combat 65 (Spirit Damage 1d8), 14 Magic Points (POW 14)."""
    block = fighter("shaman", spirit_combat=65)
    block["characteristics"] = {**block["characteristics"], "pow": 14}
    return {**block, **over}


def ghost(**over: Any) -> dict[str, Any]:
    """A spirit: Spectral Combat 50 (Spirit Damage 1d6), 12 Magic Points."""
    return {**fighter("ghost", spirit_combat=50, magic_points=12, spirit=True), **over}


def engage(table: Table, dice: list[int], **body: Any) -> dict[str, Any]:
    return table("spirit_combat", {"attacker": "shaman", "defender": "ghost", **body}, dice)


def choose(
    table: Table, token: str, ids: list[str], dice: tuple[int, ...] | list[int] = ()
) -> dict[str, Any]:
    return table("choose_effects", {"token": token, "effects": [{"id": i} for i in ids]}, dice)


def offered(out: dict[str, Any]) -> set[str]:
    return {e["id"] for e in out["eligible"]}


def encounter(table: Table, *blocks: dict[str, Any], first: str = "shaman") -> None:
    """An encounter in turns; ``first`` acts first (initiative dice 10 against 1)."""
    table("start_encounter", {"combatants": list(blocks)})
    ids = [b["id"] for b in blocks]
    table("initiative", {}, [10 if i == first else 1 for i in ids])
    assert table.state is not None and table.state["order"][0] == first


# --- the two steps ---------------------------------------------------------------------------


def test_a_won_spirit_combat_waits_for_the_winners_choice_and_rolls_nothing_more(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])  # success against failure: one effect, no damage rolled yet
    assert out["status"] == "awaiting_effects"
    assert out["chooser"] == "shaman" and out["differential"]["effects"] == 1
    assert "spirit_damage" not in out
    assert table.who("ghost")["magic_points"] == 12
    done = choose(table, out["token"], ["compel_bargain"], [5])
    assert done["status"] == "complete"
    assert done["spirit_damage"]["magic_points"] == {"before": 12, "after": 7}
    assert done["effects"] == [
        {
            "id": "compel_bargain",
            "name": "Compel Bargain",
            "narrative": True,
            "outcome": "recorded: the GM's call",
        }
    ]
    assert table.state is not None and out["token"] not in table.state["pending"]


def test_choosing_more_effects_than_were_won_is_refused(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="2 effects chosen but only 1 were won"):
        choose(table, out["token"], ["spirit_lance", "psychic_stun"])


def test_an_effect_the_winner_may_not_take_is_refused_with_the_reason(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="Withdraw cannot be chosen: only the defender"):
        choose(table, out["token"], ["withdraw"])
    with pytest.raises(EngineError, match="unknown spirit-combat effect 'impale'"):
        choose(table, out["token"], ["impale"])


def test_a_weapon_effect_option_on_a_spirit_effect_is_refused(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    with pytest.raises(EngineError, match="Spirit Lance takes no options"):
        table(
            "choose_effects",
            {"token": out["token"], "effects": [{"id": "spirit_lance", "location": "head"}]},
        )


def test_a_choice_sent_in_advance_finishes_the_exchange_at_once(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 3, 6], effects=[{"id": "spirit_lance"}])
    assert out["status"] == "complete"
    assert out["spirit_damage"]["rolled"] == 6


# --- eligibility -----------------------------------------------------------------------------


def test_a_mortal_attacker_who_succeeds_is_offered_the_attackers_and_mortals_effects(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70])
    assert offered(out) == {
        "compel_bargain",
        "drive_off",
        "psychic_stun",
        "restrain",
        "spirit_lance",
        "suppress_ability",
    }
    assert out["ineligible"]["bleed_essence"] == "needs a critical by the taker"
    assert out["ineligible"]["possess"] == "only a spirit may take it"
    assert out["ineligible"]["withdraw"] == "only the defender may take it"
    assert out["ineligible"]["sunder_binding"] == "needs the opponent to fumble"


def test_a_critical_opens_the_critical_only_effects(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [3, 70])  # critical against failure: two effects
    assert out["differential"]["effects"] == 2
    assert {"bleed_essence", "leech_strength"} <= offered(out)


def test_a_spirit_attacker_may_possess_a_mortal_but_not_restrain_him(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = table("spirit_combat", {"attacker": "ghost", "defender": "shaman"}, [20, 90])
    assert "possess" in offered(out)
    assert out["ineligible"]["restrain"] == "only a mortal may take it"
    assert out["ineligible"]["drive_off"] == "only a mortal may take it"


def test_a_winning_defender_is_offered_the_defenders_effects(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [80, 2])  # failure against critical: the ghost wins two
    assert out["chooser"] == "ghost"
    assert {"obscure", "turn_back", "withdraw", "psychic_stun", "bleed_essence"} <= offered(out)
    assert out["ineligible"]["spirit_lance"] == "only the attacker may take it"


def test_sunder_binding_needs_the_spirit_to_fumble(table: Table) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 99])  # the ghost fumbles
    assert "sunder_binding" in offered(out)
    done = choose(table, out["token"], ["sunder_binding"], [4])
    assert done["effects"][0]["narrative"] is True
    assert table.who("ghost")["marks"] == ["sunder_binding"]


def test_a_mortal_against_a_mortal_is_not_offered_the_effects_that_work_only_on_spirits(
    table: Table,
) -> None:
    duel(table, shaman(), fighter("ghost", spirit_combat=50, magic_points=12))
    out = engage(table, [20, 70])
    assert out["ineligible"]["restrain"] == "works only against a spirit"
    assert out["ineligible"]["drive_off"] == "works only against a spirit"


def test_with_no_effect_to_offer_the_exchange_finishes_at_once(model: Any) -> None:
    # Only Withdraw left (a defender's effect): the winning attacker has nothing to choose.
    kept = [e for e in model.spirit_effects if e.id == "withdraw"]
    table = Table(model.model_copy(update={"spirit_effects": kept}))
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 5])
    assert out["status"] == "complete" and out["effects"] == []
    assert out["spirit_damage"]["rolled"] == 5


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
