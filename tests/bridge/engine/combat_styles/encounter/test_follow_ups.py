"""Entangle's follow-up: on his following Turn the wielder may spend an Action Point for an
automatic Trip Opponent. The action, the attempted effect, the wielder's skill and the
condition all come from the effect's ``follow_up`` data."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.rule_edits import edited

ENTANGLE = {
    "attacker": "a",
    "defender": "b",
    "defence": "none",
    "effects": [{"id": "entangle", "location": "chest"}],
}
TRIP = {"combatant": "a", "action": "trip_entangled"}


def _entangled(model: RulesetBase) -> Table:
    table = Table(model)
    duel(table, fighter("a", weapons=["whip"]), fighter("b"))
    table("exchange", ENTANGLE, [30, 1, 10])  # attack, 1d3 damage, location
    return table


def test_the_wielder_trips_his_entangled_foe_with_an_opposed_roll(model: RulesetBase) -> None:
    table = _entangled(model)
    assert table.who("b")["conditions"]["entangled"]["follow_up"] == "ready"
    out = table("act", TRIP, [50, 39])  # Combat Style 60 vs the best resisting skill, Evade 40
    trip = out["follow_up"]
    assert trip["effect"] == "trip_opponent"
    assert trip["roll"]["skill"] == "combat_style"
    assert trip["resistance"]["skill"] == "evade"
    assert trip["outcome"] == "prone"
    assert "prone" in table.who("b")["conditions"]
    assert table.rolled == [("1d100 combat_style", 50), ("1d100 evade", 39)]
    with pytest.raises(EngineError, match="has no trip_entangled due"):
        table("act", TRIP, [50, 39])


def test_a_won_resistance_keeps_the_foe_standing(model: RulesetBase) -> None:
    table = _entangled(model)
    out = table("act", TRIP, [35, 39])
    assert out["follow_up"]["outcome"] == "resisted"
    assert "prone" not in table.who("b")["conditions"]


def test_the_follow_up_s_skill_and_effect_are_read_from_the_entangle_data(
    model: RulesetBase,
) -> None:
    clumsy = edited(model, "special_effects.entangle.params.follow_up.skill", "brawn")
    out = _entangled(clumsy)("act", TRIP, [50, 39])  # Brawn 30 fails, Evade 40 succeeds
    assert out["follow_up"]["roll"]["skill"] == "brawn"
    assert out["follow_up"]["outcome"] == "resisted"
    cowing = edited(model, "special_effects.entangle.params.follow_up.effect", "compel_surrender")
    out = _entangled(cowing)("act", TRIP, [50, 39])
    assert out["follow_up"]["effect"] == "compel_surrender"
    assert out["follow_up"]["resistance"]["skill"] == "willpower"
    none = edited(model, "special_effects.entangle.params.follow_up", None)
    table = _entangled(none)
    assert "follow_up" not in table.who("b")["conditions"]["entangled"]
    out = table("act", TRIP)
    assert "follow_up" not in out


def _turns(model: RulesetBase) -> Table:
    table = Table(model)
    blocks = [fighter("a", weapons=["whip"]), fighter("b")]
    table("start_encounter", {"combatants": blocks})
    table("initiative", {}, [10, 1])
    table("exchange", ENTANGLE, [30, 1, 10])  # a's first turn
    table("next_turn", {})  # b dithers; cycle 2 begins
    return table


def test_the_trip_is_made_on_the_wielder_s_following_turn(model: RulesetBase) -> None:
    table = _turns(model)
    out: dict[str, Any] = table("act", TRIP, [50, 39])
    assert out["follow_up"]["outcome"] == "prone"
    assert out["action_points"]["a"] == 0


def test_the_trip_lapses_when_the_following_turn_passes_without_it(model: RulesetBase) -> None:
    table = _turns(model)
    table("next_turn", {})  # a dithers his following turn away
    assert table.who("b")["conditions"]["entangled"]["follow_up"] == "lapsed"
    table("next_turn", {})  # b: the round ends
    with pytest.raises(EngineError, match="has no trip_entangled due"):
        table("act", TRIP, [50, 39])
