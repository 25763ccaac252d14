"""The round state machine: initiative, cycles, turns and action points.

How it works. ``start_encounter`` records the combatants (phase ``setup``). ``initiative`` rolls
1d10 + bonus − armour penalty − fatigue (− the surprise penalty) for everyone, orders them
(ties: higher DEX, then a die), fills everyone's action points and opens round 1, cycle 1
(phase ``turns``). The *current* combatant is the first in order who has action points and has
not yet taken his turn this cycle.

On his turn a combatant takes one proactive action (an ``exchange`` as attacker, or ``act`` with
a proactive action id), ``delay``\\s, or dithers (``next_turn``); each costs one action point
except delaying, whose point is paid by the later interrupt. Reactive actions (parry, evade,
interrupt, ``act`` with a reactive id) may be taken by anyone with action points, at any time.
When everyone has had his turn the cycle ends; a new cycle begins for those with points left;
when nobody has any, the round ends and a new one begins with full action points.

Conditions that last N turns count down at the end of their bearer's turn. Every illegal move
raises :class:`~bridge.engine.contract.EngineError` naming the reason; nothing is silently allowed.
An encounter in phase ``free`` (an exchange sent without one) tracks no turns or points.
"""

from __future__ import annotations

from bridge.engine.combat_styles.combatants import (
    combatant,
    has_condition,
    record,
    writable,
    writable_record,
)
from bridge.engine.combat_styles.guards import ward
from bridge.engine.combat_styles.hands import HAND_ACTIONS
from bridge.engine.combat_styles.holds import HOLDS, pull_free, struggle
from bridge.engine.combat_styles.requests import ActBody, StartEncounterBody
from bridge.engine.combat_styles.situations import fatigue_of
from bridge.engine.combat_styles.view import RulesView
from bridge.engine.contract import JSON, EngineError
from bridge.engine.dice import Dice, parse

OUT = ("dead", "unconscious", "incapacitated", "surrendered")


