"""Spirit combat: opposed spirit-combat skills, Spirit Damage to Magic Points by skill band."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules


def shaman(**over: Any) -> dict[str, Any]:
    """POW 14 → 14 Magic Points (rule data: MP = POW); spirit combat 65 (Spirit Damage 1d8)."""
    block = fighter("shaman", spirit_combat=65)
    block["characteristics"] = {**block["characteristics"], "pow": 14}
    return {**block, **over}


def ghost(**over: Any) -> dict[str, Any]:
    """Spectral Combat 50 (Spirit Damage 1d6), 12 Magic Points given outright."""
    return {**fighter("ghost", spirit_combat=50, magic_points=12), **over}


def engage(table: Table, dice: list[int], **body: Any) -> dict[str, Any]:
    """One spirit combat, shaman against ghost; the winner chooses no effects unless ``effects``
    is given (so it finishes at once; tests/.../test_spirit_effects.py covers the choice)."""
    return table(
        "spirit_combat", {"attacker": "shaman", "defender": "ghost", "effects": [], **body}, dice
    )


def test_a_winning_attacker_rolls_his_skill_band_against_the_defenders_magic_points(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 5])  # success against failure; 1d8 → 5
    assert out["differential"] == {"winner": "attacker", "effects": 1}
    assert out["attack"]["target"] == 65 and out["resistance"]["skill_name"] == "spirit_combat"
    assert out["spirit_damage"] == {
        "to": "ghost",
        "skill": 65,
        "dice": "1d8",
        "rolled": 5,
        "magic_points": {"before": 12, "after": 7},
    }
    assert table.who("ghost")["magic_points"] == 7
    assert table.who("shaman")["magic_points"] == 14  # POW 14, untouched


def test_a_defender_with_spirit_combat_who_wins_strikes_back_with_his_own_band(
    table: Table,
) -> None:
    duel(table, shaman(), ghost())
    out = engage(table, [80, 30, 4])  # failure against success; ghost's 50 → 1d6 → 4
    assert out["differential"]["winner"] == "defender"
    assert out["spirit_damage"]["to"] == "shaman"
    assert out["spirit_damage"]["dice"] == "1d6"
    assert table.who("shaman")["magic_points"] == 10


def test_a_mortal_resisting_with_willpower_fends_off_but_cannot_strike_back(
    table: Table,
) -> None:
    duel(table, shaman(), fighter("ghost"))  # no spirit_combat: Willpower 40
    out = engage(table, [80, 30])
    assert out["resistance"]["skill_name"] == "willpower"
    assert out["resistance"]["target"] == 40
    assert out["spirit_damage"] is None
    assert "cannot strike back" in out["notes"][-1]


def test_reaching_zero_magic_points_defeats_the_loser(table: Table) -> None:
    duel(table, shaman(), ghost(magic_points=3))
    out = engage(table, [5, 90, 5])
    assert out["spirit_damage"]["magic_points"] == {"before": 3, "after": -2}
    assert out["defeated"] == "ghost"
    assert "incapacitated" in table.who("ghost")["conditions"]
    with pytest.raises(EngineError, match="out of the fight"):
        engage(table, [])


def test_skills_over_100_lower_both_sides_and_the_band_uses_the_full_skill(
    table: Table,
) -> None:
    duel(table, shaman(spirit_combat=120), ghost(spirit_combat=90))
    out = engage(table, [95, 75, 3, 4])  # 120 → 100, 90 → 70; band 101-120: 2d6
    assert out["penalty_over_100"] == 20
    assert (out["attack"]["target"], out["resistance"]["target"]) == (100, 70)
    assert out["spirit_damage"]["dice"] == "2d6"
    assert out["spirit_damage"]["rolled"] == 7
    assert out["spirit_damage"]["skill"] == 120


def test_fatigue_floors_the_spirit_combat_roll(table: Table) -> None:
    duel(table, shaman(fatigue="winded"), ghost())
    out = engage(table, [50, 60])  # winded: Hard, 65 × 2/3 → 44
    assert out["attack"]["grade"] == "hard"
    assert out["attack"]["target"] == 44
    assert out["differential"]["winner"] is None
    assert out["spirit_damage"] is None


def test_engaging_without_a_spirit_combat_skill_is_refused(table: Table) -> None:
    duel(table, fighter("shaman"), ghost())
    with pytest.raises(EngineError, match="no spirit-combat skill"):
        engage(table, [])


def test_without_a_magic_points_formula_a_stat_block_must_give_them(model: Any) -> None:
    bare = model.model_copy(
        update={"derived": model.derived.model_copy(update={"magic_points": None})}
    )
    table = Table(bare)
    duel(table, shaman(), ghost())
    with pytest.raises(EngineError, match="shaman has no Magic Points"):
        engage(table, [])


def test_in_an_encounter_it_is_the_attackers_proactive_action(table: Table) -> None:
    table("start_encounter", {"combatants": [shaman(), ghost()]})
    table("initiative", {}, [1, 10])  # ghost first (10 + 12), shaman second
    with pytest.raises(EngineError, match="not shaman's turn"):
        engage(table, [])
    table("next_turn", {})
    out = engage(table, [20, 70, 5])
    assert out["action_points"] == {"shaman": 1, "ghost": 1}


def test_a_spirit_combat_sent_with_stat_blocks_needs_no_encounter(table: Table) -> None:
    out = engage(table, [20, 70, 5], combatants=[shaman(), ghost()])
    assert out["spirit_damage"]["magic_points"]["after"] == 7


def test_editing_the_spirit_damage_table_changes_the_damage(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "spirit_damage.toml": (
                '[[spirit_damage]]\nid = "skill_61_80"\n'
                'skill = { min = 61, max = 80 }\ndamage = "1d8+4"\n'
            )
        },
    )
    table = Table(rules)
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 5])
    assert (out["spirit_damage"]["dice"], out["spirit_damage"]["rolled"]) == ("1d8+4", 9)


def test_editing_the_spirit_combat_rules_changes_resistance_and_defeat(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "combat.toml": (
                "[combat.spirit_combat]\n"
                'resist_with = ["willpower"]\n'
                "damage_needs_success = true\n"
                "defender_deals_damage = true\n"
                "defeated_at = 5\n"
                'defeated_condition = "unconscious"\n'
            )
        },
    )
    table = Table(rules)
    duel(table, shaman(), ghost())
    out = engage(table, [20, 70, 8])
    assert out["resistance"]["skill_name"] == "willpower"  # ghost's 50 is ignored
    assert out["resistance"]["target"] == 40
    assert out["spirit_damage"]["magic_points"]["after"] == 4  # 12 − 8, at most 5: defeated
    assert out["defeated"] == "ghost"
    assert "unconscious" in table.who("ghost")["conditions"]


def test_editing_the_magic_points_formula_changes_a_stat_blocks_magic_points(
    tmp_path: Path,
) -> None:
    rules = house_rules(
        tmp_path,
        {"derived.toml": '[derived.magic_points]\nattributes = ["pow", "int"]\ndivisor = 2\n'},
    )
    table = Table(rules)
    duel(table, shaman(), ghost())
    assert table.who("shaman")["magic_points"] == 13  # (14 + 12) / 2, no longer POW 14
    assert table.who("ghost")["magic_points"] == 12  # given outright


def test_an_engagement_that_closes_the_round_keeps_its_luck_point_spent(table: Table) -> None:
    table("start_encounter", {"combatants": [shaman(action_points=1), ghost(action_points=1)]})
    table("initiative", {}, [1, 10])  # ghost first
    table("next_turn", {})  # the ghost dithers: the shaman has the round's last point
    luck = table.who("shaman")["luck_points"]
    out = engage(table, [90, 20, 70, 5], attacker_luck="success")
    assert [r for _, r in table.rolled] == [90, 20, 70, 5]
    assert table.rolled[1] == ("1d100 spirit_combat (luck)", 20)
    assert (out["round"], out["cycle"]) == (2, 1)
    assert out["action_points"] == {"shaman": 1, "ghost": 1}
    assert table.who("shaman")["luck_points"] == luck - 1
    assert table.who("ghost")["magic_points"] == 7  # 12 − 5
