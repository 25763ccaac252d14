"""Leaping attacks (text "Leaping Attacks"): Athletics against Brawn or Evade, the SIZ limit,
quadrupeds, bracing, the prone consequence and special effects — each data key of
``combat.leaping_attack`` changed through a rules overlay changes the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule


def siz(value: int) -> dict[str, int]:
    return {"str": 11, "con": 11, "siz": value, "dex": 12, "int": 12, "pow": 10}


def leaper(**over: Any) -> dict[str, Any]:
    return fighter("cat", skills={"athletics": 60}, **over)


def test_a_won_leap_knocks_the_defender_prone_with_the_leaper_astride(table: Table) -> None:
    duel(table, leaper(), fighter("b"))
    out = table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.rolled == [("1d100 athletics cat", 20), ("1d100 brawn b", 50)]
    assert out["kind"] == "leaping_attack"
    assert out["status"] == "complete"
    assert (out["attack"]["target"], out["attack"]["level"]) == (60, "success")
    assert (out["defence_roll"]["target"], out["defence_roll"]["level"]) == (30, "failure")
    assert out["differential"] == {"winner": "attacker", "effects": 1, "bonus_effects": 0}
    assert out["leap"]["leaper_won"] is True
    assert out["blow"] is None  # a leap deals no damage
    assert table.who("b")["conditions"]["prone"]["held_down_by"] == "cat"
    assert table.who("cat")["conditions"]["astride"]["on"] == "b"
    assert table.who("b")["hit_points"] == table.who("b")["hit_points_max"]


def test_a_failed_leap_leaves_the_defender_standing_and_he_wins_the_effect(
    table: Table,
) -> None:
    duel(table, leaper(), fighter("b"))
    out = table(
        "leaping_attack",
        {"attacker": "cat", "defender": "b", "resist_with": "evade"},
        [70, 20],
    )
    assert table.rolled == [("1d100 athletics cat", 70), ("1d100 evade b", 20)]
    assert out["status"] == "awaiting_effects"
    assert out["chooser"] == "b"
    assert out["differential"]["winner"] == "defender"
    assert out["leap"]["leaper_won"] is False
    assert "prone" not in table.who("b")["conditions"]
    done = table(
        "choose_effects", {"token": out["token"], "effects": [{"id": "trip_opponent"}]}, [90]
    )
    assert done["kind"] == "leaping_attack"
    assert done["effects"][0]["outcome"] == "prone"
    assert "prone" in table.who("cat")["conditions"]  # tripped by the defender's effect


def test_the_winner_of_a_leap_may_take_a_special_effect_afterwards(table: Table) -> None:
    duel(table, leaper(), fighter("b"))
    out = table("leaping_attack", {"attacker": "cat", "defender": "b"}, [20, 50])
    assert out["status"] == "awaiting_effects"
    assert "prone" in table.who("b")["conditions"]  # the prone is automatic, not an effect
    done = table("choose_effects", {"token": out["token"], "effects": [{"id": "grip"}]})
    assert done["kind"] == "leaping_attack"
    assert done["leap"]["leaper_won"] is True
    assert table.who("b")["conditions"]["gripped"]["by"] == "cat"


def test_a_leap_against_a_quadruped_is_one_grade_harder_and_it_may_use_athletics(
    table: Table,
) -> None:
    duel(table, leaper(), fighter("wolf", quadruped=True, skills={"athletics": 50}))
    out = table(
        "leaping_attack",
        {"attacker": "cat", "defender": "wolf", "resist_with": "athletics", "effects": []},
        [45, 30],
    )
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("hard", 40)  # 60 × 2/3
    assert out["attack"]["level"] == "failure"
    assert out["defence_roll"]["skill_name"] == "athletics"
    assert out["differential"]["winner"] == "defender"


def test_a_biped_cannot_resist_a_leap_with_athletics(table: Table) -> None:
    duel(table, leaper(), fighter("b"))
    with pytest.raises(EngineError, match="resists a leap with brawn or evade, not 'athletics'"):
        table("leaping_attack", {"attacker": "cat", "defender": "b", "resist_with": "athletics"})


def test_a_leap_only_works_against_up_to_twice_the_leapers_siz(table: Table) -> None:
    duel(table, leaper(), fighter("ox", characteristics=siz(25)))
    with pytest.raises(EngineError, match=r"SIZ up to 24 \(2× cat's\); ox counts 25"):
        table("leaping_attack", {"attacker": "cat", "defender": "ox"})


def test_bracing_makes_the_defender_count_half_as_large_again(table: Table) -> None:
    duel(table, leaper(), fighter("b", characteristics=siz(17)))
    with pytest.raises(EngineError, match="b braced counts 26"):  # 17 × 3/2 = 25.5 → 26
        table("leaping_attack", {"attacker": "cat", "defender": "b", "defender_braced": True})
    out = table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert out["leap"]["defender_siz_counted"] == 17


def test_a_leap_is_the_leapers_attack_and_the_resistance_a_reaction(table: Table) -> None:
    table("start_encounter", {"combatants": [leaper(), fighter("b")]})
    table("initiative", {}, [9, 2])
    before = table.state["combatants"]["b"]["ap"]  # type: ignore[index]
    table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.who("cat")["ap"] == before - 1
    assert table.who("b")["ap"] == before - 1
    with pytest.raises(EngineError, match="not cat's turn"):
        table("leaping_attack", {"attacker": "cat", "defender": "b"})


def test_a_defender_without_action_points_cannot_resist_the_leap(table: Table) -> None:
    table("start_encounter", {"combatants": [leaper(), fighter("b", action_points=1)]})
    table("initiative", {}, [9, 2])
    table("next_turn", {})  # cat dithers
    table("next_turn", {})  # b dithers: no points left
    out = table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20])
    assert out["defence_roll"] is None
    assert out["defence_level"] == "failure"
    assert "b has no action points left: counts as a failure" in out["notes"]
    assert out["leap"]["leaper_won"] is True


def test_a_leap_that_closes_the_round_leaves_b_prone_with_cat_astride_in_the_new_round(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [leaper(), fighter("b", action_points=1)]})
    table("initiative", {}, [9, 2])
    table("next_turn", {})  # cat dithers: 1 point left
    table("next_turn", {})  # b dithers: none left
    out = table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20])
    # Resolved in round 1: b has no point to resist with (the new round's are not his yet).
    assert out["defence_roll"] is None
    assert "b has no action points left: counts as a failure" in out["notes"]
    assert out["lasting"] == {"cat": ["astride"], "b": ["prone"]}
    # Then the round closed: round 2, cycle 1, everyone's points back.
    assert table.state is not None
    assert (table.state["round"], table.state["cycle"]) == (2, 1)
    assert (table.who("cat")["ap"], table.who("b")["ap"]) == (2, 1)
    assert table.who("b")["conditions"] == {"prone": {"turns": None, "held_down_by": "cat"}}
    assert table.who("cat")["conditions"] == {"astride": {"turns": None, "on": "b"}}
    assert table.who("cat")["attacked_round"] == 1


def test_a_parked_leap_that_closes_the_round_keeps_its_prone_and_its_token(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [leaper(), fighter("b", action_points=1)]})
    table("initiative", {}, [9, 2])
    table("next_turn", {})
    table("next_turn", {})
    out = table("leaping_attack", {"attacker": "cat", "defender": "b"}, [20])
    assert out["status"] == "awaiting_effects"
    assert table.state is not None
    assert (table.state["round"], table.state["cycle"]) == (2, 1)
    assert (table.who("cat")["ap"], table.who("b")["ap"]) == (2, 1)
    assert table.who("b")["conditions"] == {"prone": {"turns": None, "held_down_by": "cat"}}
    assert table.who("cat")["conditions"] == {"astride": {"turns": None, "on": "b"}}
    done = table("choose_effects", {"token": out["token"], "effects": [{"id": "grip"}]})
    assert done["leap"]["leaper_won"] is True
    assert table.who("b")["conditions"]["gripped"]["by"] == "cat"
    assert table.who("b")["conditions"]["prone"]["held_down_by"] == "cat"


def test_a_resistance_that_closes_the_round_is_paid_in_it_and_the_leap_still_lands(
    table: Table,
) -> None:
    cat, b = leaper(action_points=1), fighter("b", action_points=1)
    table("start_encounter", {"combatants": [cat, b]})
    table("initiative", {}, [9, 2])
    out = table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.rolled == [("1d100 athletics cat", 20), ("1d100 brawn b", 50)]
    assert out["leap"]["leaper_won"] is True
    # b's last point paid for his Brawn; then nobody had any and round 2 began.
    assert table.state is not None
    assert (table.state["round"], table.state["cycle"]) == (2, 1)
    assert (table.who("cat")["ap"], table.who("b")["ap"]) == (1, 1)
    assert table.who("b")["conditions"] == {"prone": {"turns": None, "held_down_by": "cat"}}
    assert table.who("cat")["conditions"] == {"astride": {"turns": None, "on": "b"}}


# --- every data key changes the outcome (rules overlays) -----------------------------------------


def test_the_leapers_skill_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = Table(with_combat_rule(model, tmp_path, "leaping_attack", attacker_skill="brawn"))
    duel(table, leaper(), fighter("b"))
    table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.rolled[0] == ("1d100 brawn cat", 20)


def test_the_defenders_skills_come_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = Table(with_combat_rule(model, tmp_path, "leaping_attack", defender_skills=["evade"]))
    duel(table, leaper(), fighter("b"))
    table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.rolled[1] == ("1d100 evade b", 50)  # the first listed is the default
    with pytest.raises(EngineError, match="with evade, not 'brawn'"):
        table("leaping_attack", {"attacker": "cat", "defender": "b", "resist_with": "brawn"})


def test_the_siz_limit_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = Table(with_combat_rule(model, tmp_path, "leaping_attack", max_target_siz_multiple=3))
    duel(table, leaper(), fighter("ox", characteristics=siz(25)))
    out = table("leaping_attack", {"attacker": "cat", "defender": "ox", "effects": []}, [20, 50])
    assert out["leap"]["siz_limit"] == 36


def test_the_grade_step_against_quadrupeds_comes_from_the_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    rules = with_combat_rule(model, tmp_path, "leaping_attack", grade_steps_vs_quadruped=2)
    table = Table(rules)
    duel(table, leaper(), fighter("wolf", quadruped=True))
    out = table("leaping_attack", {"attacker": "cat", "defender": "wolf", "effects": []}, [20, 50])
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("formidable", 30)


def test_the_brace_multiplier_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    double = {"numerator": 2, "denominator": 1}
    table = Table(with_combat_rule(model, tmp_path, "leaping_attack", brace_siz_multiplier=double))
    duel(table, leaper(), fighter("b", characteristics=siz(13)))
    with pytest.raises(EngineError, match="b braced counts 26"):  # 13 × 2; 3/2 gives 20
        table("leaping_attack", {"attacker": "cat", "defender": "b", "defender_braced": True})


def test_the_quadrupeds_substitute_skill_comes_from_the_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    rules = with_combat_rule(
        model, tmp_path, "leaping_attack", quadruped_defender_skill="acrobatics"
    )
    table = Table(rules)
    duel(table, leaper(), fighter("wolf", quadruped=True))
    body = {"attacker": "cat", "defender": "wolf", "resist_with": "acrobatics", "effects": []}
    table("leaping_attack", body, [20, 50])
    assert table.rolled[1] == ("1d100 acrobatics wolf", 50)
    with pytest.raises(EngineError, match="not 'athletics'"):
        table("leaping_attack", {**body, "resist_with": "athletics"})


def test_a_leap_from_ambush_cannot_be_resisted_and_wins_the_surprise_bonus(table: Table) -> None:
    table("start_encounter", {"combatants": [leaper(), fighter("b")], "surprised": ["b"]})
    table("initiative", {}, [9, 2])
    out = table("leaping_attack", {"attacker": "cat", "defender": "b"}, [20])
    assert "b is surprised and cannot resist before his initiative" in out["notes"]
    assert out["differential"] == {"winner": "attacker", "effects": 2, "bonus_effects": 1}
    assert table.who("b")["conditions"]["surprised"]["attacked"] is True


def test_a_parked_leap_shows_the_exchange_summary_without_the_weapons(table: Table) -> None:
    duel(table, leaper(), fighter("b"))
    out = table("leaping_attack", {"attacker": "cat", "defender": "b"}, [20, 50])
    assert list(out) == [
        "kind",
        "status",
        "leap",
        "token",
        "attacker",
        "defender",
        "attack",
        "defence_roll",
        "defence_level",
        "differential",
        "chooser",
        "eligible",
        "ineligible",
        "notes",
        "lasting",
        "pending",
    ]