def start(rules: RulesView, body: StartEncounterBody) -> JSON:
    """A new encounter in phase ``setup``."""
    ids = [b.id for b in body.combatants]
    if len(set(ids)) != len(ids):
        raise EngineError("combatant ids must be unique")
    try:
        records = {b.id: record(rules, b) for b in body.combatants}
    except LookupError as err:
        raise EngineError(str(err)) from None
    for sid in body.surprised:
        if sid not in records:
            raise EngineError(f"surprised combatant {sid!r} is not in the encounter")
        records[sid]["conditions"]["surprised"] = {"turns": None}
    return {
        "combatants": records,
        "phase": "setup",
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


def roll_initiative(rules: RulesView, state: JSON, dice: Dice) -> tuple[JSON, JSON]:
    """Roll initiative for everyone and open round 1. Returns (state, result)."""
    if state.get("phase") not in ("setup",):
        raise EngineError("initiative is rolled once, at the start of the encounter")
    state = writable(state, *state["combatants"])
    initiative = rules.model.initiative
    faces = parse(initiative.die).terms[0].faces
    rolls: dict[str, JSON] = {}
    for cid, c in state["combatants"].items():
        die = dice.die(faces, f"{initiative.die} initiative {cid}")
        level = fatigue_of(rules, c)
        tired = level.initiative if level else 0
        total = die + c["initiative_bonus"] - c["armor_penalty"] - c["fatigue_initiative"] + tired
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
    state["order"] = order
    state["initiative"] = {cid: rolls[cid]["total"] for cid in order}
    _new_round(state, rules, first=True)
    result = {
        "kind": "initiative",
        "order": order,
        "rolls": rolls,
        "round": state["round"],
        "current": current(state),
    }
    if concurrent:
        result["concurrent"] = concurrent
    return state, result


def _dex_then_roll(
    state: JSON, rolls: dict[str, JSON], dice: Dice, die: str, faces: int
) -> list[str]:
    """Initiative order, ties going to the higher DEX and then to a roll of the initiative
    die (recorded in ``rolls`` as ``tie_break``)."""
    keyed = {
        cid: (r["total"], state["combatants"][cid]["characteristics"]["dex"])
        for cid, r in rolls.items()
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


def _new_round(state: JSON, rules: RulesView | None = None, first: bool = False) -> None:
    state["phase"] = "turns"
    state["round"] = 1 if first else state["round"] + 1
    state["cycle"] = 1
    state["acted"] = []
    state["proactive"] = []
    state["delayed"] = []
    for cid in list(state["combatants"]):
        # A new round touches everyone: give each record its own copy first.
        c = state["combatants"][cid] = writable_record(state["combatants"][cid])
        if not first:
            c["conditions"].pop("surprised", None)
            bleeding = c["conditions"].get("bleeding")
            if bleeding:
                # Blood loss: a fatigue level at the start of each Combat Round.
                c["fatigue_levels"] = c.get("fatigue_levels", 0) + bleeding.get(
                    "fatigue_per_round", 1
                )
        level = fatigue_of(rules, c) if rules is not None else None
        change = level.action_points if level else 0
        c["ap"] = 0 if level and level.no_activity else max(0, c["action_points_max"] + change)


def _able(c: JSON) -> bool:
    return not any(has_condition(c, o) for o in OUT)


def current(state: JSON) -> str | None:
    """Whose turn it is (None outside the turn phase or when the cycle is over)."""
    if state.get("phase") != "turns":
        return None
    for cid in state["order"]:
        c = state["combatants"][cid]
        if cid not in state["acted"] and c["ap"] > 0 and _able(c):
            return cid
    return None


def _end_turn(state: JSON, cid: str, rules: RulesView | None = None) -> None:
    state["acted"].append(cid)
    c = state["combatants"][cid]
    if "surprised" in c["conditions"]:
        # His initiative has come: from now on he may defend (but not attack this round).
        c["conditions"]["surprised"]["turn_come"] = True
    for name in list(c["conditions"]):
        cond = c["conditions"][name]
        if name == "stunned":
            locs = {k: v - 1 for k, v in cond["locations"].items() if v > 1}
            if locs:
                cond["locations"] = locs
            else:
                del c["conditions"][name]
        elif cond.get("turns") is not None:
            cond["turns"] -= 1
            if cond["turns"] <= 0:
                del c["conditions"][name]
    _settle(state, rules)


def _settle(state: JSON, rules: RulesView | None = None) -> None:
    """Close finished cycles and rounds."""
    if current(state) is not None:
        return
    for cid in state["delayed"]:
        # A delay not used before the cycle ends is a dither: the point is lost.
        c = state["combatants"][cid] = writable_record(state["combatants"][cid])
        c["ap"] = max(0, c["ap"] - 1)
    state["delayed"] = []
    anyone = [cid for cid, c in state["combatants"].items() if c["ap"] > 0 and _able(c)]
    if anyone:
        state["cycle"] += 1
        state["acted"] = []
        state["proactive"] = []
    else:
        _new_round(state, rules)


def has_ap(state: JSON, c: JSON) -> bool:
    """Whether ``c`` can pay for a reaction (always, outside the turn phase)."""
    return state.get("phase") != "turns" or c.get("ap", 0) > 0


def spend_reaction(state: JSON, c: JSON, rules: RulesView | None = None) -> None:
    """Pay one action point for a reaction (parry, evade, interrupt)."""
    if state.get("phase") != "turns":
        return
    if c["ap"] <= 0:
        raise EngineError(f"{c['name']} has no action points left this round")
    c["ap"] -= 1
    _settle(state, rules)


def check_can_attack(c: JSON) -> None:
    """Conditions that forbid an attack (press advantage, serious wound, surprise …)."""
    if has_condition(c, "cannot_attack"):
        turns = c["conditions"]["cannot_attack"].get("turns")
        raise EngineError(f"{c['name']} cannot attack this turn ({turns} turn(s) left)")
    if has_condition(c, "surprised"):
        raise EngineError(f"{c['name']} was surprised and may not act offensively this round")
    if has_condition(c, "surrendered"):
        raise EngineError(f"{c['name']} has surrendered")


def spend_proactive(
    state: JSON, c: JSON, what: str = "act", rules: RulesView | None = None
) -> None:
    """Pay for a proactive action on ``c``'s own turn (or an interrupt after a delay)."""
    if state.get("phase") == "setup":
        raise EngineError("roll initiative before anyone acts")
    if state.get("phase") != "turns":
        return
    cid = c["id"]
    if cid in state["delayed"]:
        state["delayed"].remove(cid)
        if c["ap"] <= 0:
            raise EngineError(f"{c['name']} has no action points left this round")
        c["ap"] -= 1
        return
    now = current(state)
    if now != cid:
        who = state["combatants"][now]["name"] if now else "nobody"
        raise EngineError(f"it is not {c['name']}'s turn to {what} (it is {who}'s)")
    if cid in state["proactive"]:
        raise EngineError(f"{c['name']} has already taken a proactive action this cycle")
    c["ap"] -= 1
    state["proactive"].append(cid)
    _end_turn(state, cid, rules)


def spend_for_attack(rules: RulesView, state: JSON, c: JSON) -> None:
    check_can_attack(c)
    spend_proactive(state, c, "attack", rules)


def act(rules: RulesView, state: JSON, body: ActBody, dice: Dice) -> tuple[JSON, JSON]:
    """Take a named combat action; its kind and cost come from the rule data."""
    if body.action == "delay":
        return delay(state, body.combatant, rules)
    if body.action == "interrupt":
        return interrupt(state, body.combatant, rules)
    if body.action == rules.default_action:
        if current(state) != body.combatant:
            raise EngineError(f"it is not {body.combatant}'s turn")
        return next_turn(state, rules)
    state = writable(state, body.combatant)
    c = combatant(state, body.combatant)
    if body.action not in rules.actions:
        known = ", ".join(sorted(rules.actions))
        raise EngineError(f"unknown combat action {body.action!r} (known: {known})")
    kind, cost = rules.actions[body.action]
    if not _able(c):
        raise EngineError(f"{c['name']} is out of the fight")
    if kind == "proactive":
        if body.action == "attack":
            raise EngineError("attacks are made with an exchange request")
        if body.action == "struggle" and not any(h in c["conditions"] for h, _ in HOLDS):
            raise EngineError(f"{c['name']} is not held by anything")
        spend_proactive(state, c, body.action, rules)
        if cost == 0 and state.get("phase") == "turns":
            c["ap"] += 1
    elif kind == "reactive":
        if state.get("phase") == "turns" and c["ap"] < cost:
            raise EngineError(f"{c['name']} has no action points left for {body.action}")
        if state.get("phase") == "turns":
            c["ap"] -= cost
    result: JSON = {"kind": "act", "combatant": c["id"], "action": body.action, "action_kind": kind}
    if body.action == "ward_location":
        result["warding"] = ward(rules, c, body)
    elif body.action == "struggle":
        result["struggle"] = struggle(rules, state, c, dice)
    elif body.action == "ready_weapon" and body.weapon in c["conditions"].get("impaled_in", {}).get(
        "weapons", []
    ):
        victim = c["conditions"]["impaled_in"]["victims"][body.weapon]
        state = writable(state, victim)
        c = state["combatants"][c["id"]]
        result["pull_free"] = pull_free(rules, state, c, body.weapon, dice)
    elif body.action in HAND_ACTIONS and body.weapon is not None and c.get("hands") is not None:
        result["hands"] = HAND_ACTIONS[body.action](rules, c, body.weapon)
    return state, {**result, **snapshot(state)}


def delay(state: JSON, cid: str, rules: RulesView | None = None) -> tuple[JSON, JSON]:
    """The current combatant holds his action for a later interrupt or reaction."""
    state = writable(state, cid)
    c = combatant(state, cid)
    _require_turn(state, c, "delay")
    state["delayed"].append(cid)
    _end_turn(state, cid, rules)
    return state, {"kind": "delay", "combatant": cid, **snapshot(state)}


def interrupt(state: JSON, cid: str, rules: RulesView | None = None) -> tuple[JSON, JSON]:
    """A delaying combatant acts now, paying the point his delay held back."""
    state = writable(state, cid)
    c = combatant(state, cid)
    if state.get("phase") != "turns":
        raise EngineError("interrupts happen during turns")
    if cid not in state["delayed"]:
        raise EngineError(f"{c['name']} is not delaying and cannot interrupt")
    return state, {
        "kind": "interrupt",
        "combatant": cid,
        "note": "send the interrupting action next",
        **snapshot(state),
    }


def next_turn(state: JSON, rules: RulesView | None = None) -> tuple[JSON, JSON]:
    """The current combatant dithers: his turn passes and costs an action point."""
    if state.get("phase") != "turns":
        raise EngineError("there are no turns before initiative is rolled")
    cid = current(state)
    if cid is None:
        raise EngineError("nobody has a turn left in this cycle")
    state = writable(state, cid)
    c = combatant(state, cid)
    c["ap"] -= 1
    _end_turn(state, cid, rules)
    return state, {"kind": "next_turn", "dithered": cid, **snapshot(state)}


def next_cycle(state: JSON, rules: RulesView | None = None) -> tuple[JSON, JSON]:
    """Everyone still to act this cycle dithers; the next cycle (or round) begins."""
    if state.get("phase") != "turns":
        raise EngineError("there are no cycles before initiative is rolled")
    waiting = [cid for cid in state["order"] if cid not in state["acted"]]
    state = writable(state, *waiting)
    for cid in waiting:
        c = state["combatants"][cid]
        if c["ap"] > 0 and _able(c):
            c["ap"] -= 1
        state["acted"].append(cid)
    _settle(state, rules)
    return state, {"kind": "next_cycle", "dithered": waiting, **snapshot(state)}


def next_round(state: JSON, rules: RulesView | None = None) -> tuple[JSON, JSON]:
    """Remaining action points are lost; a new round begins."""
    if state.get("phase") != "turns":
        raise EngineError("there are no rounds before initiative is rolled")
    state = writable(state, *state["combatants"])
    for c in state["combatants"].values():
        c["ap"] = 0
    _new_round(state, rules)
    return state, {"kind": "next_round", **snapshot(state)}


def _require_turn(state: JSON, c: JSON, what: str) -> None:
    if state.get("phase") != "turns":
        raise EngineError(f"{c['name']} cannot {what} before initiative is rolled")
    now = current(state)
    if now != c["id"]:
        who = state["combatants"][now]["name"] if now else "nobody"
        raise EngineError(f"it is not {c['name']}'s turn to {what} (it is {who}'s)")


def snapshot(state: JSON) -> JSON:
    """The round position and everyone's action points, for the chat card."""
    return {
        "phase": state.get("phase"),
        "round": state.get("round"),
        "cycle": state.get("cycle"),
        "current": current(state),
        "action_points": {cid: c.get("ap") for cid, c in state["combatants"].items()},
    }
