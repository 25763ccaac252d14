"""The start of an encounter: the combatants' records and the initiative roll that orders them
and opens round 1."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import StartEncounterBody
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    has_condition,
    record,
    records_of,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import INITIATIVE, SETUP, require
from arbiter.bridge.engine.combat_styles.grades.situations import fatigue_of
from arbiter.bridge.engine.combat_styles.rounds.turns import current, new_round
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice, DiceTerm, parse


def start(rules: RulesView, body: StartEncounterBody) -> EncounterState:
    """A new encounter in phase ``setup``."""
    ids = [b.id for b in body.combatants]
    if len(set(ids)) != len(ids):
        raise EngineError("combatant ids must be unique")
    try:
        records = {b.id: CombatantRecord.of(record(rules, b)) for b in body.combatants}
    except LookupError as err:
        raise EngineError(str(err)) from None
    for sid in body.surprised:
        if sid not in records:
            raise EngineError(f"surprised combatant {sid!r} is not in the encounter")
        records[sid].conditions["surprised"] = {"turns": None}
    return EncounterState(
        {
            "combatants": records,
            "phase": SETUP,
            "round": 0,
            "cycle": 0,
            "order": [],
            "initiative": {},
            "acted": [],
            "proactive": [],
            "delayed": [],
            "pending": {},
            "seq": 0,
        }
    )


def roll_initiative(
    rules: RulesView, state: EncounterState, dice: Dice
) -> tuple[EncounterState, JSON]:
    """Roll initiative for everyone and open round 1. Returns (state, result)."""
    require(state, INITIATIVE)
    state = writable(state)
    initiative = rules.model.initiative
    term = parse(initiative.die).terms[0]
    if not isinstance(term, DiceTerm):
        raise EngineError(f"the initiative die {initiative.die!r} rolls no die")
    faces = term.faces
    rolls: dict[str, JSON] = {}
    for cid, c in records_of(state).items():
        die = dice.die(faces, f"{initiative.die} initiative {cid}")
        level = fatigue_of(rules, c)
        tired = level.initiative if level else 0
        total = die + c.initiative_bonus - c.armor_penalty - c.fatigue_initiative + tired
        if has_condition(c, "surprised"):
            total += rules.surprise_initiative
        rolls[cid] = {"die": die, "total": total}
    concurrent: list[list[str]] = []
    if initiative.tie_break == "concurrent":
        # Tied participants act at the same time: no tie-break roll; the order lists them
        # side by side (by id) and the result names each tied group.
        order = sorted(rolls, key=lambda cid: (-rolls[cid]["total"], cid))
        for cid in order:
            if concurrent and rolls[concurrent[-1][0]]["total"] == rolls[cid]["total"]:
                concurrent[-1].append(cid)
            else:
                concurrent.append([cid])
        concurrent = [group for group in concurrent if len(group) > 1]
    else:
        order = _dex_then_roll(state, rolls, dice, initiative.die, faces)
    state.order = order
    state.initiative = {cid: rolls[cid]["total"] for cid in order}
    new_round(state, rules, first=True)
    result = {
        "kind": "initiative",
        "order": order,
        "rolls": rolls,
        "round": state.round_number(),
        "current": current(state),
    }
    if concurrent:
        result["concurrent"] = concurrent
    return state, result


def _dex_then_roll(
    state: EncounterState, rolls: dict[str, JSON], dice: Dice, die: str, faces: int
) -> list[str]:
    """Initiative order, ties going to the higher DEX and then to a roll of the initiative
    die (recorded in ``rolls`` as ``tie_break``)."""
    keyed = {
        cid: (r["total"], records_of(state)[cid].characteristics["dex"]) for cid, r in rolls.items()
    }
    tied: dict[tuple[int, int], list[str]] = {}
    for cid, key in keyed.items():
        tied.setdefault(key, []).append(cid)
    tiebreak: dict[str, int] = {}
    for group in tied.values():
        if len(group) > 1:
            for cid in group:
                tiebreak[cid] = dice.die(faces, f"{die} tie-break {cid}")
                rolls[cid]["tie_break"] = tiebreak[cid]
    return sorted(
        keyed, key=lambda cid: (-keyed[cid][0], -keyed[cid][1], -tiebreak.get(cid, 0), cid)
    )
