"""The typed record of a parked exchange (``encounter/pending.py``), read from the JSON the
encounter stores: an exchange and a spirit combat each read as their kind."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.encounter.combatants import taken_in
from arbiter.bridge.engine.combat_styles.encounter.pending import parked
from arbiter.bridge.engine.contract import EngineError
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.spirits import ghost, shaman


def test_a_parked_exchange_reads_as_who_fought_who_chooses_and_what(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"}, [5, 80])
    waiting = parked(taken_in(table.state), out["token"])
    assert (waiting.kind, waiting.attacker, waiting.defender) == ("exchange", "a", "b")
    assert (waiting.chooser, waiting.loser, waiting.effects) == ("a", "b", 2)
    assert list(waiting.eligible) == [e["id"] for e in out["eligible"]]
    assert (waiting.weapon, waiting.parry_weapon) == ("broadsword", "heater")
    assert waiting.involved() == ("a", "b") and not waiting.spirit
    assert table.state is not None
    assert waiting.record is table.state["pending"][out["token"]]


def test_a_spirit_combat_reads_as_its_own_kind(table: Table) -> None:
    table("start_encounter", {"combatants": [shaman(), ghost()]})
    assert table.state is not None
    table.state["phase"] = "free"
    out = table("spirit_combat", {"attacker": "shaman", "defender": "ghost"}, [20, 70])
    waiting = parked(taken_in(table.state), out["token"])
    assert (waiting.kind, waiting.spirit, waiting.chooser) == ("spirit_combat", True, "shaman")


def test_a_token_nobody_parked_is_refused() -> None:
    with pytest.raises(EngineError, match="no exchange 'x9' is waiting for a choice of effects"):
        parked(EncounterState({"pending": {}}), "x9")
    with pytest.raises(EngineError, match="no exchange 'x1' is waiting"):
        parked(None, "x1")
