"""Aerial combat aloft (text "Aerial Combat Aloft"): an opposed Fly (or Ride) roll at the start
of each round decides who may attack on this pass; a group roll against a lone flier — and
``combat.aerial.skills`` changed through a rules overlay changes the skills rolled."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule


def sky(table: Table, *, turns: bool = False) -> None:
    fliers = [
        fighter("dragon", skills={"fly": 70}),
        fighter("griffon", skills={"fly": 50}),
        fighter("wyvern", skills={"fly": 50}),
        fighter("knight", skills={"ride": 60}),
    ]
    table("start_encounter", {"combatants": fliers})
    if turns:
        table("initiative", {}, [9, 7, 5, 3])
    else:
        assert table.state is not None
        table.state["phase"] = "free"


def test_the_winner_of_the_pass_may_attack_and_the_loser_may_not(table: Table) -> None:
    sky(table)
    out = table("aerial_pass", {"combatant": "dragon", "opponents": ["griffon"]}, [30, 20])
    assert table.rolled == [("1d100 fly dragon", 30), ("1d100 fly griffon", 20)]
    assert out["kind"] == "aerial_pass"
    assert out["may_attack"] == {"dragon": ["griffon"], "griffon": []}
    assert table.who("griffon")["conditions"]["aloft"]["opponents"] == ["dragon"]
    with pytest.raises(EngineError, match="griffon did not win this round's aerial pass"):
        table("exchange", {"attacker": "griffon", "defender": "dragon"})
    done = table("exchange", {"attacker": "dragon", "defender": "griffon", "effects": []}, [90, 90])
    assert done["status"] == "complete"


def test_in_a_group_pass_those_who_beat_the_lone_flier_may_attack_it(table: Table) -> None:
    sky(table)
    out = table(
        "aerial_pass",
        {
            "combatant": "dragon",
            "opponents": ["griffon", "wyvern", "knight"],
            "skills": {"knight": "ride"},
        },
        [30, 45, 10, 99],
    )
    assert table.rolled[-1] == ("1d100 ride knight", 99)
    # griffon 45 beats 30; wyvern's 10 does not; the knight fails (the dragon may strike him).
    assert out["may_attack"] == {
        "dragon": ["wyvern", "knight"],
        "griffon": ["dragon"],
        "wyvern": [],
        "knight": [],
    }


def test_when_nobody_wins_the_pass_neither_may_attack(table: Table) -> None:
    sky(table)
    out = table("aerial_pass", {"combatant": "dragon", "opponents": ["griffon"]}, [95, 90])
    assert out["may_attack"] == {"dragon": [], "griffon": []}
    with pytest.raises(EngineError, match="dragon did not win"):
        table("exchange", {"attacker": "dragon", "defender": "griffon"})


def test_the_pass_is_rolled_once_at_the_start_of_each_round(table: Table) -> None:
    sky(table, turns=True)
    table("aerial_pass", {"combatant": "dragon", "opponents": ["griffon"]}, [30, 20])
    with pytest.raises(EngineError, match="dragon has already jockeyed"):
        table("aerial_pass", {"combatant": "dragon", "opponents": ["griffon"]})
    table("next_turn", {})
    with pytest.raises(EngineError, match="at the start of a round, before anyone acts"):
        table("aerial_pass", {"combatant": "wyvern", "opponents": ["knight"]})
    table("next_round", {})
    out = table("aerial_pass", {"combatant": "dragon", "opponents": ["griffon"]}, [20, 30])
    assert out["may_attack"] == {"dragon": [], "griffon": ["dragon"]}
    assert out["round"] == 2


def test_fliers_jockey_only_with_the_skills_the_data_names(table: Table) -> None:
    sky(table)
    with pytest.raises(EngineError, match="with fly or ride, not 'swim'"):
        table(
            "aerial_pass",
            {"combatant": "dragon", "opponents": ["griffon"], "skills": {"dragon": "swim"}},
        )
    with pytest.raises(EngineError, match="'wyvern', who is not in this pass"):
        table(
            "aerial_pass",
            {"combatant": "dragon", "opponents": ["griffon"], "skills": {"wyvern": "fly"}},
        )


def test_the_aerial_skills_come_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    table = Table(with_combat_rule(model, tmp_path, "aerial", skills=["ride", "acrobatics"]))
    sky(table)
    table("aerial_pass", {"combatant": "knight", "opponents": ["dragon"]}, [30, 20])
    assert table.rolled == [("1d100 ride knight", 30), ("1d100 ride dragon", 20)]
    with pytest.raises(EngineError, match="with ride or acrobatics, not 'fly'"):
        table(
            "aerial_pass",
            {"combatant": "knight", "opponents": ["dragon"], "skills": {"dragon": "fly"}},
        )
