"""Turns, cycles and action points: whose turn it is, what a proactive action or a reaction
costs, delays and interrupts, dithering, and the close of each cycle and round.

Conditions that last N turns count down at the end of their bearer's turn. Every illegal move
raises :class:`~arbiter.bridge.engine.contract.EngineError` naming the reason; nothing is silently allowed.
An encounter in phase ``free`` (an exchange sent without one) tracks no turns or points.

Paid, not closed. Paying for an action (``spend_proactive``, ``spend_for_attack``,
``spend_reaction``) closes no cycle or round. A new round (or a delay lapsing as a cycle ends)
puts fresh copies of records in the state, so a request that paid and then wrote to the records
it holds would write to copies the state no longer has, and a defender would react with the
next round's points. Every request that pays calls :func:`settle` once its action is resolved:
an exchange or a leap before its effects and blow (which read the records afresh), a sweep
after its last pair.
"""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter import follow_ups
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    combatant,
    has_condition,
    recopied,
    records_of,
    writable,
)
from arbiter.bridge.engine.combat_styles.encounter.phases import (
    FREE,
    INTERRUPT,
    NEW_ROUND,
    NEXT_CYCLE,
    NEXT_ROUND,
    NEXT_TURN,
    ON_TURN,
    PROACTIVE,
    REACTION,
    TURNS,
    phase_of,
    require,
    tracks_turns,
)
from arbiter.bridge.engine.combat_styles.encounter.spirit_engagement import (
    check_turn_not_lost,
    drain_at_cycle_start,
    essence_lost_now,
)
from arbiter.bridge.engine.combat_styles.grades.situations import fatigue_of
from arbiter.bridge.engine.contract import JSON, EngineError

OUT = ("dead", "unconscious", "incapacitated", "surrendered")


def new_round(state: EncounterState, rules: RulesView | None = None, first: bool = False) -> None:
    state.phase = require(state, NEW_ROUND)
    state.round = 1 if first else state.round_number() + 1
    state.cycle = 1
    state.acted = []
    state.proactive = []
    state.delayed = []
    for cid in list(records_of(state)):
        # A new round touches everyone: each record gets its own copy first.
        c = recopied(state, cid)
        if not first:
            c.conditions.pop("surprised", None)
            bleeding = c.conditions.get("bleeding")
            if bleeding:
                # Blood loss: a fatigue level at the start of each Combat Round.
                c.set_fatigue_levels((c.fatigue_levels or 0) + bleeding.get("fatigue_per_round", 1))
        level = fatigue_of(rules, c) if rules is not None else None
        change = level.action_points if level else 0
        c.set_ap(0 if level and level.no_activity else max(0, c.action_points_max + change))
    if not first:
        drain_at_cycle_start(state)


def able(c: CombatantRecord) -> bool:
    return not any(has_condition(c, o) for o in OUT)


def current(state: EncounterState) -> str | None:
    """Whose turn it is (None outside the turn phase or when the cycle is over)."""
    if not tracks_turns(state):
        return None
    for cid in state.order:
        c = records_of(state)[cid]
        if cid not in state.acted and c.ap_left() > 0 and able(c):
            return cid
    return None


def end_turn(
    state: EncounterState, cid: str, rules: RulesView | None = None, close: bool = True
) -> None:
    """End ``cid``'s turn; then close a finished cycle or round, unless ``close`` is False (a
    paid action: module docstring, "Paid, not closed")."""
    state.acted.append(cid)
    follow_ups.lapse(state, cid)
    c = combatant(state, cid)
    if "surprised" in c.conditions:
        # His initiative has come: from now on he may defend (but not attack this round).
        c.conditions["surprised"]["turn_come"] = True
    for name in list(c.conditions):
        cond = c.conditions[name]
        if name == "stunned":
            locs = {k: v - 1 for k, v in cond["locations"].items() if v > 1}
            if locs or any(k not in ("turns", "locations") and v for k, v in cond.items()):
                # Stuns kept in minutes (Knockout Blow) last until removed.
                cond["locations"] = locs
            else:
                del c.conditions[name]
        elif cond.get("turns") is not None:
            cond["turns"] -= 1
            if cond["turns"] <= 0:
                del c.conditions[name]
    if close:
        settle(state, rules)


