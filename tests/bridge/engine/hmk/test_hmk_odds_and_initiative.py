"""Exact odds by counting, checked against the engine itself; initiative with its modifiers."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.hmk import ENGINE
from arbiter.bridge.engine.hmk.requests import AttackBody


class ThenOnes:
    """Scripted results first, then 1 on every further die."""

    def __init__(self, *results: int) -> None:
        self.results = list(results)

    def randint(self, faces: int) -> int:
        return self.results.pop(0) if self.results else 1


def test_odds_of_a_plain_strike_are_exact(table: Any, block: Any) -> None:
    body = {"attacker": block("ana", skills={"long-sword": 60}), "defender": block("bo")}
    result = table.run("odds", body)["result"]
    assert result["chance"]["effective"] == 55
    assert result["hit"] == {"count": 55, "exact": "11/20", "value": 0.55}
    assert result["critical"] == {"count": 5, "exact": "1/20", "value": 0.05}
    assert result["fumble"] == {"count": 5, "exact": "1/20", "value": 0.05}
    assert result["miss"]["count"] == 40


def test_at_the_five_percent_floor_a_skill_of_55_still_crits_on_one_to_five(
    table: Any, block: Any
) -> None:
    attacker = block("ana", skills={"long-sword": 55})
    body = {"attacker": attacker, "defender": block("bo", defensive_tactics=100), "defending": True}
    result = table.run("odds", body)["result"]
    assert (result["hit"]["count"], result["critical"]["count"]) == (5, 5)


@pytest.mark.parametrize(
    ("skill", "dt", "defending", "armor"),
    [(60, 20, False, "leather"), (35, 40, True, "plate"), (150, 0, False, None)],
)
def test_counted_odds_agree_with_the_engine_on_every_roll(
    hmk: Any, block: Any, skill: int, dt: int, defending: bool, armor: str | None
) -> None:
    body = AttackBody.model_validate(
        {
            "attacker": block("ana", skills={"long-sword": skill}),
            "defender": block("bo", defensive_tactics=dt, armor=armor),
            "defending": defending,
        }
    )
    odds = ENGINE.resolve(hmk.model, "odds", body, None, Dice(ThenOnes())).result
    counts = {"hit": 0, "critical": 0, "fumble": 0, "miss": 0}
    for roll in range(1, 101):
        outcome = ENGINE.resolve(hmk.model, "attack", body, None, Dice(ThenOnes(roll))).result
        counts[outcome["outcome"]] += 1
    hit_roll = next(r for r in range(100, 0, -1) if _outcome(hmk, body, r) == "hit")
    on_hit = Fraction(sum(_suffered(hmk, body, hit_roll, d10) for d10 in range(1, 11)), 10)
    on_critical = Fraction(0)
    for row in hmk.model.critical_hits.rows:  # every roll of a row gives the same injury
        width = Fraction(row.range[1] - row.range[0] + 1, 100)
        total = sum(_suffered(hmk, body, 1, d10, row.range[0]) for d10 in range(1, 11))
        on_critical += width * Fraction(total, 10)
    expected = Fraction(counts["hit"], 100) * on_hit
    expected += Fraction(counts["critical"], 100) * on_critical
    assert odds["hit"]["count"] == counts["hit"] + counts["critical"]
    assert odds["critical"]["count"] == counts["critical"]
    assert odds["fumble"]["count"] == counts["fumble"]
    assert odds["miss"]["count"] == counts["miss"]
    assert odds["expected_injury"]["exact"] == f"{expected.numerator}/{expected.denominator}"


def _outcome(hmk: Any, body: AttackBody, roll: int) -> str:
    return ENGINE.resolve(hmk.model, "attack", body, None, Dice(ThenOnes(roll))).result["outcome"]


def _suffered(hmk: Any, body: AttackBody, *dice: int) -> int:
    result = ENGINE.resolve(hmk.model, "attack", body, None, Dice(ThenOnes(*dice))).result
    return result["injury"]["suffered"]


def test_initiative_is_rolled_per_party_and_the_highest_acts_first(fight: Any) -> None:
    result = fight.run("initiative", {}, [3, 8])["result"]
    assert [(e["id"], e["roll"], e["total"]) for e in result["entrants"]] == [
        ("heroes", 3, 3), ("villains", 8, 8),
    ]  # fmt: skip
    assert result["order"] == [["villains"], ["heroes"]]
    assert fight.state["streaks"] == {"heroes": 0, "villains": 1}


def test_consecutive_initiative_earns_plus_one_a_round_up_to_three(fight: Any) -> None:
    bonuses = []
    for _ in range(5):
        result = fight.run("initiative", {}, [1, 10])["result"]
        villains = result["entrants"][1]
        bonuses.append(villains["total"] - villains["roll"])
        fight.run("round", {})
    assert bonuses == [0, 1, 2, 3, 3]


def test_losing_initiative_resets_the_streak(fight: Any) -> None:
    fight.run("initiative", {}, [1, 10])
    fight.run("initiative", {}, [10, 1])
    result = fight.run("initiative", {}, [1, 1])["result"]
    assert [e["total"] for e in result["entrants"]] == [2, 1]


def test_ambush_wins_or_loses_automatically_whatever_the_roll(fight: Any) -> None:
    body = {
        "entrants": [
            {"id": "heroes", "modifiers": [{"id": "ambushed"}]},
            {"id": "villains", "modifiers": [{"id": "attacking-from-ambush"}]},
        ]
    }
    result = fight.run("initiative", body, [10, 1])["result"]
    assert result["order"] == [["villains"], ["heroes"]]
    assert [e["automatic"] for e in result["entrants"]] == ["loss", "win"]


def test_fear_and_heavy_casualties_lower_the_roll(fight: Any) -> None:
    body = {
        "entrants": [
            {"id": "heroes", "modifiers": [{"id": "afraid"}]},
            {"id": "villains", "modifiers": [{"id": "heavy-casualties", "value": -2}]},
        ]
    }
    result = fight.run("initiative", body, [9, 7])["result"]
    assert [e["total"] for e in result["entrants"]] == [6, 5]


def test_heavy_casualties_must_be_between_minus_one_and_minus_three(fight: Any) -> None:
    body = {"entrants": [{"id": "heroes", "modifiers": [{"id": "heavy-casualties", "value": -4}]}]}
    with pytest.raises(EngineError, match="from -3 to -1"):
        fight.run("initiative", body, [5, 5])


def test_tied_parties_act_at_the_same_time(fight: Any) -> None:
    result = fight.run("initiative", {}, [6, 6])["result"]
    assert result["order"] == [["heroes", "villains"]]


def test_individual_initiative_leaves_out_those_who_cannot_act(fight: Any) -> None:
    fight.state["combatants"]["bo"]["status"] = "dead"
    result = fight.run("initiative", {"mode": "individual"}, [4, 9])["result"]
    assert result["order"] == [["cy"], ["ana"]]


def test_initiative_without_an_encounter_takes_entrants_and_streaks(table: Any) -> None:
    body = {"entrants": [{"id": "red", "streak": 2}, {"id": "blue"}]}
    outcome = table.run("initiative", body, [5, 6])
    assert outcome["state"] is None
    assert outcome["result"]["order"] == [["red"], ["blue"]]
    assert outcome["result"]["streaks"] == {"red": 3, "blue": 0}
