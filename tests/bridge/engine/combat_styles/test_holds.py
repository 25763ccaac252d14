"""Holds from the rule data: the order a Struggle tries them in (``combat.struggle.holds``) and
what Slip Free frees (its ``params.frees``) — each changed through a rules overlay."""

from __future__ import annotations

from pathlib import Path

from compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule
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
