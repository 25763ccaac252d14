"""Named combat actions (``act``): their kind and cost come from the rule data; Ward Location,
Struggle and pulling an impaled weapon free have consequences of their own."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import ActBody
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.hands import HAND_ACTIONS, snared_leg
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter import brace, follow_ups
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant, writable
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.rounds import footing
from arbiter.bridge.engine.combat_styles.rounds.guards import ward
from arbiter.bridge.engine.combat_styles.rounds.holds import held_by, pull_free, struggle
from arbiter.bridge.engine.combat_styles.rounds.turns import (
    able,
    current,
    delay,
    interrupt,
    next_turn,
    settle,
    snapshot,
    spend_proactive,
)
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice

OWN_REQUESTS = {"outmaneuver": "outmaneuver", "mount": "mount"}
"""Actions whose consequences a request of their own decides (the roll, who rides whom)."""
GRIP_FORBIDS = ("change_range",)
"""Actions a gripped fighter cannot take (Grip: "preventing them from being able to change
weapon range or disengage from combat")."""
SNARE_FORBIDS = ("move", "change_range")
"""Actions a fighter whose leg is entangled cannot take (Entangle: "a snared leg prevents the
target from moving")."""


def act(
    rules: RulesView, state: EncounterState, body: ActBody, dice: Dice
) -> tuple[EncounterState, JSON]:
    """Take a named combat action; its kind and cost come from the rule data."""
    if body.action == "delay":
        return delay(state, body.combatant, rules)
    if body.action == "interrupt":
        return interrupt(state, body.combatant, rules)
    if body.action == rules.default_action:
        if current(state) != body.combatant:
            raise EngineError(f"it is not {body.combatant}'s turn")
        return next_turn(state, rules)
    state = writable(state)
    c = combatant(state, body.combatant)
    if body.action not in rules.actions:
        known = ", ".join(sorted(rules.actions))
        raise EngineError(f"unknown combat action {body.action!r} (known: {known})")
    kind, cost = rules.actions[body.action]
    if not able(c):
        raise EngineError(f"{c.name} is out of the fight")
    if body.action in GRIP_FORBIDS and "gripped" in c.conditions:
        raise EngineError(f"{c.name} is gripped and cannot {body.action.replace('_', ' ')}")
    if body.action in SNARE_FORBIDS and snared_leg(rules, c) is not None:
        raise EngineError(
            f"{c.name}'s leg is entangled and he cannot {body.action.replace('_', ' ')}"
        )
    follow_up_on = None
    if body.action in rules.follow_ups:
        # Chosen before the action is paid for: paying ends the Turn the move belongs to.
        follow_up_on = follow_ups.ready_victim(rules, state, c, body.action, body.target)
    opponent = None
    if body.action == footing.ACTION:
        # Refused before it is paid for: a fighter on his feet has nothing to regain.
        footing.check_can_stand(rules, c)
        opponent = footing.opponent_of(rules, state, c, body.target)
    if kind == "proactive":
        if body.action == "attack":
            raise EngineError("attacks are made with an exchange request")
        if body.action in OWN_REQUESTS:
            raise EngineError(f"{body.action} is made with the {OWN_REQUESTS[body.action]} request")
        if body.action == "struggle" and not held_by(rules, c):
            raise EngineError(f"{c.name} is not held by anything")
        # Closed below, once the action is written: a new round re-copies ``c``.
        spend_proactive(state, c, body.action, rules)
        if cost == 0 and tracks_turns(state):
            c.set_ap(c.ap_left() + 1)
    elif kind == "reactive":
        if tracks_turns(state) and c.ap_left() < cost:
            raise EngineError(f"{c.name} has no action points left for {body.action}")
        if tracks_turns(state):
            c.set_ap(c.ap_left() - cost)
    result: JSON = {"kind": "act", "combatant": c.id, "action": body.action, "action_kind": kind}
    brace.lose(rules, c, body.action)  # moving away from where he planted himself
    if body.action == rules.model.combat.brace.action:
        result["brace"] = brace.take(rules, c)
    elif follow_up_on is not None:
        result["follow_up"] = follow_ups.resolve(rules, state, c, follow_up_on, body.action, dice)
    elif body.action == "ward_location":
        result["warding"] = ward(rules, c, body)
    elif body.action == footing.ACTION:
        result["footing"] = footing.regain_footing(rules, state, c, opponent, dice, body.skill)
    elif body.action == "struggle":
        result["struggle"] = struggle(rules, state, c, dice)
    elif (
        body.action == "ready_weapon"
        and body.weapon is not None
        and body.weapon in c.conditions.get("impaled_in", {}).get("weapons", [])
    ):
        result["pull_free"] = pull_free(rules, state, c, body.weapon, dice)
    elif body.action in HAND_ACTIONS and body.weapon is not None and c.hands is not None:
        result["hands"] = HAND_ACTIONS[body.action](rules, c, body.weapon)
    if kind == "proactive":
        # Paid above, written now: the cycle or round it finished closes. (A reactive action
        # has never closed one: its points come off without a settle, as before.)
        settle(state, rules)
    return state, {**result, **snapshot(state)}