def settle(state: EncounterState, rules: RulesView | None = None) -> None:
    """Close finished cycles and rounds.

    A new round (or a dithered delay) puts fresh copies of the records in ``state``: a caller
    still holding records must settle only once it is done writing to them. Nothing to close
    outside the turn phase."""
    if not tracks_turns(state) or current(state) is not None:
        return
    for cid in state.delayed:
        # A delay not used before the cycle ends is a dither: the point is lost.
        c = recopied(state, cid)
        c.set_ap(max(0, c.ap_left() - 1))
    state.delayed = []
    anyone = [cid for cid, c in records_of(state).items() if c.ap_left() > 0 and able(c)]
    if anyone:
        state.cycle = state.cycle_number() + 1
        state.acted = []
        state.proactive = []
        drain_at_cycle_start(state)
    else:
        new_round(state, rules)


def has_ap(state: EncounterState, c: CombatantRecord) -> bool:
    """Whether ``c`` can pay for a reaction (always, outside the turn phase)."""
    return not tracks_turns(state) or (c.ap or 0) > 0


def spend_reaction(
    state: EncounterState, c: CombatantRecord, rules: RulesView | None = None
) -> None:
    """Pay one action point for a reaction (parry, evade, interrupt). It closes no cycle or
    round: the request calls :func:`settle` once the action is resolved (module docstring)."""
    phase: str | None = state.data.get("phase")
    if phase is None or phase == FREE:
        # Free play (a state recording no phase plays as free): legal and unpaid, as
        # ``phases.TRANSITIONS`` says (free → free), answered without :func:`require`'s call:
        # every free exchange's defender comes here (in the interpreted engine a call costs).
        return
    if require(state, REACTION) != TURNS:
        return
    if c.ap_left() <= 0:
        raise EngineError(f"{c.name} has no action points left this round")
    c.set_ap(c.ap_left() - 1)


def check_can_attack(c: CombatantRecord) -> None:
    """Conditions that forbid an attack (press advantage, serious wound, surprise …)."""
    conditions = c.conditions
    if not conditions:  # the usual case, on every exchange
        return
    if "cannot_attack" in conditions:
        turns = conditions["cannot_attack"].get("turns")
        raise EngineError(f"{c.name} cannot attack this turn ({turns} turn(s) left)")
    if "surprised" in conditions:
        raise EngineError(f"{c.name} was surprised and may not act offensively this round")
    if "surrendered" in conditions:
        raise EngineError(f"{c.name} has surrendered")


def spend_proactive(
    state: EncounterState, c: CombatantRecord, what: str = "act", rules: RulesView | None = None
) -> None:
    """Pay for a proactive action on ``c``'s own turn (or an interrupt after a delay), ending
    his turn. It closes no cycle or round: the request calls :func:`settle` once the action is
    resolved (module docstring: "Paid, not closed")."""
    phase: str | None = state.data.get("phase")
    if phase is None or phase == FREE:
        return  # free play: legal and unpaid, without require's call (see spend_reaction)
    if require(state, PROACTIVE) != TURNS:  # refused in setup
        return
    cid = c.id
    if cid in state.delayed:
        state.delayed.remove(cid)
        if c.ap_left() <= 0:
            raise EngineError(f"{c.name} has no action points left this round")
        c.set_ap(c.ap_left() - 1)
        return
    now = current(state)
    if now != cid:
        who = records_of(state)[now].name if now else "nobody"
        raise EngineError(f"it is not {c.name}'s turn to {what} (it is {who}'s)")
    if cid in state.proactive:
        raise EngineError(f"{c.name} has already taken a proactive action this cycle")
    check_turn_not_lost(c, what)
    c.set_ap(c.ap_left() - 1)
    state.proactive.append(cid)
    end_turn(state, cid, rules, close=False)


