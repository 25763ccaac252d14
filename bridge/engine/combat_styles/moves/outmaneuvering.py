"""Outmanoeuvring several foes (text "Outmaneuvering", data ``combat.outmaneuver``).

A group opposed roll of ``skill`` (Evade): the manoeuvring combatant (on his own Turn, a
proactive action) and every foe who tries to corner him each pay ``ap_cost_each`` action
points and roll once. Foes who fail to beat his roll cannot attack him for the rest of the
Combat Round; a foe without the points to pay cannot try, and is blocked as well. If he beats
every foe he may engage one of them alone (the others stay blocked) or withdraw from the fight.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.move_requests import OutmaneuverBody
from arbiter.bridge.engine.combat_styles.core.checks import contest_penalty, opposed_winner
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.hands import snared_leg
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    has_condition,
    needs_encounter,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.engagement import (
    OUTMANEUVERED,
    current_round,
    live,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.grades.contests import roll_skill, skill_value
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

ACTION = "outmaneuver"


def outmaneuver(
    rules: RulesView, body: OutmaneuverBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Resolve the group roll and record who may no longer attack the manoeuvring combatant."""
    state = needs_encounter(state, "outmanoeuvring")
    rule = rules.model.combat.outmaneuver
    foes = list(dict.fromkeys(body.opponents))
    if body.combatant in foes:
        raise EngineError("a combatant cannot outmanoeuvre himself")
    if body.then == "engage" and body.engage not in foes:
        raise EngineError("name the foe to engage (engage), one of the opponents")
    if body.then != "engage" and body.engage is not None:
        raise EngineError('engage names a foe only with then = "engage"')
    state = writable(state)
    mover = combatant(state, body.combatant)
    for c in (mover, *(combatant(state, f) for f in foes)):
        if any(has_condition(c, o) for o in rounds.OUT):
            raise EngineError(f"{c.name} is out of the fight")
    if snared_leg(rules, mover) is not None:
        # Entangle: "a snared leg prevents the target from moving" (an arm or the body do not).
        raise EngineError(f"{mover.name}'s leg is entangled and he cannot outmanoeuvre")
    if has_condition(mover, "gripped"):
        # Grip: "preventing them from being able to change weapon range or disengage".
        raise EngineError(f"{mover.name} is gripped and cannot outmanoeuvre")
    _pay_proactive(rules, state, mover, rule.ap_cost_each)

    notes: list[str] = []
    brace.lose(rules, mover, "outmaneuvering", notes)
    trying = []
    for fid in foes:
        foe = combatant(state, fid)
        if _can_pay(state, foe, rule.ap_cost_each):
            _pay(rules, state, foe, rule.ap_cost_each)
            trying.append(foe)
        else:
            notes.append(f"{foe.name} has no action points to corner him and is blocked")
    skills = [skill_value(mover, rule.skill)] + [skill_value(f, rule.skill) for f in trying]
    penalty = contest_penalty(skills)
    if penalty:
        notes.append(f"skills over 100: −{penalty} to every participant")
    own, own_json = roll_skill(rules, dice, mover, rule.skill, penalty=penalty, notes=notes)
    rolls = {mover.id: own_json}
    beaten = [fid for fid in foes if fid not in {f.id for f in trying}]
    for foe in trying:
        theirs, rolls[foe.id] = roll_skill(
            rules, dice, foe, rule.skill, penalty=penalty, notes=notes
        )
        if opposed_winner(theirs, own) != 1:
            beaten.append(foe.id)
    beaten = [fid for fid in foes if fid in beaten]
    free = [fid for fid in foes if fid not in beaten]
    then = None
    if body.then is not None:
        if free:
            notes.append(f"{mover.name} did not beat every foe: he cannot {body.then}")
        else:
            then = body.then
    if then == "engage":
        assert body.engage is not None
        beaten.remove(body.engage)
        notes.append(f"{mover.name} engages {combatant(state, body.engage).name} alone")
    elif then == "withdraw":
        mover.conditions.pop("engaged", None)
        notes.append(f"{mover.name} withdraws from the fight")
    for fid in beaten:
        _block(state, combatant(state, fid), mover.id)
    # Resolved in the round it was paid in (foes without points left are blocked unrolled;
    # a block lasts the rest of that round): the cycle or round it finished closes now.
    rounds.settle(state, rules)
    result: JSON = {
        "kind": ACTION,
        "combatant": mover.id,
        "skill": rule.skill,
        "rolls": rolls,
        "blocked": beaten,
        "may_attack": free + ([body.engage] if then == "engage" else []),
        "then": then,
        "notes": notes,
        **rounds.snapshot(state),
    }
    return Resolution(result, state.data)


def _block(state: EncounterState, foe: CombatantRecord, mover_id: str) -> None:
    old: Any = foe.conditions.get(OUTMANEUVERED)
    by = list(old["by"]) if live(state, old) else []
    if mover_id not in by:
        by.append(mover_id)
    foe.conditions.pop(OUTMANEUVERED, None)
    add_condition(foe, OUTMANEUVERED, None, round=current_round(state), by=by)


def _pay_proactive(rules: RulesView, state: EncounterState, c: CombatantRecord, cost: int) -> None:
    """The manoeuvre is ``c``'s proactive action; it costs ``cost`` points in all."""
    if tracks_turns(state) and c.ap_left() < cost:
        raise EngineError(f"{c.name} needs {cost} action point(s) to outmanoeuvre")
    # One point, and his turn ends; the round closes only once the manoeuvre is resolved.
    rounds.spend_proactive(state, c, ACTION, rules)
    if tracks_turns(state) and cost == 0:
        c.set_ap(c.ap_left() + 1)
    for _ in range(cost - 1):
        rounds.spend_reaction(state, c, rules)


def _can_pay(state: EncounterState, c: CombatantRecord, cost: int) -> bool:
    return not tracks_turns(state) or c.ap_left() >= cost


def _pay(rules: RulesView, state: EncounterState, c: CombatantRecord, cost: int) -> None:
    for _ in range(cost):
        rounds.spend_reaction(state, c, rules)
