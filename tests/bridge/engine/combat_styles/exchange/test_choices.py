"""Pending choices in the shape every ruleset shares (docs/requests.md, "Pending choices"): a
parked exchange says who chooses, with which request, and what each effect's option may be; a
client that only follows the description sends a choice the engine accepts; a ``by`` that is
not the winner is refused before any die."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles import ENGINE
from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter
from tests.bridge.engine.combat_styles.spirits import ghost, shaman


def critical_hit(table: Table) -> dict[str, Any]:
    """a (broadsword, 60) rolls 05 (a critical) against b's failed parry (80) with his heater:
    a wins two effects."""
    duel(table, fighter("a"), fighter("b", weapons=["broadsword", "heater"]))
    body = {"attacker": "a", "defender": "b", "parry_weapon": "heater"}
    return table("exchange", body, [5, 80])


def test_a_parked_exchange_describes_its_one_choice(table: Table) -> None:
    out = critical_hit(table)
    assert out["status"] == "awaiting_effects"
    [choice] = out["pending"]
    assert {k: v for k, v in choice.items() if k != "options"} == {
        "by": "a",
        "key": None,
        "type": "choose_effects",
        "body": {"token": out["token"], "by": "a"},
        "field": "effects",
        "count": 2,
    }
    assert [o["id"] for o in choice["options"]] == [e["id"] for e in out["eligible"]]
    assert [o["label"] for o in choice["options"]] == [e["name"] for e in out["eligible"]]


def test_each_option_carries_the_parameter_its_effect_needs(table: Table) -> None:
    [choice] = critical_hit(table)["pending"]
    params = {o["id"]: o.get("param") for o in choice["options"]}
    location = params["choose_location"]
    assert location["name"] == "location"
    assert [c["id"] for c in location["choices"]] == [
        "right_leg",
        "left_leg",
        "abdomen",
        "chest",
        "right_arm",
        "left_arm",
        "head",
    ]
    assert params["bypass_armor"] == {
        "name": "bypass",
        "choices": [{"id": "worn", "name": "worn"}, {"id": "natural", "name": "natural"}],
    }
    # the weapon b parried with first, then what else he holds
    assert [c["id"] for c in params["disarm_opponent"]["choices"]] == ["heater", "broadsword"]
    assert params["bleed"] is None


def test_a_choice_made_as_the_description_says_is_accepted(model: RulesetBase) -> None:
    table = Table(model)
    out = critical_hit(table)
    [choice] = out["pending"]
    picks = []
    for option in choice["options"]:
        if option["id"] in ("choose_location", "disarm_opponent"):
            param = option["param"]
            picks.append({"id": option["id"], param["name"]: param["choices"][-1]["id"]})
    body = {**choice["body"], choice["field"]: picks[: choice["count"]]}
    parsed = ENGINE.requests[choice["type"]].model_validate(body)
    done = ENGINE.resolve(model, choice["type"], parsed, table.state, Dice(KeyedSource(b"k" * 32)))
    assert done.result["status"] == "complete"
    assert done.result["blow"]["location"] == "head"
    assert "pending" not in done.result


def test_a_choice_by_someone_who_did_not_win_is_refused_before_any_die(table: Table) -> None:
    out = critical_hit(table)
    with pytest.raises(EngineError, match="b does not choose the effects of 'x1': a does"):
        table("choose_effects", {"token": out["token"], "by": "b", "effects": []})
    assert table.rolled == []


def test_a_spirit_combat_choice_takes_no_options(table: Table) -> None:
    table("start_encounter", {"combatants": [shaman(), ghost()]})
    assert table.state is not None
    table.state["phase"] = "free"
    out = table("spirit_combat", {"attacker": "shaman", "defender": "ghost"}, [20, 70])
    [choice] = out["pending"]
    assert (choice["by"], choice["body"]["by"], choice["count"]) == ("shaman", "shaman", 1)
    assert all("param" not in o for o in choice["options"])


def test_a_sweep_leaves_one_choice_per_pair_and_the_state_lists_them(table: Table) -> None:
    giant = fighter("giant", weapons=["broadsword"])
    table("start_encounter", {"combatants": [giant, fighter("b"), fighter("c")]})
    assert table.state is not None
    table.state["phase"] = "free"
    targets = [{"defender": "b"}, {"defender": "c"}]
    out = table("sweep_attack", {"attacker": "giant", "targets": targets}, [30, 90, 95])
    pending = out["pending"]
    assert [(c["key"], c["by"], c["body"]["token"]) for c in pending] == [
        ("sweep-b", "giant", "x1"),
        ("sweep-c", "giant", "x2"),
    ]
    assert [c["heading"] for c in pending] == ["giant ⟶ b", "giant ⟶ c"]
    listed = table("state", {})["pending"]
    assert [(c["key"], c["body"]["token"]) for c in listed] == [("x1", "x1"), ("x2", "x2")]


def test_an_outcome_that_waits_for_nothing_has_no_pending_choices(table: Table) -> None:
    duel(table, fighter("a"), fighter("b"))
    out = table("exchange", {"attacker": "a", "defender": "b", "defence": "none"}, [70])
    assert "pending" not in out


def test_the_memoised_options_are_the_ones_built_afresh(table: Table) -> None:
    from arbiter.bridge.engine.combat_styles.core.rules import view_of
    from arbiter.bridge.engine.combat_styles.encounter.combatants import taken_in
    from arbiter.bridge.engine.combat_styles.encounter.pending import parked
    from arbiter.bridge.engine.combat_styles.exchange.choices import _build_options

    first = critical_hit(table)
    view = view_of(table.model)
    waiting = parked(taken_in(table.state), first["token"])
    assert table.state is not None
    victim = table.typed("b")
    assert first["pending"][0]["options"] == _build_options(view, waiting, victim)
    again = table("exchange", {"attacker": "a", "defender": "b", "parry_weapon": "heater"}, [5, 80])
    assert again["pending"][0]["options"] == first["pending"][0]["options"]