def spend_for_attack(rules: RulesView, state: EncounterState, c: CombatantRecord) -> None:
    """Pay for ``c``'s attack (as :func:`spend_proactive`: the request settles after)."""
    check_can_attack(c)
    # The state's dict read directly, not through its ``round`` property (a call when
    # interpreted): every exchange comes here.
    round_now: int = state.data.get("round") or 0
    spend_proactive(state, c, "attack", rules)
    # The Round he last attacked in (Defensive Minded parries better in a Round without one).
    c.set_attacked_round(round_now)


def delay(
    state: EncounterState, cid: str, rules: RulesView | None = None
) -> tuple[EncounterState, JSON]:
    """The current combatant holds his action for a later interrupt or reaction."""
    state = writable(state)
    c = combatant(state, cid)
    require_turn(state, c, "delay")
    check_turn_not_lost(c, "delay")
    state.delayed.append(cid)
    end_turn(state, cid, rules)
    return state, {"kind": "delay", "combatant": cid, **snapshot(state)}


def interrupt(
    state: EncounterState, cid: str, rules: RulesView | None = None
) -> tuple[EncounterState, JSON]:
    """A delaying combatant acts now, paying the point his delay held back."""
    state = writable(state)
    c = combatant(state, cid)
    require(state, INTERRUPT)
    if cid not in state.delayed:
        raise EngineError(f"{c.name} is not delaying and cannot interrupt")
    return state, {
        "kind": "interrupt",
        "combatant": cid,
        "note": "send the interrupting action next",
        **snapshot(state),
    }


def next_turn(state: EncounterState, rules: RulesView | None = None) -> tuple[EncounterState, JSON]:
    """The current combatant dithers: his turn passes and costs an action point."""
    require(state, NEXT_TURN)
    cid = current(state)
    if cid is None:
        raise EngineError("nobody has a turn left in this cycle")
    state = writable(state)
    c = combatant(state, cid)
    c.set_ap(c.ap_left() - 1)
    end_turn(state, cid, rules)
    return state, {"kind": "next_turn", "dithered": cid, **snapshot(state)}


def next_cycle(
    state: EncounterState, rules: RulesView | None = None
) -> tuple[EncounterState, JSON]:
    """Everyone still to act this cycle dithers; the next cycle (or round) begins."""
    require(state, NEXT_CYCLE)
    waiting = [cid for cid in state.order if cid not in state.acted]
    state = writable(state)
    for cid in waiting:
        c = combatant(state, cid)
        if c.ap_left() > 0 and able(c):
            c.set_ap(c.ap_left() - 1)
        state.acted.append(cid)
    settle(state, rules)
    return state, {"kind": "next_cycle", "dithered": waiting, **snapshot(state)}


def next_round(
    state: EncounterState, rules: RulesView | None = None
) -> tuple[EncounterState, JSON]:
    """Remaining action points are lost; a new round begins."""
    require(state, NEXT_ROUND)
    state = writable(state)
    for cid in list(records_of(state)):
        combatant(state, cid).set_ap(0)
    new_round(state, rules)
    return state, {"kind": "next_round", **snapshot(state)}


def require_turn(state: EncounterState, c: CombatantRecord, what: str) -> None:
    require(state, ON_TURN, c.name, what)
    now = current(state)
    if now != c.id:
        who = records_of(state)[now].name if now else "nobody"
        raise EngineError(f"it is not {c.name}'s turn to {what} (it is {who}'s)")


def snapshot(state: EncounterState) -> JSON:
    """The round position and everyone's action points, for the chat card (and the Magic
    Points Bleed Essence took as this Cycle began, if any)."""
    out: JSON = {
        "phase": phase_of(state),
        "round": state.round,
        "cycle": state.cycle,
        "current": current(state),
        "action_points": {cid: c.ap for cid, c in records_of(state).items()},
    }
    if state.has("essence_lost"):
        lost = essence_lost_now(state)
        if lost is not None:
            out["essence_lost"] = lost
    return out
