"""The karmic engine follows its rule data: which maneuvers a flank bars is a maneuver flag."""

from __future__ import annotations

import pytest
from karmic_duel import RULES, attack, fighter, ready

from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.rule_edits import edited

A = fighter("a", "heroes", skills={"sword": 1})
GIANT = fighter("giant", "monsters", size=3, finesse=2, main="club", skills={"club": 2})
HANDS = {"a": ["plus-5#1"], "giant": ["plus-1#1", "plus-2#1"]}


def _flanked(rules: object) -> object:
    duel = ready([A, GIANT], HANDS, initiative=("a", "giant"), rules=rules)
    duel.declare("a", attack("plus-5#1", "giant", maneuver="flank"))
    duel.declare("giant", {"maneuver": "parry", "card": "plus-1#1", "target": "a"})
    assert duel.play()["outcomes"][0]["success"] is True
    return duel


def test_the_bundled_data_bars_only_the_dodge_after_a_flank() -> None:
    assert [m.id for m in RULES.maneuvers if m.barred_by_flank] == ["dodge"]


def test_a_maneuver_flagged_barred_by_flank_is_refused_against_the_flanker() -> None:
    house = edited(RULES, "maneuvers.parry.barred_by_flank", True)
    duel = _flanked(house)
    with pytest.raises(EngineError, match="giant cannot parry his blows"):
        duel.declare("giant", {"maneuver": "parry", "card": "plus-2#1", "target": "a"})


def test_without_the_flag_a_flanked_target_may_dodge_the_flanker() -> None:
    dodge = {"maneuver": "dodge", "card": "plus-2#1", "target": "a"}
    # The same dodge the bundled data bars …
    with pytest.raises(EngineError, match="giant cannot dodge his blows"):
        _flanked(RULES).declare("giant", dodge)
    # … is declared in the next register once the flag is off.
    house = edited(RULES, "maneuvers.dodge.barred_by_flank", False)
    duel = _flanked(house)
    declared = duel.declare("giant", dodge).result
    assert (declared["kind"], declared["register"], declared["passed"]) == ("declare", 2, False)
    assert duel.state is not None
    [entry] = duel.state["round"]["registers"][1]["declarations"]["giant"]
    assert (entry["maneuver"], entry["card"], entry["targets"]) == ("dodge", "plus-2#1", ["a"])
