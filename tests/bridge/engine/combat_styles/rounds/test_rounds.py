"""The round state machine: initiative, cycles, turns, action points, illegal moves."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, fighter

LAMINATED_SUIT = {
    loc: "laminated"
    for loc in ("head", "chest", "abdomen", "left_arm", "right_arm", "left_leg", "right_leg")
}


def test_a_full_laminated_suit_costs_three_initiative(table: Table) -> None:
    """The text: laminated on all seven locations, 0.4 each, 7 × 0.4 = 2.8 → 3."""
    table("start_encounter", {"combatants": [fighter("a", armor=LAMINATED_SUIT), fighter("b")]})
    assert table.who("a")["armor_penalty"] == 3
    out = table("initiative", {}, [5, 5])
    # bonus ceil((12+12)/2) = 12; a: 5+12−3 = 14, b: 5+12 = 17
    assert out["rolls"]["a"]["total"] == 14
    assert out["rolls"]["b"]["total"] == 17
    assert out["order"] == ["b", "a"]


def test_surprise_costs_ten_initiative_and_forbids_attacking_that_round(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")], "surprised": ["a"]})
    out = table("initiative", {}, [9, 2])
    assert out["rolls"]["a"]["total"] == 9 + 12 - 10
    assert out["order"] == ["b", "a"]
    table("next_turn", {})  # b dithers
    with pytest.raises(EngineError, match="surprised"):
        table("exchange", {"attacker": "a", "defender": "b", "defence": "none"})


def test_ties_go_to_the_higher_dex_then_to_a_roll(table: Table) -> None:
    quick = fighter("q", characteristics={"str": 11, "con": 11, "siz": 12, "dex": 14, "int": 10})
    table("start_encounter", {"combatants": [fighter("a"), quick, fighter("b")]})
    out = table("initiative", {}, [5, 5, 5, 3, 8])
    assert out["order"] == ["q", "b", "a"]
    assert out["rolls"]["a"]["tie_break"] == 3
    assert out["rolls"]["b"]["tie_break"] == 8


def test_only_the_current_combatant_may_take_a_proactive_action(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    with pytest.raises(EngineError, match="not b's turn"):
        table("exchange", {"attacker": "b", "defender": "a", "defence": "none"})
    with pytest.raises(EngineError, match="once"):
        table("initiative", {}, [1, 1])


def test_actions_points_run_through_cycles_and_reset_each_round(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    out = table("act", {"combatant": "a", "action": "ready_weapon"})
    assert out["current"] == "b"
    assert out["action_points"] == {"a": 1, "b": 2}
    # b parries an attack (a reaction) in cycle 2, then has one point left for his turn
    out = table("next_turn", {})
    assert (out["cycle"], out["current"]) == (2, "a")
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "parry"}, [80, 90])
    assert out["status"] == "complete"
    state = table.state
    assert state is not None
    assert state["round"] == 2  # everyone is out of points: a new round with full points
    assert {c: r["ap"] for c, r in state["combatants"].items()} == {"a": 2, "b": 2}


def test_a_reaction_needs_an_action_point_and_a_defender_without_one_counts_as_failing(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    table.state["combatants"]["b"]["ap"] = 0  # type: ignore[index]
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "parry"}, [30])
    assert out["defence"] == "none"
    assert out["defence_level"] == "failure"
    assert out["differential"]["effects"] == 1
    assert any("no action points" in n for n in out["notes"])


def test_one_proactive_action_per_cycle_and_delay_then_interrupt(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    out = table("delay", {"combatant": "a"})
    assert out["current"] == "b"
    table("interrupt", {"combatant": "a"})
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [90])
    assert table.who("a")["ap"] == 1
    with pytest.raises(EngineError, match="not delaying"):
        table("interrupt", {"combatant": "a"})


def test_an_unused_delay_is_lost_at_the_end_of_the_cycle(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    table("delay", {"combatant": "a"})
    out = table("next_turn", {})  # b dithers; the cycle ends and a's delay becomes a dither
    assert out["action_points"] == {"a": 1, "b": 1}
    assert out["cycle"] == 2


def test_conditions_that_last_turns_expire_at_the_end_of_the_bearers_turns(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    table.state["combatants"]["a"]["conditions"]["cannot_attack"] = {"turns": 1}  # type: ignore[index]
    with pytest.raises(EngineError, match="cannot attack"):
        table("exchange", {"attacker": "a", "defender": "b", "defence": "none"})
    table("next_turn", {})  # a dithers: the condition runs out
    table("next_turn", {})  # b dithers
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [90])
    assert out["attack"]["level"] == "failure"


def test_next_round_drops_remaining_points_and_state_reports_the_position(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    with pytest.raises(EngineError, match="initiative"):
        table("next_round", {})
    table("initiative", {}, [9, 1])
    out = table("next_round", {})
    assert (out["round"], out["cycle"], out["current"]) == (2, 1, "a")
    out = table("state", {})
    assert out["action_points"] == {"a": 2, "b": 2}


def test_unknown_actions_and_combatants_are_refused_with_a_reason(table: Table) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    with pytest.raises(EngineError, match="unknown combat action"):
        table("act", {"combatant": "a", "action": "teleport"})
    with pytest.raises(EngineError, match="no combatant 'z'"):
        table("act", {"combatant": "z", "action": "dither"})
    with pytest.raises(EngineError, match="unique"):
        table("start_encounter", {"combatants": [fighter("a"), fighter("a")]})


def test_bleeding_costs_a_fatigue_level_each_round_with_its_grade_and_points(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    table("initiative", {}, [9, 1])
    table.who("b")["conditions"]["bleeding"] = {"turns": None, "fatigue_per_round": 1}
    table("next_round", {})
    assert table.who("b")["fatigue_levels"] == 1  # winded: skills Hard
    table("next_turn", {})  # a dithers
    out = table("exchange", {"attacker": "b", "defender": "a", "defence": "none"}, [45])
    assert out["attack"]["grade"] == "hard"
    assert out["attack"]["target"] == 40
    for _ in range(3):
        table("next_round", {})
    # exhausted: one action point fewer
    assert table.who("b")["fatigue_levels"] == 4
    assert table.who("b")["ap"] == 1


def test_bracing_with_the_rounds_last_point_keeps_him_braced_in_the_new_round(
    table: Table,
) -> None:
    both = [fighter("a", action_points=1), fighter("b", action_points=1)]
    table("start_encounter", {"combatants": both})
    table("initiative", {}, [9, 2])  # a first
    table("next_turn", {})  # a dithers: b has the round's last point
    out = table("act", {"combatant": "b", "action": "brace"})
    assert (out["round"], out["cycle"], out["current"]) == (2, 1, "a")
    assert out["action_points"] == {"a": 1, "b": 1}
    assert table.who("b")["conditions"] == {"braced": {"turns": None}}
