"""Death timers (``rounds/death_timers.py``): a Major Wound's ``dying`` condition is stamped the
first time a round closes after it, and kills as the round ``within`` rounds after the wound's
closes ("not treated within a number of Combat Rounds equal to twice his Healing Rate")."""

from __future__ import annotations

import json
from typing import Any

from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import released, taken_in
from arbiter.bridge.engine.combat_styles.rounds.death_timers import after_request
from arbiter.bridge.engine.contract import JSON, Resolution
from tests.bridge.engine.combat_styles.helpers import Table, fighter


def turns_state(table: Table, round_number: int, **dying: Any) -> JSON:
    """An encounter of a and b in the turns phase at ``round_number``; b is dying."""
    table("start_encounter", {"combatants": [fighter("a"), fighter("b")]})
    assert table.state is not None
    state: JSON = json.loads(json.dumps(table.state))
    state["phase"] = "turns"
    state["round"] = round_number
    state["combatants"]["b"]["conditions"]["dying"] = {"turns": None, **dying}
    return state


def closing(view: RulesView, before: JSON, after_round: int) -> Resolution:
    after = json.loads(json.dumps(before))
    after["round"] = after_round
    # As the engine calls it: on the stored state's round and the outcome's data, then released.
    taken = taken_in(after)
    assert taken is not None
    done = after_request(
        view, before["round"], Resolution({"kind": "next_round"}, taken.data, None), taken
    )
    released(done.state)
    return done


def test_the_first_round_closing_after_the_wound_stamps_when_he_dies(
    table: Table, view: RulesView
) -> None:
    before = turns_state(table, 1, within=4, unit="rounds", wound="major", location="chest")
    given = json.dumps(before)
    done = closing(view, before, 2)
    assert done.state is not None
    timer = done.state["combatants"]["b"]["conditions"]["dying"]
    assert (timer["wounded_round"], timer["dies_at_round"]) == (1, 6)
    assert "died" not in done.result
    assert "dead" not in done.state["combatants"]["b"]["conditions"]
    assert json.dumps(before) == given  # the state it was given is unchanged


def test_he_dies_as_the_fatal_round_opens_and_the_result_says_why(
    table: Table, view: RulesView
) -> None:
    before = turns_state(
        table, 5, within=4, unit="rounds", wound="major", location="chest", dies_at_round=6
    )
    done = closing(view, before, 6)
    assert done.state is not None
    assert done.result["died"] == [
        {
            "combatant": "b",
            "round": 6,
            "why": "the major wound to the chest was not treated within 4 rounds",
        }
    ]
    assert done.state["combatants"]["b"]["conditions"]["dead"] == {"turns": None}
    assert "dead" not in before["combatants"]["b"]["conditions"]


def test_a_timer_in_minutes_counts_twelve_five_second_rounds_a_minute(
    table: Table, view: RulesView
) -> None:
    before = turns_state(table, 1, within=1, unit="minutes")
    done = closing(view, before, 2)
    assert done.state is not None
    assert done.state["combatants"]["b"]["conditions"]["dying"]["dies_at_round"] == 14
    late = closing(view, {**done.state, "round": 13}, 14)
    assert late.result["died"][0]["why"] == "the wound was not treated within 1 minutes"


def test_no_round_closed_changes_nothing(table: Table, view: RulesView) -> None:
    before = turns_state(table, 3, within=4, unit="rounds")
    done = closing(view, before, 3)
    assert done.state is not None
    assert "wounded_round" not in done.state["combatants"]["b"]["conditions"]["dying"]
