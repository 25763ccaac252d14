"""Death timers: a wound whose rule data says ``dies_unless_treated`` (a Major Wound: "If he
survives, and the location is not treated within a number of Combat Rounds equal to twice his
Healing Rate, he still dies") leaves the condition ``dying`` (``within``, ``unit``). As rounds
pass, it runs out and he dies.

The round of the wound does not count: the victim dies as the round ``within`` rounds after it
closes (wounded in round 1 with 4 rounds to live, he is dead when round 6 begins). A timer in
minutes counts ``60 / combat.round_seconds`` rounds a minute. Without turns tracked (phase
``free``) no round passes and nothing counts down. The record gets ``wounded_round`` and
``dies_at_round`` the first time a round closes after the wound; the request that opens the
fatal round lists the dead under ``died``. A GM who treats the wound removes the condition.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import ceil_div
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    put_condition,
    records_of,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.contract import JSON, Resolution

DYING = "dying"


def _rounds_of(rules: RulesView, within: int, unit: str) -> int:
    """Combat Rounds in ``within`` ``unit`` (rounds or minutes)."""
    if unit == "rounds":
        return within
    seconds = within * {"minutes": 60, "hours": 3600}.get(unit, 0)
    return ceil_div(seconds, rules.model.combat.round_seconds)


def after_request(
    rules: RulesView,
    begun: int | None,
    done: Resolution,
    after: EncounterState | None,
) -> Resolution:
    """``done`` (whose state ``after`` views) with every death timer that the rounds it closed
    ran out applied (unchanged when it closed no round or nobody is dying); ``begun``: the
    Combat Round the request began in, read from the stored state (None: it began outside the
    turns phase)."""
    if begun is None or after is None:
        return done
    if not tracks_turns(after) or after.round_number() <= begun:
        return done
    dying = [cid for cid, c in records_of(after).items() if DYING in c.conditions]
    if not dying:
        return done
    state = writable(after)
    died: list[JSON] = []
    for cid in dying:
        c = combatant(state, cid)
        timer = c.conditions[DYING]
        if "dies_at_round" not in timer:
            # Stamped at the first round closing after the wound: it was dealt in the round
            # this request began in (a round never closes without a request).
            timer["wounded_round"] = begun
            rounds = _rounds_of(rules, int(timer["within"]), str(timer["unit"]))
            timer["dies_at_round"] = begun + rounds + 1
        if after.round_number() >= timer["dies_at_round"] and "dead" not in c.conditions:
            put_condition(c.conditions, "dead")
            what = (
                f"the {timer['wound']} wound to the {timer['location']}"
                if "wound" in timer and "location" in timer
                else "the wound"
            )
            died.append(
                {
                    "combatant": cid,
                    "round": after.round_number(),
                    "why": f"{what} was not treated within {timer['within']} {timer['unit']}",
                }
            )
    result = {**done.result, "died": died} if died else done.result
    return Resolution(result, state.data, done.private)
