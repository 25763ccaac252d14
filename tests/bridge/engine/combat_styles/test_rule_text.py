"""Six rules of the combat-styles text (seed ``003_…``) that a rules checker found the engine
getting wrong (issue #17): each test quotes the sentence it follows and asserts its numbers.

Dice order as in test_special_effects: attack d100, defence d100, damage, location, the
effects' own rolls, wound rolls, knockback."""

from __future__ import annotations

from typing import Any

from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited


def test_at_long_range_force_is_one_step_smaller_so_a_buckler_blocks_a_short_bow(
    table: Table,
) -> None:
    """ "At long range … the amount of damage is halved and Force is reduced by one step": a
    short bow (Force Large) strikes at long range as Medium, which a Medium buckler blocks."""
    duel(table, fighter("a", weapons=["short_bow"]), fighter("b", weapons=["buckler"]))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "parry_weapon": "buckler",
            "situation": {"distance": 110},
            "effects": [],
        },
        [5, 30, 6, 13],  # attack 5 (of 6), parry 30 (of 60), 1d6 → 6, location 13
    )
    assert out["blow"]["damage_rolls"] == [6]
    assert out["blow"]["parry"]["attacking_size"] == "medium"  # Large, one step smaller
    assert out["blow"]["parry"]["parrying_size"] == "medium"
    assert out["blow"]["after_parry"] == 0  # 6 halved to 3, all blocked
    assert table.who("b")["hit_points"] == table.who("b")["hit_points_max"]


TOUGH = {
    loc: 40
    for loc in ("head", "chest", "abdomen", "right_arm", "left_arm", "right_leg", "left_leg")
}
"""Hit points enough that the hammer's blows below only leave minor wounds (no wound dice)."""


def _hammer_blow(table: Table, knockback_die: list[int]) -> dict[str, Any]:
    """The great hammer (1d10 → 10, +3) strikes b's chest for 13 rolled damage; his parry (30)
    with a Medium broadsword blocks none of the Huge hammer's blow."""
    out: dict[str, Any] = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": []},
        [50, 30, 10, 10, *knockback_die],
    )
    assert out["blow"]["damage_rolls"] == [13]
    return out


def test_a_brace_lasts_until_the_braced_fighter_moves_away(table: Table) -> None:
    """Brace: "For the purposes of resisting Knockback … the character's SIZ is treated as 50%
    bigger … The benefits of bracing are lost once the character moves away from the place
    they planted themselves." 13 damage against SIZ 12 knocks him back a metre; braced, his
    SIZ counts 18, blow after blow, until he moves."""
    duel(table, fighter("a", weapons=["great_hammer"]), fighter("b", hit_points=TOUGH))
    braced = table("act", {"combatant": "b", "action": "brace"})
    assert braced["brace"] == {"siz": 12, "against_knockback": 18, "against_bash": 24}
    assert table.who("b")["conditions"]["braced"] == {"turns": None}
    assert "knockback" not in _hammer_blow(table, [])
    assert "knockback" not in _hammer_blow(table, [])
    table("act", {"combatant": "b", "action": "move"})
    assert "braced" not in table.who("b")["conditions"]
    out = _hammer_blow(table, [5])
    assert out["knockback"]["metres"] == 1  # 13 − 12 = 1 → 1 m


def test_a_knockback_moves_the_braced_fighter_away_and_ends_his_brace(table: Table) -> None:
    hammer = fighter("a", weapons=["great_hammer"], damage_modifier="+1d6")
    duel(table, hammer, fighter("b", hit_points=TOUGH))
    table("act", {"combatant": "b", "action": "brace"})
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": []},
        [50, 30, 10, 6, 10, 5],  # 13 + 6 = 19 over the braced 18: 1 m
    )
    assert out["knockback"]["metres"] == 1
    assert "braced" not in table.who("b")["conditions"]


def test_the_familiarity_penalty_never_takes_the_skill_below_str_plus_dex(table: Table) -> None:
    """ "The penalty imposed by use of an unfamiliar weapon cannot reduce the user's skill below
    the default level of STR+DEX": Combat Style 40 two grades harder is 20, but STR 10 + DEX 11
    is 21."""
    stats = {"str": 10, "con": 11, "siz": 12, "dex": 11, "int": 12, "pow": 10}
    duel(table, fighter("a", characteristics=stats, skills={"combat_style": 40}), fighter("b"))
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
    assert out["attack"]["target"] == 21
    assert out["attack"]["grade"] == "standard"
    assert out["attack"]["skill"] == 21


