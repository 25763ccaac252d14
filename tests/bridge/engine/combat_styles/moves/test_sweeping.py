"""Sweep attacks (text "Sweep Attacks"): one attack roll for every target in the path, each
defender reacting separately, each pair its own exchange — and ``one_roll_for_all_targets``
changed through a rules overlay gives every pair its own roll."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule


def field(table: Table, *, turns: bool = False, **giant: Any) -> None:
    giant_block = fighter("giant", weapons=["broadsword"], **giant)
    table("start_encounter", {"combatants": [giant_block, fighter("b"), fighter("c")]})
    if turns:
        table("initiative", {}, [9, 3, 2])
    else:
        assert table.state is not None
        table.state["phase"] = "free"


TWO = [{"defender": "b", "effects": []}, {"defender": "c", "defence": "evade", "effects": []}]


def test_one_attack_roll_strikes_every_target_and_each_defends_alone(table: Table) -> None:
    field(table)
    out = table("sweep_attack", {"attacker": "giant", "targets": TWO}, [30, 90, 5, 10, 35])
    assert table.rolled == [
        ("1d100 attack", 30),
        ("1d100 parry", 90),
        ("1d8", 5),
        ("1d20", 10),
        ("1d100 evade", 35),
    ]
    assert out["kind"] == "sweep_attack"
    assert out["attack_roll"] == 30
    first, second = out["exchanges"]
    assert (first["defender"], first["attack"]["roll"], first["defence_level"]) == (
        "b",
        30,
        "failure",
    )
    assert (first["blow"]["location"], first["blow"]["to_hit_points"]) == ("chest", 5)
    assert (second["defender"], second["attack"]["roll"]) == ("c", 30)
    assert second["blow"] is None  # c's Evade 35 beats the shared 30
    assert table.who("b")["hit_points"]["chest"] == 2
    assert "prone" in table.who("c")["conditions"]


def test_the_shared_roll_is_judged_against_each_pairs_own_target(table: Table) -> None:
    field(table, skills={"combat_style": 120})
    table.state["combatants"]["c"]["skills"]["combat_style"] = 130  # type: ignore[index]
    targets = [{"defender": "b", "effects": []}, {"defender": "c", "effects": []}]
    out = table("sweep_attack", {"attacker": "giant", "targets": targets}, [95, 99, 3, 10, 40])
    first, second = out["exchanges"]
    assert (first["attack"]["target"], first["attack"]["level"]) == (100, "success")  # 120 − 20
    assert (second["attack"]["target"], second["attack"]["level"]) == (90, "failure")  # 120 − 30
    assert second["attack"]["roll"] == 95


def test_the_attacker_pays_once_and_every_defender_pays_his_reaction(table: Table) -> None:
    field(table, turns=True)
    full = table.who("b")["ap"]
    out = table("sweep_attack", {"attacker": "giant", "targets": TWO}, [30, 90, 5, 10, 35])
    assert out["action_points"] == {"giant": full - 1, "b": full - 1, "c": full - 1}
    assert out["current"] == "b"


def test_each_pair_waits_for_its_own_choice_of_effects(table: Table) -> None:
    field(table)
    targets = [{"defender": "b"}, {"defender": "c"}]
    out = table("sweep_attack", {"attacker": "giant", "targets": targets}, [30, 90, 95])
    tokens = [x["token"] for x in out["exchanges"]]
    assert [x["status"] for x in out["exchanges"]] == ["awaiting_effects"] * 2
    assert tokens == ["x1", "x2"]
    done = table(
        "choose_effects",
        {"token": "x2", "effects": [{"id": "choose_location", "location": "head"}]},
        [4],
    )
    assert (done["defender"], done["blow"]["location"], done["blow"]["damage"]) == ("c", "head", 4)
    waiting = table("state", {})["pending"]
    assert [(c["key"], c["by"], c["body"]) for c in waiting] == [
        ("x1", "giant", {"token": "x1", "by": "giant"})
    ]


def test_a_sweep_respects_the_blocks_of_the_round(table: Table) -> None:
    field(table)
    table("outmaneuver", {"combatant": "c", "opponents": ["giant"]}, [30, 80])
    with pytest.raises(EngineError, match="giant was outmanoeuvred by c"):
        table("sweep_attack", {"attacker": "giant", "targets": TWO})


def test_illegal_sweeps_are_refused(table: Table) -> None:
    field(table)
    with pytest.raises(EngineError, match="named once"):
        table("sweep_attack", {"attacker": "giant", "targets": [{"defender": "b"}] * 2})
    with pytest.raises(EngineError, match="cannot sweep himself"):
        table("sweep_attack", {"attacker": "giant", "targets": [{"defender": "giant"}]})
    with pytest.raises(EngineError, match="no combatant 'z'"):
        table("sweep_attack", {"attacker": "giant", "targets": [{"defender": "z"}]})


def test_without_one_roll_for_all_targets_each_pair_rolls_its_own_attack(
    model: RulesetBase, tmp_path: Path
) -> None:
    rules = with_combat_rule(model, tmp_path, "sweep_attack", one_roll_for_all_targets=False)
    table = Table(rules)
    field(table)
    out = table("sweep_attack", {"attacker": "giant", "targets": TWO}, [30, 90, 5, 10, 95, 35])
    assert [r for r in table.rolled if r[0] == "1d100 attack"] == [
        ("1d100 attack", 30),
        ("1d100 attack", 95),
    ]
    assert out["attack_roll"] is None
    assert out["exchanges"][1]["attack"]["level"] == "failure"


def test_a_sweep_that_closes_the_round_finds_its_targets_without_points_to_defend(
    table: Table,
) -> None:
    b, c = fighter("b", action_points=1), fighter("c", action_points=1)
    table("start_encounter", {"combatants": [fighter("giant", weapons=["broadsword"]), b, c]})
    table("initiative", {}, [9, 3, 2])
    for _ in range(3):
        table("next_turn", {})  # everyone dithers: only the giant has a point left
    out = table("sweep_attack", {"attacker": "giant", "targets": TWO}, [30, 5, 10, 4, 12])
    assert table.rolled == [
        ("1d100 attack", 30),
        ("1d8", 5),
        ("1d20", 10),
        ("1d8", 4),
        ("1d20", 12),
    ]
    first, second = out["exchanges"]
    assert "b has no action points left: counts as a failure" in first["notes"]
    assert "c has no action points left: counts as a failure" in second["notes"]
    assert (table.who("b")["hit_points"]["chest"], table.who("c")["hit_points"]["chest"]) == (2, 3)
    # The round closed after the last pair: round 2, everyone's points back.
    assert (out["round"], out["cycle"]) == (2, 1)
    assert out["action_points"] == {"giant": 2, "b": 1, "c": 1}
    assert table.who("giant")["attacked_round"] == 1
