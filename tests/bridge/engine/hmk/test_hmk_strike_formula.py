"""The strike formula's edges: Defensive Tactics defending or not, the 5% floor, the critical
range (skill 50 vs 55), fumbles whatever the skill, range and movement penalties."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError


def strike(table: Any, block: Any, roll: int, *, attacker: Any = None, defender: Any = None,
           dice: tuple[int, ...] = (), **body: Any) -> dict[str, Any]:  # fmt: skip
    """A stateless strike of Ana on Bo (stat blocks in the request)."""
    request = {
        "attacker": attacker or block("ana"),
        "defender": defender or block("bo"),
        **body,
    }
    outcome = table.run("attack", request, [roll, *dice])
    assert outcome["state"] is None
    return outcome["result"]


def test_an_undefended_target_costs_a_quarter_of_its_defensive_tactics(table, block) -> None:
    result = strike(table, block, 66, attacker=block("ana", skills={"long-sword": 60}),
                    defender=block("bo", defensive_tactics=23))  # fmt: skip
    assert (result["chance"]["dt_applied"], result["chance"]["effective"]) == (5, 55)
    assert result["outcome"] == "miss"


def test_a_defending_target_costs_all_its_defensive_tactics_plus_specializations(
    table, block
) -> None:
    defender = block("bo", defensive_tactics=23, specialization=4)
    result = strike(table, block, 33, attacker=block("ana", skills={"long-sword": 60}),
                    defender=defender, defending=True, dice=(1,))  # fmt: skip
    assert (result["chance"]["dt_applied"], result["chance"]["effective"]) == (27, 33)
    assert result["outcome"] == "hit"


def test_specializations_do_not_count_when_the_target_does_not_defend(table, block) -> None:
    defender = block("bo", defensive_tactics=23, specialization=4)
    result = strike(table, block, 90, defender=defender)
    assert result["chance"]["dt_applied"] == 5


def test_the_chance_never_drops_below_five(table, block) -> None:
    attacker = block("ana", skills={"long-sword": 20})
    defender = block("bo", defensive_tactics=90)
    hit = strike(table, block, 5, attacker=attacker, defender=defender, defending=True, dice=(1,))
    assert (hit["chance"]["effective"], hit["outcome"]) == (5, "hit")
    miss = strike(table, block, 6, attacker=attacker, defender=defender, defending=True)
    assert miss["outcome"] == "miss"


@pytest.mark.parametrize(
    ("skill", "roll", "outcome"),
    [(50, 4, "critical"), (50, 5, "hit"), (55, 5, "critical"), (55, 6, "hit"),
     (9, 1, "hit"), (10, 1, "hit"), (11, 1, "critical")],
)  # fmt: skip
def test_a_critical_is_a_natural_roll_under_a_tenth_of_the_skill(
    table, block, skill: int, roll: int, outcome: str
) -> None:
    attacker = block("ana", skills={"long-sword": skill})
    dice = (1, 1) if outcome == "critical" else (1,)
    result = strike(table, block, roll, attacker=attacker,
                    defender=block("bo", defensive_tactics=0), dice=dice)  # fmt: skip
    assert result["outcome"] == outcome


def test_a_critical_hits_even_when_modifiers_put_the_chance_below_the_roll(table, block) -> None:
    attacker = block("ana", skills={"long-sword": 100})
    defender = block("bo", defensive_tactics=100)
    result = strike(table, block, 9, attacker=attacker, defender=defender, defending=True,
                    dice=(1, 1))  # fmt: skip
    assert (result["chance"]["effective"], result["outcome"]) == (5, "critical")


@pytest.mark.parametrize("roll", [96, 100])
def test_96_to_100_fumbles_whatever_the_skill(table, block, roll: int) -> None:
    attacker = block("ana", skills={"long-sword": 200})
    result = strike(table, block, roll, attacker=attacker, dice=(88,))
    assert result["outcome"] == "fumble"


def test_a_roll_of_95_with_a_chance_of_95_or_more_hits(table, block) -> None:
    attacker = block("ana", skills={"long-sword": 120})
    result = strike(table, block, 95, attacker=attacker, dice=(1,))
    assert result["outcome"] == "hit"


@pytest.mark.parametrize(
    ("feet", "band", "penalty"),
    [(50, "short", 0), (51, "medium", -5), (150, "long", -10), (250, "maximum", -20)],
)
def test_missile_range_penalties_follow_the_weapons_ranges(
    table, block, feet: int, band: str, penalty: int
) -> None:
    attacker = block("ana", weapon="short-bow")
    result = strike(table, block, 99, attacker=attacker, distance_feet=feet, dice=(60, 99))
    assert (result["chance"]["range"], result["chance"]["range_penalty"]) == (band, penalty)


def test_a_shot_beyond_maximum_range_is_refused(table, block) -> None:
    with pytest.raises(EngineError, match="beyond the Short bow's maximum range of 250 ft"):
        strike(table, block, 50, attacker=block("ana", weapon="short-bow"), distance_feet=251)


@pytest.mark.parametrize(("feet", "band"), [(12, "long"), (13, "maximum"), (25, "maximum")])
def test_thrown_weapons_reach_a_quarter_and_half_the_throwers_strength(
    table, block, feet: int, band: str
) -> None:
    result = strike(table, block, 90, weapon="dagger", thrown=True, distance_feet=feet)
    assert result["chance"]["range"] == band


def test_a_throw_beyond_half_the_strength_is_refused(table, block) -> None:
    with pytest.raises(EngineError, match="can throw at most 25 ft"):
        strike(table, block, 50, weapon="dagger", thrown=True, distance_feet=26)


def test_thrown_weapons_have_no_short_or_medium_range(table, block) -> None:
    with pytest.raises(EngineError, match="no short range"):
        strike(table, block, 50, weapon="dagger", thrown=True, range="short")


def test_a_weapon_that_cannot_be_thrown_is_refused(table, block) -> None:
    with pytest.raises(EngineError, match="not a weapon that can be thrown"):
        strike(table, block, 50, thrown=True, range="long")


@pytest.mark.parametrize(
    ("speed", "penalty"), [("walking", 0), ("jogging", -5), ("trotting", -10), ("running", -20)]
)
def test_a_moving_target_is_harder_to_hit(table, block, speed: str, penalty: int) -> None:
    result = strike(table, block, 90, target_movement=speed)
    assert result["chance"]["target_movement_penalty"] == penalty
    assert result["chance"]["effective"] == 80 - 5 + penalty


def test_a_moving_attacker_strikes_with_a_penalty_up_to_a_trot(table, block) -> None:
    result = strike(table, block, 90, attacker_movement="trotting")
    assert result["chance"]["effective"] == 80 - 5 - 10
    with pytest.raises(EngineError, match="up to a trot"):
        strike(table, block, 90, attacker_movement="running")


def test_every_modifier_adds_up(table, block) -> None:
    attacker = block("ana", weapon="short-bow")
    result = strike(table, block, 90, attacker=attacker, range="long", modifier=7,
                    target_movement="jogging", attacker_movement="jogging")  # fmt: skip
    # 80 + 7 - 20/4 - 10 (long) - 5 (target jogs) - 5 (archer jogs)
    assert result["chance"]["effective"] == 62
