"""The pending exchange and spirit combat as typed records (``encounter/pending_exchange.py``):
what the encounter stores is their JSON key for key, in the order it always had, and reads back
to the same record whatever order a store keeps the keys in."""

from __future__ import annotations

import json

from arbiter.bridge.engine.combat_styles.encounter.pending_exchange import (
    PendingExchange,
    PendingSpiritCombat,
)
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.spirits import ghost, shaman

EXCHANGE_KEYS = [
    "token",
    "attacker",
    "defender",
    "weapon",
    "defence",
    "parry_weapon",
    "attack",
    "defence_roll",
    "defence_level",
    "differential",
    "band",
    "size_steps",
    "dm_steps",
    "damage_modifier",
    "outreached",
    "damage_factor",
    "surprised",
    "first_on_surprised",
    "hit_intended",
    "bystander",
    "mitigate",
    "situation",
    "warded",
    "notes",
    "grapple",
    "inside_reach",
    "chooser",
    "eligible",
    "ineligible",
]


def test_a_parked_exchange_is_stored_in_its_key_order_and_reads_back_to_the_same_record(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"}, [5, 80])
    assert table.state is not None
    stored = table.state["pending"][out["token"]]
    assert list(stored) == EXCHANGE_KEYS
    shuffled = json.loads(json.dumps(stored, sort_keys=True))  # as a store keeps it
    record = PendingExchange.of(shuffled)
    assert (record.attacker, record.defender, record.weapon) == ("a", "b", "broadsword")
    assert (record.chooser, record.winner, record.no_damage) == ("a", "attacker", False)
    assert record.parry_weapon == "heater" and record.damage_factor == [1, 1]
    again = record.to_json()
    assert list(again) == EXCHANGE_KEYS and again == stored
    assert json.dumps(PendingExchange.of(stored).to_json()) == json.dumps(stored)


def test_a_parked_leap_keeps_its_own_key_order_and_its_move(table: Table) -> None:
    cat = fighter("cat", skills={"athletics": 60})
    duel(table, cat, fighter("b"))
    out = table("leaping_attack", {"attacker": "cat", "defender": "b"}, [20, 50])
    assert table.state is not None
    stored = table.state["pending"][out["token"]]
    assert list(stored)[:3] == ["token", "move", "no_damage"]
    assert list(stored)[-5:] == ["mitigate", "move_result", "chooser", "eligible", "ineligible"]
    record = PendingExchange.of(json.loads(json.dumps(stored, sort_keys=True)))
    assert (record.move, record.no_damage, record.weapon) == ("leaping_attack", True, "unarmed")
    assert record.move_result == {"kind": "leaping_attack", "leap": out["leap"]}
    again = record.to_json()
    assert list(again) == list(stored) and again == stored
    assert json.dumps(PendingExchange.of(stored).to_json()) == json.dumps(stored)


def test_a_record_an_older_engine_stored_without_the_optional_fields_reads_as_it_did(
    table: Table,
) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"}, [5, 80])
    assert table.state is not None
    stored = dict(table.state["pending"][out["token"]])
    for key in ("outreached", "grapple", "inside_reach", "mitigate", "damage_modifier"):
        del stored[key]
    record = PendingExchange.of(stored)
    assert (record.outreached, record.grapple, record.inside_reach) == (False, False, 0)
    assert (record.mitigate, record.damage_modifier) == ([], None)


def test_a_parked_spirit_combat_is_stored_in_its_key_order_and_reads_back(table: Table) -> None:
    table("start_encounter", {"combatants": [shaman(), ghost()]})
    assert table.state is not None
    table.state["phase"] = "free"
    out = table("spirit_combat", {"attacker": "shaman", "defender": "ghost"}, [20, 70])
    assert table.state is not None
    stored = table.state["pending"][out["token"]]
    assert list(stored) == [
        "kind",
        "token",
        "attacker",
        "defender",
        "attack",
        "resistance",
        "penalty_over_100",
        "differential",
        "notes",
        "chooser",
        "eligible",
        "ineligible",
    ]
    record = PendingSpiritCombat.of(json.loads(json.dumps(stored, sort_keys=True)))
    assert (record.attacker, record.defender, record.chooser) == ("shaman", "ghost", "shaman")
    assert record.differential["winner"] == "attacker"
    again = record.to_json()
    assert list(again) == list(stored) and again == stored
