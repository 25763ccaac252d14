"""Revealing and resolving a register; hit draws; surprise attacks.

Totals (RULES-NOTES): a maneuver's total is its card (plus a hit draw) + the combat modifiers +
the maneuver's difficulty (+ the no-step and called-shot modifiers). An offense opposed by a
defense succeeds when its total less the defense total (only when that is positive) is at
least 1; an unopposed offense succeeds. Everything in a register happens at once: successes
are decided on the state at the start of the register, then applied.
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.karmic import effects
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.declaring import close_if_all_passed
from arbiter.bridge.engine.karmic.table import Table
from arbiter.bridge.engine.karmic.views import public_declaration
from arbiter.compiler.model.karmic import Maneuver


def _register(table: Table, number: int | None, *, revealed: bool) -> JSON:
    registers = table.round["registers"]
    if number is None:
        pending = [r for r in registers if r["revealed"] == revealed and not r["resolved"]]
        if not pending:
            state = "revealed" if revealed else "declared"
            raise EngineError(f"no {state} register is waiting")
        return pending[0]
    if not 1 <= number <= len(registers):
        raise EngineError(f"register {number} has no declarations")
    return registers[number - 1]


def reveal(table: Table, body: rq.Reveal) -> JSON:
    """Turn every card of the register face up at once, when everyone has declared."""
    table.require_running()
    reg = _register(table, body.register_number, revealed=False)
    number = reg["number"]
    if reg["revealed"]:
        raise EngineError(f"register {number} is already revealed")
    earlier = [r["number"] for r in table.round["registers"][: number - 1] if not r["resolved"]]
    if earlier:
        raise EngineError(f"resolve register {earlier[0]} first")
    waiting = [cid for cid in table.combatants if not table.done_with(cid, number)]
    if waiting:
        raise EngineError(f"{', '.join(waiting)} must still declare (or pass) in register {number}")
    reg["revealed"] = True
    shown = {
        cid: [public_declaration(table, d, True) for d in decls]
        for cid, decls in reg["declarations"].items()
    }
    if not any(reg["declarations"].values()):
        reg["resolved"] = True
        _close_round_after(table, reg)
    out: JSON = {
        "kind": "reveal",
        "register": number,
        "declarations": shown,
        "round_over": table.round["over"],
    }
    draws = hit_draws(number, shown)
    if draws:
        out["pending"] = draws
    return out


def hit_draws(register: int, shown: JSON) -> list[JSON]:
    """The pending choices a reveal leaves (docs/requests.md, "Pending choices"): one
    ``hit_draw`` per revealed hit card, for its own player, named by its place among his plays
    (so no card id, known only to its holder, is needed); each may be drawn in any order."""
    draws: list[JSON] = []
    for cid, plays in shown.items():
        for play, decl in enumerate(plays):
            card = decl.get("card") or {}
            if not card.get("hit") or decl.get("hit_card"):
                continue
            value = card["value"]
            shown_value = f"+{value}" if value > 0 else str(value)
            draws.append(
                {
                    "by": cid,
                    "key": f"hit-{cid}-{play}",
                    "type": "hit_draw",
                    "body": {"combatant": cid, "register": register, "play": play},
                    "complete": True,
                    "options": [{"id": "hit", "label": f"{cid}: draw for the hit ({shown_value})"}],
                }
            )
    return draws


def hit_draw(table: Table, body: rq.HitDraw) -> JSON:
    """A revealed "hit" card lets its player draw one more card and add its value. Every hit
    card of a register may be drawn on once, each by its own request, in any order."""
    table.require_running()
    reg = _register(table, body.register_number, revealed=True)
    if not reg["revealed"] or reg["resolved"]:
        raise EngineError(f"register {reg['number']} is not revealed and waiting")
    plays = reg["declarations"].get(body.combatant, [])
    if body.play is not None:
        if body.play >= len(plays):
            raise EngineError(
                f"{body.combatant} made {len(plays)} plays in register {reg['number']}: "
                f"there is no play {body.play} (plays count from 0)"
            )
        index = body.play
        named = f"the card of {body.combatant}'s play {index}"
    else:
        found = [i for i, d in enumerate(plays) if d["card"] == body.card]
        if not found:
            raise EngineError(f"{body.combatant} played no card {body.card!r} in this register")
        index = found[0]
        named = f"card {body.card!r}"
    decl = plays[index]
    if not table.book.cards[decl["card"]].hit:
        raise EngineError(f"{named} is not a hit card")
    if decl["hit_card"] is not None:
        raise EngineError(f"{named} has already been hit")
    hit_card = table.draw(f"hit {body.combatant}")
    decl["hit_card"] = hit_card
    return {
        "kind": "hit_draw",
        "combatant": body.combatant,
        "register": reg["number"],
        "play": index,
        "card": table.shown(decl["card"]),
        "drawn": table.shown(hit_card),
    }


def total(table: Table, cid: str, decl: JSON) -> tuple[int, JSON]:
    """The maneuver total of ``decl`` and its parts."""
    book = table.book
    m = book.maneuvers[decl["maneuver"]]
    parts: JSON = {"card": book.cards[decl["card"]].value}
    if decl.get("hit_card"):
        parts["hit"] = book.cards[decl["hit_card"]].value
    parts["modifiers"] = table.modifiers(cid)
    parts["difficulty"] = _difficulty(table, cid, decl, m)
    if not decl["step"]:
        parts["no_step"] = book.rules.range_rules.no_step_modifier
    location = decl.get("location")
    if location is not None and location != m.forced_location and decl["targets"]:
        shot = book.called_shots[location]
        parts["location"] = shot.modifier(table.foe_size(cid, decl["targets"][0])) or 0
    return sum(parts.values()), parts


def _difficulty(table: Table, cid: str, decl: JSON, m: Maneuver) -> int:
    if m.difficulty_from == "target_finesse":
        return -int(table.combatants[decl["targets"][0]]["finesse"])
    if m.difficulty_from == "target_count":
        return -len(decl["targets"])
    if m.difficulty_from == "limb_vitality":
        holds = [
            e for e in table.effects(decl["frees"], "entangled") if e["by"] == decl["targets"][0]
        ]
        return -int(holds[0]["limb_vitality"]) if holds else 0
    return m.difficulty


def resolve_register(table: Table, body: rq.ResolveRegister) -> JSON:
    """Decide every maneuver of a revealed register, then move, wound and pass initiative."""
    table.require_running()
    reg = _register(table, body.register_number, revealed=True)
    number = reg["number"]
    if not reg["revealed"]:
        raise EngineError(f"register {number} is not revealed yet")
    if reg["resolved"]:
        raise EngineError(f"register {number} is already resolved")
    result = settle(table, reg)
    reg["resolved"] = True
    for decls in reg["declarations"].values():
        for decl in decls:
            for card in (decl["card"], decl["hit_card"]):
                if card is not None and not decl.get("discarded"):
                    table.discard(card, "*")
            decl["discarded"] = True
    rnd = table.round
    _close_round_after(table, reg)
    result["round_over"] = rnd["over"]
    result["duel_over"] = table.check_over()
    return result


def _close_round_after(table: Table, reg: JSON) -> None:
    """The round ends with its last register once everyone passed in it or nobody can act;
    a later register in which everyone passed ends it as soon as those before are resolved."""
    rnd = table.round
    if reg["number"] < len(rnd["registers"]):
        close_if_all_passed(table)  # later registers are already declared
        return
    if not any(reg["declarations"].values()) or not any(table.able(c) for c in table.combatants):
        rnd["over"] = True


def settle(table: Table, reg: JSON) -> JSON:
    """Outcomes of a register's declarations (all simultaneous), applied to the table."""
    book = table.book
    acting = {
        cid: decls
        for cid, decls in reg["declarations"].items()
        if decls and not table.combatants[cid]["out"]
    }
    totals: dict[tuple[str, int], tuple[int, JSON]] = {}
    for cid, decls in acting.items():
        for i, decl in enumerate(decls):
            if not decl.get("settled"):
                totals[(cid, i)] = total(table, cid, decl)
    defenses: dict[tuple[str, str], tuple[int, JSON]] = {}
    for (cid, i), _ in totals.items():
        decl = acting[cid][i]
        if book.maneuvers[decl["maneuver"]].kind == "defense":
            defenses[(cid, decl["targets"][0])] = (i, decl)

    outcomes: list[JSON] = []
    pending: list[tuple[str, str, JSON, Maneuver, JSON]] = []
    seizes: list[tuple[str, str]] = []
    movement: dict[tuple[str, str], int] = {}
    for (cid, i), (value, parts) in totals.items():
        decl = acting[cid][i]
        m = book.maneuvers[decl["maneuver"]]
        if m.kind == "defense":
            outcomes.append(
                {
                    "combatant": cid,
                    "maneuver": m.id,
                    "against": decl["targets"][0],
                    "total": value,
                    "parts": parts,
                }
            )
            attacker = decl["targets"][0]
            movement[(cid, attacker)] = -1 if (m.step == "back" and decl["step"]) else 0
            continue
        if m.kind == "action":
            outcomes.append({"combatant": cid, "maneuver": m.id, "total": value, "parts": parts})
            continue
        for target in decl["targets"]:
            if m.step == "forward":
                movement[(cid, target)] = 1 if decl["step"] else 0
            outcome = _contest(table, cid, target, decl, m, value, acting, totals, defenses)
            outcome["parts"] = parts
            outcomes.append(outcome)
            if outcome["success"]:
                pending.append((cid, target, decl, m, outcome))
            elif outcome.get("seizes"):
                seizes.append((target, cid))

    changes: list[JSON] = []
    moves = _move(table, movement)
    for cid, target, decl, m, outcome in pending:
        outcome.update(effects.apply_success(table, cid, target, decl, m, outcome["net"]))
    for cid, decls in acting.items():
        for decl in decls:
            m = book.maneuvers[decl["maneuver"]]
            if m.effect == "change_weapon":
                changed = effects.change_weapon(table, cid, decl)
                for outcome in outcomes:
                    if outcome["combatant"] == cid and outcome["maneuver"] == m.id:
                        outcome.update(changed)
            if m.surrenders_initiative:
                for t in decl["targets"]:
                    if table.holder(cid, t) == cid:
                        changes += table.give_initiative(t, cid)
    for defender, attacker in seizes:
        if not table.combatants[defender]["out"] and table.holder(defender, attacker) != defender:
            changes += table.give_initiative(defender, attacker)
    return {
        "kind": "register",
        "register": reg["number"],
        "outcomes": outcomes,
        "ranges": moves,
        "initiative": changes,
    }


