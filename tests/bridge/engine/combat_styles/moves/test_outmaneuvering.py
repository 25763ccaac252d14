"""Outmanoeuvring (text "Outmaneuvering"): a group opposed roll of Evade, an action point from
every participant, and foes who fail to beat the roll blocked for the rest of the round —
each data key of ``combat.outmaneuver`` changed through a rules overlay changes the outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter


def crowd(table: Table, **hero: Any) -> None:
    """A barbarian (Evade 60) and three guards (Evade 40), no turns tracked."""
    table(
        "start_encounter",
        {
            "combatants": [
                fighter("hero", skills={"evade": 60}, **hero),
                fighter("g1"),
                fighter("g2"),
                fighter("g3"),
            ]
        },
    )
    assert table.state is not None
    table.state["phase"] = "free"


def test_foes_who_fail_to_beat_the_roll_cannot_attack_him(table: Table) -> None:
    crowd(table)
    out = table(
        "outmaneuver", {"combatant": "hero", "opponents": ["g1", "g2", "g3"]}, [30, 20, 35, 80]
    )
    assert table.rolled == [
        ("1d100 evade hero", 30),
        ("1d100 evade g1", 20),
        ("1d100 evade g2", 35),
        ("1d100 evade g3", 80),
    ]
    assert out["kind"] == "outmaneuver"
    # g1 succeeds with a lower roll, g3 fails: neither beats him; g2 succeeds higher.
    assert out["blocked"] == ["g1", "g3"]
    assert out["may_attack"] == ["g2"]
    assert out["rolls"]["hero"]["target"] == 60
    with pytest.raises(EngineError, match="g1 was outmanoeuvred by hero"):
        table("exchange", {"attacker": "g1", "defender": "hero"})
    done = table(
        "exchange", {"attacker": "g2", "defender": "hero", "effects": []}, [90, 90]
    )  # g2 is free to attack: both miss
    assert done["status"] == "complete"


def test_a_blocked_foe_may_still_attack_someone_else(table: Table) -> None:
    crowd(table)
    table("outmaneuver", {"combatant": "hero", "opponents": ["g1"]}, [30, 80])
    out = table("exchange", {"attacker": "g1", "defender": "g2", "effects": []}, [90, 90])
    assert out["status"] == "complete"


def test_every_participant_spends_an_action_point(
    table: Table,
) -> None:
    table(
        "start_encounter",
        {"combatants": [fighter("hero", skills={"evade": 60}), fighter("g1"), fighter("g2")]},
    )
    table("initiative", {}, [9, 3, 2])
    full = table.who("hero")["ap"]
    out = table("outmaneuver", {"combatant": "hero", "opponents": ["g1", "g2"]}, [30, 20, 80])
    assert out["action_points"] == {"hero": full - 1, "g1": full - 1, "g2": full - 1}
    assert out["current"] == "g1"  # the manoeuvre was hero's proactive action
    with pytest.raises(EngineError, match="outmanoeuvred"):
        table("exchange", {"attacker": "g1", "defender": "hero"})


def test_the_block_of_an_earlier_round_no_longer_counts(table: Table) -> None:
    table(
        "start_encounter",
        {"combatants": [fighter("hero", skills={"evade": 60}), fighter("g1")]},
    )
    table("initiative", {}, [9, 3])
    table("outmaneuver", {"combatant": "hero", "opponents": ["g1"]}, [30, 80])
    table("next_round", {})
    table("next_turn", {})  # hero dithers; g1's turn
    out = table("exchange", {"attacker": "g1", "defender": "hero", "effects": []}, [90, 90])
    assert out["status"] == "complete"


def test_a_foe_without_action_points_cannot_corner_him(table: Table) -> None:
    table(
        "start_encounter",
        {
            "combatants": [
                fighter("hero", skills={"evade": 60}),
                fighter("g1", action_points=1),
            ]
        },
    )
    table("initiative", {}, [3, 9])
    table("next_turn", {})  # g1 dithers his only point away
    out = table("outmaneuver", {"combatant": "hero", "opponents": ["g1"]}, [99])
    assert out["blocked"] == ["g1"]
    assert "g1 has no action points to corner him and is blocked" in out["notes"]


def test_an_outmanoeuvre_that_closes_the_round_finds_a_spent_foe_unable_to_corner_him(
    table: Table,
) -> None:
    hero, g1 = fighter("hero", skills={"evade": 60}, action_points=1), fighter("g1")
    table("start_encounter", {"combatants": [hero, {**g1, "action_points": 1}]})
    table("initiative", {}, [3, 9])  # g1 first
    table("next_turn", {})  # g1 dithers: the hero has the round's last point
    assert table.state is not None
    table.state["combatants"]["hero"]["conditions"]["engaged"] = {"turns": None}
    out = table("outmaneuver", {"combatant": "hero", "opponents": ["g1"], "then": "withdraw"}, [30])
    # Resolved in round 1: g1 has no point left there (the new round's are not his yet).
    assert table.rolled == [("1d100 evade hero", 30)]
    assert "g1 has no action points to corner him and is blocked" in out["notes"]
    assert (out["then"], out["blocked"]) == ("withdraw", ["g1"])
    # Then round 2 began; the block was for the rest of round 1, and the withdrawal stands.
    assert (out["round"], out["cycle"], out["action_points"]) == (2, 1, {"hero": 1, "g1": 1})
    assert table.who("g1")["conditions"] == {
        "outmaneuvered": {"turns": None, "round": 1, "by": ["hero"]}
    }
    assert table.who("hero")["conditions"] == {}


def test_beating_every_foe_lets_him_engage_one_alone(table: Table) -> None:
    crowd(table)
    out = table(
        "outmaneuver",
        {"combatant": "hero", "opponents": ["g1", "g2"], "then": "engage", "engage": "g2"},
        [30, 20, 80],
    )
    assert (out["then"], out["blocked"], out["may_attack"]) == ("engage", ["g1"], ["g2"])
    assert "hero engages g2 alone" in out["notes"]


def test_beating_every_foe_lets_him_withdraw(table: Table) -> None:
    crowd(table)
    out = table(
        "outmaneuver",
        {"combatant": "hero", "opponents": ["g1", "g2"], "then": "withdraw"},
        [30, 20, 80],
    )
    assert (out["then"], out["blocked"], out["may_attack"]) == ("withdraw", ["g1", "g2"], [])
    assert "hero withdraws from the fight" in out["notes"]


def test_without_beating_every_foe_there_is_no_choice(table: Table) -> None:
    crowd(table)
    out = table(
        "outmaneuver",
        {"combatant": "hero", "opponents": ["g1", "g2"], "then": "withdraw"},
        [30, 35, 80],
    )
    assert out["then"] is None
    assert "hero did not beat every foe: he cannot withdraw" in out["notes"]


def test_illegal_outmanoeuvres_are_refused(table: Table) -> None:
    crowd(table)
    with pytest.raises(EngineError, match="cannot outmanoeuvre himself"):
        table("outmaneuver", {"combatant": "hero", "opponents": ["hero"]})
    with pytest.raises(EngineError, match="name the foe to engage"):
        table("outmaneuver", {"combatant": "hero", "opponents": ["g1"], "then": "engage"})
    with pytest.raises(EngineError, match="needs an encounter"):
        Table(table.model)("outmaneuver", {"combatant": "hero", "opponents": ["g1"]})


# --- every data key changes the outcome (rules overlays) -----------------------------------------


def test_the_outmanoeuvre_skill_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    from tests.bridge.engine.combat_styles.house import with_combat_rule

    table = Table(with_combat_rule(model, tmp_path, "outmaneuver", skill="athletics"))
    duel(table, fighter("hero"), fighter("g1"))
    out = table("outmaneuver", {"combatant": "hero", "opponents": ["g1"]}, [20, 80])
    assert table.rolled == [("1d100 athletics hero", 20), ("1d100 athletics g1", 80)]
    assert out["rolls"]["hero"]["target"] == 30


def test_the_action_point_cost_comes_from_the_data(model: RulesetBase, tmp_path: Path) -> None:
    from tests.bridge.engine.combat_styles.house import with_combat_rule

    table = Table(with_combat_rule(model, tmp_path, "outmaneuver", ap_cost_each=2))
    hero, g1 = fighter("hero", action_points=3), fighter("g1", action_points=3)
    table("start_encounter", {"combatants": [hero, g1]})
    table("initiative", {}, [9, 3])
    out = table("outmaneuver", {"combatant": "hero", "opponents": ["g1"]}, [20, 80])
    assert out["action_points"] == {"hero": 1, "g1": 1}


def test_the_outmaneuver_and_mount_actions_are_taken_with_their_own_requests(
    table: Table,
) -> None:
    table("start_encounter", {"combatants": [fighter("hero"), fighter("g1")]})
    table("initiative", {}, [9, 3])
    with pytest.raises(EngineError, match="outmaneuver is made with the outmaneuver request"):
        table("act", {"combatant": "hero", "action": "outmaneuver"})
    with pytest.raises(EngineError, match="mount is made with the mount request"):
        table("act", {"combatant": "hero", "action": "mount"})
