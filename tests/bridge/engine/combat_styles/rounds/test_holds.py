"""Holds: the order a Struggle tries them in (``combat.struggle.holds``) and what Slip Free
frees (its ``params.frees``) — rule data changed through a rules overlay — and what a Grip
forbids its victim (changing range, disengaging)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule
from tests.bridge.engine.combat_styles.moves.test_mounted import cavalry
from tests.bridge.engine.combat_styles.overlays import house_rules

SLIP_FREE_GRIP_ONLY = """
[[special_effects]]
id = "slip_free"
name = "Slip Free"
taker = "defender"
mechanic = "slip_free"
requires = { own_roll = "critical", taker_conditions = ["held"] }
params = { frees = ["gripped"] }
description = "House rule: a critical slips a grip only."
"""


def gripped_and_entangled(table: Table) -> None:
    duel(table, fighter("a", skills={"unarmed": 50}), fighter("b"))
    conditions = table.who("b")["conditions"]
    conditions["entangled"] = {"turns": None, "by": "a", "location": "chest"}
    conditions["gripped"] = {"turns": None, "by": "a"}


def test_a_struggle_tries_the_grip_before_the_entanglement(table: Table) -> None:
    gripped_and_entangled(table)
    out = table("act", {"combatant": "b", "action": "struggle"}, [10, 70])
    # Grip: Brawn or Unarmed, each side his best (b: Unarmed 60 over Brawn 30; a: Unarmed 50).
    assert table.rolled == [("1d100 unarmed", 10), ("1d100 unarmed", 70)]
    assert (out["struggle"]["hold"], out["struggle"]["freed"]) == ("gripped", True)
    assert set(table.who("b")["conditions"]) == {"entangled"}


def test_the_order_of_the_holds_comes_from_the_rule_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    order = ["entangled", "gripped", "grappled", "pinned"]
    table = Table(with_combat_rule(model, tmp_path, "struggle", holds=order))
    gripped_and_entangled(table)
    out = table("act", {"combatant": "b", "action": "struggle"}, [10, 70])
    # Entangle: the victim yanks free with Brawn (the victim's choice, so both roll Brawn).
    assert table.rolled == [("1d100 brawn", 10), ("1d100 brawn", 70)]
    assert (out["struggle"]["hold"], out["struggle"]["freed"]) == ("entangled", True)
    assert set(table.who("b")["conditions"]) == {"gripped"}


def slip(table: Table) -> dict:
    table.who("b")["conditions"]["gripped"] = {"turns": None, "by": "a"}
    table.who("b")["conditions"]["grappled"] = {"turns": None, "by": "a", "location": "left_arm"}
    request = {"attacker": "a", "defender": "b", "effects": [{"id": "slip_free"}]}
    out = table("exchange", request, [80, 3])
    return next(e for e in out["effects"] if e["id"] == "slip_free")


def test_slip_free_frees_every_hold_its_data_lists_at_once(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    assert slip(table)["outcome"] == "free of gripped, grappled"
    assert "gripped" not in table.who("b")["conditions"]
    assert "grappled" not in table.who("b")["conditions"]


def test_what_slip_free_frees_comes_from_the_rule_data(tmp_path: Path) -> None:
    table = Table(house_rules(tmp_path, {"special_effects.toml": SLIP_FREE_GRIP_ONLY}))
    duel(table, fighter("a"), fighter("b"))
    assert slip(table)["outcome"] == "free of gripped"
    assert table.who("b")["conditions"]["grappled"]["by"] == "a"


# Grip: "preventing them from being able to change weapon range or disengage from combat".


def gripped(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    table(
        "exchange",
        {"attacker": "a", "defender": "b", "weapon": "unarmed", "effects": [{"id": "grip"}]},
        [30, 90, 2, 10],
    )
    assert table.who("b")["conditions"]["gripped"]["by"] == "a"


def test_a_gripped_fighter_cannot_win_withdraw(table: Table) -> None:
    gripped(table)
    out = table("exchange", {"attacker": "a", "defender": "b", "weapon": "unarmed"}, [80, 30])
    assert out["chooser"] == "b"
    assert out["ineligible"]["withdraw"] == "the taker must be not gripped"
    assert "withdraw" not in {e["id"] for e in out["eligible"]}


def test_a_fighter_free_of_the_grip_may_withdraw(table: Table) -> None:
    duel(table, fighter("a", weapons=[]), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "weapon": "unarmed"}, [80, 30])
    assert "withdraw" in {e["id"] for e in out["eligible"]}


def test_a_gripped_fighter_cannot_outmanoeuvre_or_change_range(table: Table) -> None:
    gripped(table)
    with pytest.raises(EngineError, match="b is gripped and cannot outmanoeuvre"):
        table("outmaneuver", {"combatant": "b", "opponents": ["a"]})
    with pytest.raises(EngineError, match="b is gripped and cannot change range"):
        table("act", {"combatant": "b", "action": "change_range"})


def test_a_gripped_rider_cannot_withdraw_on_his_faster_mount(table: Table) -> None:
    cavalry(table)
    table.who("knight")["conditions"]["gripped"] = {"turns": None, "by": "brute"}
    with pytest.raises(EngineError, match="knight is gripped and cannot withdraw"):
        table("mounted_withdraw", {"rider": "knight", "opponents": ["brute"]})


# Entangle: "a snared leg prevents the target from moving" — an entangled arm does not.


def entangled_at(table: Table, location: int) -> None:
    duel(table, fighter("a", weapons=["net"]), fighter("b"))
    body = {"attacker": "a", "defender": "b", "effects": [{"id": "entangle"}]}
    table("exchange", body, [30, 90, 3, location])


def test_a_snared_leg_keeps_him_from_moving(table: Table) -> None:
    entangled_at(table, 2)
    assert table.who("b")["conditions"]["entangled"]["location"] == "right_leg"
    with pytest.raises(EngineError, match="b's leg is entangled and he cannot outmanoeuvre"):
        table("outmaneuver", {"combatant": "b", "opponents": ["a"]})
    for action, words in (("move", "move"), ("change_range", "change range")):
        with pytest.raises(EngineError, match=f"b's leg is entangled and he cannot {words}"):
            table("act", {"combatant": "b", "action": action})


def test_an_entangled_arm_does_not_keep_him_from_outmanoeuvring(table: Table) -> None:
    entangled_at(table, 14)
    assert table.who("b")["conditions"]["entangled"]["location"] == "right_arm"
    out = table("outmaneuver", {"combatant": "b", "opponents": ["a"]}, [10, 90])
    assert table.rolled == [("1d100 evade b", 10), ("1d100 evade a", 90)]
    assert out["kind"] == "outmaneuver"
    table("act", {"combatant": "b", "action": "move"})
