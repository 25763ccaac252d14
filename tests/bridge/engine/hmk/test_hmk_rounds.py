"""The round structure: declarations in the first action, actions spent, reloading bows and
crossbows, readying thrown weapons, standing up, knock-out and stun countdowns."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import Dice, ScriptedSource
from arbiter.bridge.engine.envelope import RequestError
from arbiter.bridge.engine.hmk import ENGINE
from arbiter.bridge.engine.hmk.requests import StartBody


def test_a_defending_target_is_struck_at_its_full_defensive_tactics(fight: Any) -> None:
    fight.run("declare", {"combatant": "bo", "defending": True})
    result = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [61])["result"]
    assert (result["chance"]["dt_applied"], result["chance"]["effective"], result["outcome"]) == (
        20, 60, "miss",
    )  # fmt: skip


def test_one_who_defends_cannot_strike_that_round(fight: Any) -> None:
    fight.run("declare", {"combatant": "bo", "defending": True})
    with pytest.raises(EngineError, match="declared defence"):
        fight.run("attack", {"attacker": "bo", "defender": "ana"}, [50])
    fight.run("round", {})
    assert fight.who("bo")["defending"] is False
    fight.run("attack", {"attacker": "bo", "defender": "ana"}, [90])


def test_declarations_come_before_the_first_action(fight: Any) -> None:
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [90])
    with pytest.raises(EngineError, match="declarations come first"):
        fight.run("declare", {"combatant": "ana", "defending": True})


def test_a_declared_movement_penalises_strikes_at_the_mover(fight: Any) -> None:
    fight.run("declare", {"combatant": "bo", "movement": "running"})
    result = fight.run("attack", {"attacker": "ana", "defender": "bo"}, [90])["result"]
    assert result["chance"]["target_movement_penalty"] == -20


def test_a_combatant_with_one_action_strikes_once_a_round(fight: Any) -> None:
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [90])
    with pytest.raises(EngineError, match="no actions left"):
        fight.run("attack", {"attacker": "ana", "defender": "bo"}, [90])
    fight.run("round", {})
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [90])


def test_extra_actions_allow_more_strikes_but_moving_only_in_the_first(
    table: Any, block: Any
) -> None:
    table.start(block("ana", actions=2), block("bo", party="villains"))
    table.run("attack", {"attacker": "ana", "defender": "bo"}, [90])
    with pytest.raises(EngineError, match="only move during its first action"):
        table.run(
            "attack", {"attacker": "ana", "defender": "bo", "attacker_movement": "jogging"}, [90]
        )
    table.run("attack", {"attacker": "ana", "defender": "bo"}, [90])
    assert table.who("ana")["actions_left"] == 0


def test_a_bow_fires_then_takes_one_action_to_reload(table: Any, block: Any) -> None:
    table.start(block("ana", weapon="short-bow", actions=2), block("bo", party="villains"))
    shot = {"attacker": "ana", "defender": "bo", "range": "short"}
    table.run("attack", shot, [90])
    with pytest.raises(EngineError, match="not loaded"):
        table.run("attack", shot, [90])
    reloaded = table.run("reload", {"combatant": "ana"})["result"]
    assert (reloaded["loaded"], reloaded["needed"]) == (True, 1)
    table.run("round", {})
    table.run("attack", shot, [90])


def test_a_crossbow_takes_two_actions_to_reload(table: Any, block: Any) -> None:
    table.start(block("ana", weapon="light-crossbow"), block("bo", party="villains"))
    shot = {"attacker": "ana", "defender": "bo", "range": "medium"}
    table.run("attack", shot, [90])
    table.run("round", {})
    first = table.run("reload", {"combatant": "ana"})["result"]
    assert (first["loaded"], first["progress"], first["needed"]) == (False, 1, 2)
    table.run("round", {})
    second = table.run("reload", {"combatant": "ana"})["result"]
    assert second["loaded"] is True
    table.run("round", {})
    assert table.run("attack", shot, [90])["result"]["outcome"] == "miss"


def test_a_thrown_weapon_leaves_the_hand_and_another_is_readied(fight: Any) -> None:
    fight.run("ready", {"combatant": "ana", "weapon": "dagger"})
    assert fight.who("ana")["gear"]["long-sword"]["where"] == "carried"
    fight.run("round", {})
    throw = {"attacker": "ana", "defender": "bo", "thrown": True, "range": "long"}
    fight.run("attack", throw, [90])
    assert fight.who("ana")["weapon"] is None
    fight.run("round", {})
    with pytest.raises(EngineError, match="no weapon in hand"):
        fight.run("attack", throw, [90])
    with pytest.raises(EngineError, match="was thrown"):
        fight.run("ready", {"combatant": "ana", "weapon": "dagger"})
    fight.run("ready", {"combatant": "ana", "weapon": "long-sword"})
    assert fight.who("ana")["weapon"] == "long-sword"


def test_one_who_fell_must_spend_an_action_to_stand_before_striking(fight: Any) -> None:
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 30, 99])  # lose footing
    fight.run("round", {})
    with pytest.raises(EngineError, match="must stand first"):
        fight.run("attack", {"attacker": "ana", "defender": "bo"}, [50])
    fight.run("stand", {"combatant": "ana"})
    assert fight.who("ana")["prone"] is False
    assert fight.who("ana")["actions_left"] == 0


def test_a_dropped_weapon_is_readied_again_with_an_action(fight: Any) -> None:
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [97, 40, 99])  # lose grip
    fight.run("round", {})
    ready = fight.run("ready", {"combatant": "ana", "weapon": "long-sword"})["result"]
    assert ready["from"] == "dropped"


def test_a_lost_action_is_taken_from_the_next_round_when_none_is_left(fight: Any) -> None:
    fight.run("attack", {"attacker": "bo", "defender": "ana"}, [90])  # Bo spends his action
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 7, 99])  # Knocked Over
    assert (fight.who("bo")["actions_left"], fight.who("bo")["actions_owed"]) == (0, 1)
    fight.run("round", {})
    assert (fight.who("bo")["actions_left"], fight.who("bo")["actions_owed"]) == (0, 0)
    fight.run("round", {})
    assert fight.who("bo")["actions_left"] == 1


def test_the_knocked_out_and_the_stunned_cannot_act(fight: Any) -> None:
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 55, 1])  # KO 1d10+3 = 4
    with pytest.raises(EngineError, match="knocked out or stunned"):
        fight.run("attack", {"attacker": "bo", "defender": "ana"}, [50])
    for _ in range(4):
        fight.run("round", {})
        assert fight.who("bo")["actions_left"] == 0
    fight.run("round", {})
    assert fight.who("bo")["actions_left"] == 1


def test_requests_that_need_an_encounter_say_so(table: Any) -> None:
    with pytest.raises(EngineError, match="send 'start' first"):
        table.run("round", {})


def test_an_encounter_strike_names_combatants_by_id(fight: Any, block: Any) -> None:
    with pytest.raises(EngineError, match="by id"):
        fight.run("attack", {"attacker": block("ana"), "defender": "bo"}, [50])
    with pytest.raises(EngineError, match="no combatant 'zed'"):
        fight.run("attack", {"attacker": "zed", "defender": "bo"}, [50])


def test_unknown_weapons_and_armor_in_stat_blocks_are_refused_by_the_body_naming_the_field(
    table: Any, block: Any
) -> None:
    with pytest.raises(RequestError) as refused:
        table.start(block("ana", weapon="lightsaber", armor="mithril"))
    weapons = ", ".join(w.id for w in table.ruleset.model.weapons)
    armor = ", ".join(a.id for a in table.ruleset.model.armor)
    assert str(refused.value) == (
        "invalid 'start' request: "
        f"body.combatants.0.weapon: unknown weapon 'lightsaber' (known: {weapons}); "
        f"body.combatants.0.armor: unknown armor 'mithril' (known: {armor})"
    )


def test_a_stat_block_built_without_the_rules_is_still_refused_by_the_engine(
    table: Any, block: Any
) -> None:
    # A body validated without the rules (no validation context) only has its shape checked:
    # the engine stays the last line and refuses what it cannot decide.
    body = StartBody.model_validate({"combatants": [block("ana", skills={"lightsaber": 50})]})
    with pytest.raises(EngineError, match="unknown weapon 'lightsaber'"):
        ENGINE.resolve(table.ruleset.model, "start", body, None, Dice(ScriptedSource([])))


def test_the_callers_state_is_never_changed(fight: Any) -> None:
    import copy

    before = copy.deepcopy(fight.state)
    fight.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 98], keep=False)
    assert fight.state == before


def test_a_malformed_state_is_refused_with_a_clear_error(fight: Any) -> None:
    fight.state = {"round": "one", "combatants": {}}
    with pytest.raises(EngineError, match="not an hmk encounter"):
        fight.run("round", {})