def test_an_untreated_major_wound_to_the_chest_kills_after_twice_the_healing_rate_in_rounds(
    table: Table,
) -> None:
    """Major Wound to the Abdomen, Chest or Head: "If he survives, and the location is not
    treated within a number of Combat Rounds equal to twice his Healing Rate, he still dies."
    CON 11 gives Healing Rate 2: 4 rounds after the round of the wound, he is dead."""
    table(
        "start_encounter",
        {
            "combatants": [
                fighter("a", weapons=["great_hammer"], damage_modifier="+1d4"),
                fighter("b"),
            ]
        },
    )
    table("initiative", {}, [10, 1])
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "effects": [{"id": "choose_location", "location": "chest"}],
        },
        # hit (30 of 60), 1d10+3 → 13 and 1d4 → 2, Endurance 35 beats the attack's 30; the
        # knockback's Acrobatics 5
        [30, 10, 2, 35, 5],
    )
    wound = out["blow"]["wound"]
    assert (wound["location"], wound["wound"], wound["hit_points"]) == (
        "chest",
        "major",
        -8,
    )  # 7 − 15
    assert wound["endurance"]["resisted"] is True
    assert wound["consequences"][-1] == "dies unless treated within 4 rounds"
    for round_number in (2, 3, 4, 5):
        opened = table("next_round", {})
        assert opened["round"] == round_number
        assert "dead" not in table.who("b")["conditions"]
        assert "died" not in opened
    opened = table("next_round", {})
    assert opened["round"] == 6
    assert "dead" in table.who("b")["conditions"]
    assert opened["died"] == [
        {
            "combatant": "b",
            "round": 6,
            "why": "the major wound to the chest was not treated within 4 rounds",
        }
    ]


def test_blind_opponent_is_resisted_by_evade_without_a_shield(table: Table) -> None:
    """Blind Opponent: "The attacker must make an opposed roll of his Evade skill (or Weapon
    style if using a shield) against the defender's original parry roll." The attacker holds
    only a broadsword: his Evade 40 rolls 5, a mere success against the critical parry of 3,
    though 5 would be a critical of his Combat Style 60 (and beat the 3)."""
    duel(table, fighter("a", weapons=["broadsword"]), fighter("b"))
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "blind_opponent"}]},
        [80, 3, 5, 2],  # a misses, b parries critically; a's Evade 5; 1d3 → 2 turns
    )
    effect = out["effects"][0]
    assert effect["resistance"]["skill"] == "evade"
    assert effect["resistance"]["target"] == 40
    assert (effect["resistance"]["level"], effect["resistance"]["resisted"]) == ("success", False)
    assert table.who("a")["conditions"]["blinded"]["turns"] == 2


def test_blind_opponent_may_be_resisted_by_the_weapon_style_when_using_a_shield(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))  # a holds his broadsword and heater shield
    out = table(
        "exchange",
        {"attacker": "a", "defender": "b", "effects": [{"id": "blind_opponent"}]},
        [80, 3, 5],  # Combat Style 60: 5 is a critical, higher than b's critical 3
    )
    effect = out["effects"][0]
    assert effect["resistance"]["skill"] == "combat_style"
    assert effect["resistance"]["target"] == 60
    assert (effect["resistance"]["level"], effect["resistance"]["resisted"]) == (
        "critical",
        True,
    )
    assert "blinded" not in table.who("a")["conditions"]


def test_luck_points_come_from_pow_when_the_stat_block_gives_none(table: Table) -> None:
    """[derived.luck_points]: POW 7–12 gives 2 (POW ÷ 6, rounded up). A fighter with POW 10 and
    no typed luck_points re-rolls a missed attack (Cheat Fate) and has 1 left."""
    duel(table, fighter("a"), fighter("b"))
    assert table.who("a")["luck_points"] == 2
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "defence": "none",
            "attacker_luck": "success",
            "effects": [],
        },
        [90, 30, 4, 10],  # missed, re-rolled 30; 1d8 → 4 to the chest (minor)
    )
    assert out["attack"]["luck_rerolled_from"] == 90
    assert out["attack"]["roll"] == 30
    assert table.who("a")["luck_points"] == 1


def test_typed_luck_points_still_win_over_the_derived_ones(table: Table) -> None:
    duel(table, fighter("a", luck_points=0), fighter("b", characteristics=_pow(18)))
    assert table.who("a")["luck_points"] == 0
    assert table.who("b")["luck_points"] == 3


def _pow(power: int) -> dict[str, int]:
    return {"str": 11, "con": 11, "siz": 12, "dex": 12, "int": 12, "pow": power}


def test_evading_moves_the_braced_fighter_and_ends_his_brace(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    table("act", {"combatant": "b", "action": "brace"})
    out = table(
        "exchange", {"attacker": "a", "defender": "b", "defence": "evade"}, [90, 95]
    )  # both fail: nobody wins an effect
    assert "b is no longer braced (evading)" in out["notes"]
    assert "braced" not in table.who("b")["conditions"]


def test_what_ends_a_brace_is_read_from_the_rule_data(model: RulesetBase) -> None:
    table = Table(edited(model, "combat.brace.lost_on_actions", ()))
    duel(table, fighter("a", weapons=["great_hammer"]), fighter("b", hit_points=TOUGH))
    table("act", {"combatant": "b", "action": "brace"})
    table("act", {"combatant": "b", "action": "move"})  # by this house rule he stays planted
    assert "knockback" not in _hammer_blow(table, [])


def test_the_defender_braced_flag_braces_him_against_this_blow_s_knockback(
    table: Table,
) -> None:
    """``situation.defender_braced`` (no Brace action tracked): SIZ 12 counts 18 against the
    13 rolled, for this exchange only."""
    duel(table, fighter("a", weapons=["great_hammer"]), fighter("b", hit_points=TOUGH))
    out = table(
        "exchange",
        {
            "attacker": "a",
            "defender": "b",
            "situation": {"defender_braced": True},
            "effects": [],
        },
        [50, 30, 10, 10],
    )
    assert "knockback" not in out
    assert "braced" not in table.who("b")["conditions"]
    assert _hammer_blow(table, [5])["knockback"]["metres"] == 1
