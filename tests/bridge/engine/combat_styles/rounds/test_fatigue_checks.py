"""Fatigue in combat: Endurance checks due every N rounds by CON, and the levels they cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, fighter
from tests.bridge.engine.combat_styles.overlays import house_rules


def begin(table: Table, *blocks: dict[str, Any], checks: bool = True) -> None:
    """An encounter of ``blocks`` (a before b on initiative 5 and 3) in round 1."""
    table("start_encounter", {"combatants": list(blocks), "fatigue_checks": checks})
    table("initiative", {}, [5, 3])


def test_con_11_makes_an_endurance_check_due_when_the_fourth_round_closes(table: Table) -> None:
    begin(table, fighter("a"), fighter("b"))
    for _ in range(3):  # rounds 1-3 close: nothing is due
        assert "fatigue_checks" not in table("next_round", {})
    out = table("next_round", {}, [30, 70])  # round 4 closes: a passes (40), b fails
    assert out["round"] == 5
    (due,) = out["fatigue_checks"]
    assert due["round"] == 4
    a, b = due["checks"]
    assert (a["combatant"], a["every_rounds"], a["target"], a["level"]) == ("a", 4, 40, "success")
    assert (a["levels_lost"], a["fatigue"]) == (0, "fresh")
    assert (b["combatant"], b["roll"], b["level"], b["levels_lost"]) == ("b", 70, "failure", 1)
    assert b["fatigue"] == "winded"
    assert table.who("b")["fatigue_levels"] == 1


def test_the_level_lost_grades_the_later_rolls(table: Table) -> None:
    begin(table, fighter("a"), fighter("b"))
    for _ in range(3):
        table("next_round", {})
    table("next_round", {}, [30, 70])
    table("next_turn", {})  # a dithers
    out = table("exchange", {"attacker": "b", "defender": "a", "defence": "none"}, [95])
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("hard", 40)  # winded


def test_a_low_con_tires_sooner(table: Table) -> None:
    weak = fighter("a", characteristics={"str": 11, "con": 4, "siz": 12, "dex": 12, "int": 12})
    begin(table, weak, fighter("b"))
    table("next_round", {})
    out = table("next_round", {}, [90])  # CON 4: every 2nd round; only a is due
    assert [c["combatant"] for c in out["fatigue_checks"][0]["checks"]] == ["a"]
    assert out["fatigue_checks"][0]["checks"][0]["every_rounds"] == 2


def test_a_check_failed_into_exhaustion_costs_an_action_point_this_round(table: Table) -> None:
    begin(table, fighter("a"), fighter("b", fatigue="wearied"))
    for _ in range(3):
        table("next_round", {})
    out = table("next_round", {}, [10, 30])  # wearied: Formidable Endurance, 40 → 20
    b = out["fatigue_checks"][0]["checks"][1]
    assert (b["grade"], b["target"], b["level"], b["fatigue"]) == (
        "formidable",
        20,
        "failure",
        "exhausted",
    )
    assert out["action_points"] == {"a": 2, "b": 1}  # exhausted: −1 AP
    assert b["movement"] == "half"
    assert "movement" not in out["fatigue_checks"][0]["checks"][0]  # a is still fresh


def test_a_combatant_out_of_the_fight_makes_no_check(table: Table) -> None:
    begin(table, fighter("a"), fighter("b"))
    assert table.state is not None
    table.state["combatants"]["b"]["conditions"]["unconscious"] = {"turns": None}
    for _ in range(3):
        table("next_round", {})
    out = table("next_round", {}, [30])
    assert [c["combatant"] for c in out["fatigue_checks"][0]["checks"]] == ["a"]


def test_without_fatigue_checks_rounds_roll_nothing(table: Table) -> None:
    begin(table, fighter("a"), fighter("b"), checks=False)
    for _ in range(8):
        assert "fatigue_checks" not in table("next_round", {})


def test_the_round_closed_by_a_turn_records_its_checks(table: Table) -> None:
    begin(table, fighter("a", action_points=1), fighter("b", action_points=1))
    for _ in range(3):
        table("next_round", {})
    table("next_turn", {})  # a dithers
    out = table("next_turn", {}, [30, 30])  # b dithers: round 4 closes
    assert out["kind"] == "next_turn"
    assert out["fatigue_checks"][0]["round"] == 4


def test_a_starting_fatigue_level_must_exist(table: Table) -> None:
    with pytest.raises(EngineError, match="unknown fatigue level 'sleepy'"):
        table("start_encounter", {"combatants": [fighter("a", fatigue="sleepy")]})


def test_editing_the_fatigue_check_bands_changes_when_checks_fall_due(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "combat.toml": (
                "[combat.fatigue_checks]\n"
                'skill = "endurance"\n'
                "levels_lost_on_failure = 2\n"
                "bands = [{ con = { min = 1 }, every_rounds = 1 }]\n"
            )
        },
    )
    table = Table(rules)
    begin(table, fighter("a"), fighter("b"))
    out = table("next_round", {}, [30, 70])  # every round now; a failure costs two levels
    assert out["fatigue_checks"][0]["round"] == 1
    assert out["fatigue_checks"][0]["checks"][1]["fatigue"] == "tired"


def test_editing_a_fatigue_level_changes_its_penalty(tmp_path: Path) -> None:
    rules = house_rules(
        tmp_path,
        {
            "fatigue_levels.toml": (
                '[[fatigue_levels]]\nid = "winded"\nname = "Winded"\nrank = 1\n'
                'skill_grade = "formidable"\naction_points = -1\nrecovery_minutes = 15\n'
            )
        },
    )
    table = Table(rules)
    begin(table, fighter("a"), fighter("b"))
    for _ in range(3):
        table("next_round", {})
    out = table("next_round", {}, [30, 70])
    assert out["action_points"] == {"a": 2, "b": 1}
    table("next_turn", {})
    out = table("exchange", {"attacker": "b", "defender": "a", "defence": "none"}, [95])
    assert (out["attack"]["grade"], out["attack"]["target"]) == ("formidable", 30)