def _contest(
    table: Table,
    cid: str,
    target: str,
    decl: JSON,
    m: Maneuver,
    value: int,
    acting: dict[str, list[JSON]],
    totals: dict[tuple[str, int], tuple[int, JSON]],
    defenses: dict[tuple[str, str], tuple[int, JSON]],
) -> JSON:
    """One offense against one target: opposed or not, its net total and success."""
    book = table.book
    outcome: JSON = {"combatant": cid, "maneuver": m.id, "target": target, "total": value}
    if table.combatants[target]["out"]:
        outcome.update(success=False, net=value, reason=f"{target} is already out of the fight")
        return outcome
    problem = table.reach_problem(cid, target, m, decl["weapon"])
    if problem:
        outcome.update(success=False, net=value, reason=problem)
        return outcome
    found = defenses.get((target, cid))
    defense_total = None
    if found is not None:
        i, d = found
        dm = book.maneuvers[d["maneuver"]]
        reach = table.weapon(cid, decl["weapon"] or "main") if m.needs_weapon else None
        blocked = None
        if dm.id not in m.defended_by:
            blocked = f"a {dm.name} does not oppose a {m.name}"
        elif dm.needs_weapon:
            blocked = table.parry_problem(
                target, cid, d["weapon"], reach.range if reach is not None else None
            )
        if blocked:
            outcome["defense_void"] = blocked
        else:
            defense_total = totals[(target, i)][0]
            outcome["defense"] = {"maneuver": dm.id, "total": defense_total}
    if defense_total is None:
        outcome.update(opposed=False, net=value, success=True)
        return outcome
    net = value - (defense_total if defense_total > 0 else 0)
    outcome.update(opposed=True, net=net, success=net >= 1)
    dm = book.maneuvers[defenses[(target, cid)][1]["maneuver"]]
    if not outcome["success"] and dm.seizes_initiative and defense_total > value:
        outcome["seizes"] = True
    return outcome


def _move(table: Table, movement: dict[tuple[str, str], int]) -> dict[str, JSON]:
    """Steps change each pair's range: forward closes, back opens; a step back against a
    foe who does nothing leaves the range alone (he follows)."""
    rr = table.book.rules.range_rules
    out: dict[str, JSON] = {}
    seen: set[str] = set()
    for a, b in movement:
        pair = table.pair(a, b)
        key = "|".join(sorted((a, b)))
        if key in seen:
            continue
        seen.add(key)
        ma, mb = movement.get((a, b)), movement.get((b, a))
        if pair["range"] < table.book.close:
            continue  # wrestling range: only a buck leaves it
        lone = [x for x in (ma, mb) if x is not None]
        if len(lone) == 1:
            if lone[0] < 0 and rr.follow_lone_step_back:
                continue
            if lone[0] > 0 and not rr.attack_without_step_back_closes:
                continue
        delta = -sum(lone)
        if delta:
            before = pair["range"]
            pair["range"] = max(before + delta, table.book.close)
            if pair["range"] != before:
                out[key] = {"from": before, "to": pair["range"]}
    return out
