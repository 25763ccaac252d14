"""Regain Footing (text "Regain Footing"): unengaged, a prone fighter stands; engaged, he must
win an opposed test of Brawn or Athletics with the opponent — the skills come from
``combat.regain_footing``, changed here through a rules overlay."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule


def knock_down(table: Table, cid: str) -> None:
    assert table.state is not None
    table.state["combatants"][cid]["conditions"]["prone"] = {"turns": None}


def stand(table: Table, dice: list[int], **body: str) -> dict:
    return table("act", {"combatant": "b", "action": "regain_footing", **body}, dice)


def test_an_unengaged_prone_fighter_stands_without_a_roll(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    knock_down(table, "b")
    out = stand(table, [])
    assert out["footing"]["stood"] is True
    assert out["footing"]["opponent"] is None
    assert table.rolled == []
    assert "prone" not in table.who("b")["conditions"]


def test_standing_with_the_rounds_last_point_leaves_him_on_his_feet_in_the_new_round(
    table: Table,
) -> None:
    both = [fighter("a", action_points=1), fighter("b", action_points=1)]
    table("start_encounter", {"combatants": both})
    table("initiative", {}, [9, 2])  # a first
    table("next_turn", {})  # a dithers: b has the round's last point
    knock_down(table, "b")
    out = stand(table, [])
    assert out["footing"]["stood"] is True
    assert (out["round"], out["cycle"], out["current"]) == (2, 1, "a")
    assert out["action_points"] == {"a": 1, "b": 1}
    assert table.who("b")["conditions"] == {}


def test_an_engaged_fighter_who_wins_the_opposed_test_stands(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", skills={"athletics": 50}))
    knock_down(table, "b")
    out = stand(table, [20, 60], target="a")
    # b's better skill is Athletics 50, Formidable while prone (25); a's two are level, so the
    # first listed (Brawn 30).
    assert table.rolled == [("1d100 athletics b", 20), ("1d100 brawn a", 60)]
    footing = out["footing"]
    assert (footing["stander_roll"]["target"], footing["stander_roll"]["level"]) == (25, "success")
    assert (footing["opponent_roll"]["target"], footing["opponent_roll"]["level"]) == (
        30,
        "failure",
    )
    assert footing["stood"] is True
    assert "prone" not in table.who("b")["conditions"]


def test_an_engaged_fighter_who_loses_the_opposed_test_stays_prone(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", skills={"athletics": 50}))
    knock_down(table, "b")
    out = stand(table, [60, 20], target="a")
    assert out["footing"]["stander_roll"]["level"] == "failure"
    assert out["footing"]["opponent_roll"]["level"] == "success"
    assert out["footing"]["stood"] is False
    assert "prone" in table.who("b")["conditions"]


def test_the_stander_may_name_the_skill_he_tests(table: Table) -> None:
    duel(table, fighter("a"), fighter("b", skills={"athletics": 50}))
    knock_down(table, "b")
    stand(table, [10, 60], target="a", skill="brawn")
    assert table.rolled == [("1d100 brawn b", 10), ("1d100 brawn a", 60)]
    knock_down(table, "b")
    with pytest.raises(EngineError, match="brawn, athletics, not 'evade'"):
        stand(table, [], target="a", skill="evade")


def test_a_doubly_failed_test_is_no_win_so_he_stays_down(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    knock_down(table, "b")
    out = stand(table, [90, 95], target="a")
    assert out["footing"]["stander_roll"]["level"] == "failure"
    assert out["footing"]["opponent_roll"]["level"] == "failure"
    assert out["footing"]["stood"] is False
    assert "prone" in table.who("b")["conditions"]


def leapt_on(table: Table) -> None:
    table(
        "start_encounter",
        {"combatants": [fighter("cat", skills={"athletics": 60}), fighter("b"), fighter("c")]},
    )
    assert table.state is not None
    table.state["phase"] = "free"
    table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.who("b")["conditions"]["prone"]["held_down_by"] == "cat"


def test_a_held_down_victim_cannot_regain_his_footing_while_the_leaper_is_astride(
    table: Table,
) -> None:
    # The text: he "cannot recover his footing until either his attacker leaves him, or he
    # eventually wins a Special Effect permitting him to Arise".
    leapt_on(table)
    with pytest.raises(EngineError, match="held down by cat astride him: he cannot regain"):
        stand(table, [])
    with pytest.raises(EngineError, match="held down by cat astride him"):
        stand(table, [], target="c")
    assert table.who("b")["conditions"]["prone"]["held_down_by"] == "cat"


@pytest.fixture
def lenient(model: RulesetBase, tmp_path: Path) -> Table:
    """A table whose house rule lets a held-down victim struggle up against the leaper."""
    rules = with_combat_rule(model, tmp_path, "leaping_attack", victim_may_regain_footing=True)
    return Table(rules)


def test_by_house_rule_a_held_down_victim_must_beat_the_leaper_astride_him(
    lenient: Table,
) -> None:
    leapt_on(lenient)
    out = stand(lenient, [40, 50])
    # b: Brawn 30 (first of two level skills), Formidable while prone (15), fails; cat:
    # Athletics 60 succeeds.
    assert lenient.rolled == [("1d100 brawn b", 40), ("1d100 athletics cat", 50)]
    assert out["footing"]["opponent"] == "cat"
    assert out["footing"]["stood"] is False
    assert lenient.who("b")["conditions"]["prone"]["held_down_by"] == "cat"
    assert lenient.who("cat")["conditions"]["astride"]["on"] == "b"


def test_by_house_rule_a_victim_who_beats_the_leaper_stands_and_throws_him_off(
    lenient: Table,
) -> None:
    leapt_on(lenient)
    out = stand(lenient, [10, 70])
    assert lenient.rolled == [("1d100 brawn b", 10), ("1d100 athletics cat", 70)]
    assert out["footing"]["stood"] is True
    assert "prone" not in lenient.who("b")["conditions"]
    assert "astride" not in lenient.who("cat")["conditions"]
    assert "astride_ended" not in out  # thrown off by the test itself, nothing left to settle


def test_by_house_rule_a_held_down_victim_cannot_stand_by_beating_someone_else(
    lenient: Table,
) -> None:
    leapt_on(lenient)
    with pytest.raises(EngineError, match="held down by cat: he must beat cat"):
        stand(lenient, [], target="c")


def test_a_fighter_on_his_feet_is_refused_with_a_reason(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    with pytest.raises(EngineError, match="not prone"):
        stand(table, [])


def test_an_overlay_changes_the_skills_of_the_test(model: RulesetBase, tmp_path: Path) -> None:
    rules = with_combat_rule(
        model, tmp_path, "regain_footing", skills=["acrobatics"], opponent_skills=["evade"]
    )
    table = Table(rules)
    duel(table, fighter("a"), fighter("b"))
    knock_down(table, "b")
    out = stand(table, [5, 45], target="a")
    assert table.rolled == [("1d100 acrobatics b", 5), ("1d100 evade a", 45)]
    assert (out["footing"]["stander_roll"]["target"], out["footing"]["stood"]) == (10, True)
