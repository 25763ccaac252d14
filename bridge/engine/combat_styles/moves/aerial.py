"""Aerial combat aloft (text "Aerial Combat Aloft", data ``combat.aerial``).

At the start of each round fliers jockey for position: an opposed roll of one of ``skills``
(Fly, or Ride for a rider on a flying mount). Against several foes it is a group opposed
roll: the lone flier's roll is compared with each foe's. The winner of each pair may attack
the loser this round; the loser may not attack him (nor may either when nobody wins). The
outcome is kept on every participant as the condition ``aloft`` for the round.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles import rounds
from arbiter.bridge.engine.combat_styles.bodies.move_requests import AerialBody
from arbiter.bridge.engine.combat_styles.core.checks import contest_penalty, opposed_winner
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    add_condition,
    combatant,
    has_condition,
    needs_encounter,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.engagement import ALOFT, current_round, live
from arbiter.bridge.engine.combat_styles.encounter.phases import tracks_turns
from arbiter.bridge.engine.combat_styles.grades.contests import roll_skill, skill_value
from arbiter.bridge.engine.contract import JSON, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice

MOVE = "aerial_pass"


def aerial_pass(
    rules: RulesView, body: AerialBody, state: EncounterState | None, dice: Dice
) -> Resolution:
    """Roll this round's pass and record who may attack whom."""
    state = needs_encounter(state, "an aerial pass")
    allowed = tuple(rules.model.combat.aerial.skills)
    foes = list(dict.fromkeys(body.opponents))
    if body.combatant in foes:
        raise EngineError("a flier cannot jockey against himself")
    everyone = [body.combatant, *foes]
    for cid in body.skills:
        if cid not in everyone:
            raise EngineError(f"skills names {cid!r}, who is not in this pass")
    state = writable(state)
    turns = tracks_turns(state)
    if turns and (state.cycle_number() != 1 or state.acted):
        raise EngineError("the aerial pass is rolled at the start of a round, before anyone acts")
    skills: dict[str, str] = {}
    for cid in everyone:
        c = combatant(state, cid)
        if any(has_condition(c, o) for o in rounds.OUT):
            raise EngineError(f"{c.name} is out of the fight")
        if turns and live(state, c.conditions.get(ALOFT)):
            raise EngineError(f"{c.name} has already jockeyed for this round's pass")
        skill = body.skills.get(cid, allowed[0])
        if skill not in allowed:
            raise EngineError(f"fliers jockey with {' or '.join(allowed)}, not {skill!r}")
        skills[cid] = skill
    notes: list[str] = []
    penalty = contest_penalty([skill_value(combatant(state, c), skills[c]) for c in everyone])
    if penalty:
        notes.append(f"skills over 100: −{penalty} to every participant")
    lone = combatant(state, body.combatant)
    own, own_json = roll_skill(rules, dice, lone, skills[lone.id], penalty=penalty, notes=notes)
    rolls = {lone.id: own_json}
    may_attack: dict[str, list[str]] = {cid: [] for cid in everyone}
    for fid in foes:
        foe = combatant(state, fid)
        theirs, rolls[fid] = roll_skill(rules, dice, foe, skills[fid], penalty=penalty, notes=notes)
        winner = opposed_winner(theirs, own)
        if winner == 1:
            may_attack[fid].append(lone.id)
        elif winner == -1:
            may_attack[lone.id].append(fid)
    now = current_round(state)
    for cid in everyone:
        c = combatant(state, cid)
        c.conditions.pop(ALOFT, None)
        opponents = foes if cid == lone.id else [lone.id]
        add_condition(c, ALOFT, None, round=now, opponents=opponents, may_attack=may_attack[cid])
    result: JSON = {
        "kind": MOVE,
        "combatant": lone.id,
        "rolls": rolls,
        "may_attack": may_attack,
        "notes": notes,
        **rounds.snapshot(state),
    }
    return Resolution(result, state.data)
