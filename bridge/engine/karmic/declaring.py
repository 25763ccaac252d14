"""Sealed declarations: who may declare what, with which card, in which register.

In each register the players declare in initiative order: a player waits for every foe who
holds the initiative over him. A register opens once everyone has declared (or passed) in the
previous one, even before that one is resolved (the worked example declares the whole round
first); after a register in which everyone passed, the round is over. One card per register, except
that several parries (each against a different attacker) may be declared together.
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.table import Table
from arbiter.compiler.model.karmic import Maneuver


def next_register(table: Table, cid: str) -> int:
    """The first register of this round ``cid`` has not declared in."""
    for reg in table.round["registers"]:
        if cid not in reg["declarations"]:
            return int(reg["number"])
    return len(table.round["registers"]) + 1


def _waits_for(table: Table, cid: str, number: int) -> list[str]:
    return [
        foe
        for foe in table.live_foes(cid)
        if table.pair(cid, foe)["initiative"] == foe and not table.done_with(foe, number)
    ]


def _blocked_by(table: Table, cid: str, number: int) -> list[str]:
    """Foes holding the initiative over ``cid`` who have not declared yet (cycles excused)."""
    waiting = _waits_for(table, cid, number)
    blocked = []
    for foe in waiting:
        seen = {foe}
        frontier = [foe]
        cycle = False
        while frontier and not cycle:
            nxt = frontier.pop()
            for other in _waits_for(table, nxt, number):
                if other == cid:
                    cycle = True
                elif other not in seen:
                    seen.add(other)
                    frontier.append(other)
        if not cycle:
            blocked.append(foe)
    return blocked


def declare(table: Table, body: rq.Declare) -> tuple[JSON, list[JSON]]:
    """Seal ``body``'s maneuvers; returns the public result and the stored declarations."""
    table.require_running()
    rnd = table.round
    if rnd["over"]:
        passed = [r["number"] for r in rnd["registers"] if all_passed(table, r)]
        if passed:
            raise EngineError(
                f"everyone passed in register {passed[-1]}: the round is over "
                "(draw hands for the next one)"
            )
        raise EngineError("this round is over: draw hands for the next one")
    cid = body.combatant
    c = table.combatant(cid)
    if c["out"]:
        raise EngineError(f"{cid} is out of the fight")
    number = body.register_number or next_register(table, cid)
    if number > len(rnd["registers"]) + 1:
        raise EngineError(f"register {number} is not open: the next is {len(rnd['registers']) + 1}")
    for earlier in range(1, number):
        if not table.done_with(cid, earlier):
            raise EngineError(f"{cid} must declare (or pass) in register {earlier} first")
    reg = table.register(number)
    if reg["revealed"]:
        raise EngineError(f"register {number} is already revealed")
    if cid in reg["declarations"]:
        raise EngineError(f"{cid} has already declared in register {number}")
    if body.maneuvers and not table.able(cid):
        raise EngineError(f"{cid} can take no more maneuvers this round")
    if number > 1:
        waiting = [x for x in table.combatants if not table.done_with(x, number - 1)]
        if waiting:
            raise EngineError(
                f"register {number - 1} is still being declared (by {', '.join(waiting)})"
            )
        if not any(table.round["registers"][number - 2]["declarations"].values()):
            raise EngineError(f"everyone passed in register {number - 1}: the round is over")
    blocked = _blocked_by(table, cid, number)
    if blocked:
        raise EngineError(
            f"{blocked[0]} holds the initiative over {cid} and declares first in register {number}"
        )
    stored: list[JSON] = []
    if body.maneuvers:
        stored = _validate(table, cid, body.maneuvers, number)
    reg["declarations"][cid] = stored
    used = table.used(cid)
    for decl in stored:
        c["hand"].remove(decl["card"])
        m = table.book.maneuvers[decl["maneuver"]]
        used["total"] += 1
        if decl["weapon"] is not None and m.effect != "change_weapon":
            used[decl["weapon"]] += 1
        if m.once_per_round:
            used["once"] = [*used.get("once", ()), m.id]
        if m.shield_cannot_parry:
            used["no_parry_slot"] = decl["weapon"]
        if decl["weapon"] is not None and m.kind == "defense":
            used["parried_with"] = [*used.get("parried_with", ()), decl["weapon"]]
        if m.ends_actions:
            used["ended"] = True
        for t in decl["targets"]:
            table.pair(cid, t)["hesitated"] = []
    close_if_all_passed(table)
    result: JSON = {
        "kind": "declare",
        "combatant": cid,
        "register": number,
        "passed": not stored,
        "maneuvers": len(stored),
        "round_over": rnd["over"],
    }
    return result, stored


def all_passed(table: Table, reg: JSON) -> bool:
    """Whether everyone is done with register ``reg`` and nobody declared a maneuver in it."""
    return not any(reg["declarations"].values()) and all(
        table.done_with(cid, int(reg["number"])) for cid in table.combatants
    )


def close_if_all_passed(table: Table) -> None:
    """The round is over once everyone has passed in its last register and every register
    before it is resolved: there is nothing to reveal or resolve, so ``draw_hands`` may start
    the next round at once (revealing the empty register is allowed and changes nothing)."""
    rnd = table.round
    registers = rnd["registers"]
    if (
        registers
        and all_passed(table, registers[-1])
        and all(r["resolved"] for r in registers[:-1])
    ):
        rnd["over"] = True


def _validate(table: Table, cid: str, decls: list[rq.Declaration], number: int) -> list[JSON]:
    book = table.book
    maneuvers = []
    for d in decls:
        m = book.maneuvers.get(d.maneuver)
        if m is None:
            raise EngineError(
                f"unknown maneuver {d.maneuver!r} (known: {', '.join(book.maneuvers)})"
            )
        maneuvers.append(m)
    if len(decls) > 1:
        if any(m.kind != "defense" for m in maneuvers):
            raise EngineError("only parries may share a register: one card per register otherwise")
        targets = [d.target for d in decls]
        if len(set(targets)) != len(targets):
            raise EngineError("each parry in a register must oppose a different attacker")
    cards = [d.card for d in decls]
    if len(set(cards)) != len(cards):
        raise EngineError("each maneuver needs its own card")
    hand = table.combatants[cid]["hand"]
    for card in cards:
        if card not in hand:
            raise EngineError(f"card {card!r} is not in {cid}'s hand")
    used = table.used(cid)
    limit = table.maneuver_limit(cid)
    if used["total"] + len(decls) > limit:
        raise EngineError(
            f"{cid} may take {limit} maneuvers this round and has taken {used['total']}"
        )
    slot_counts = {"main": used["main"], "off": used["off"]}
    out = []
    for d, m in zip(decls, maneuvers, strict=True):
        stored = _one(table, cid, d, m, number)
        slot = stored["weapon"]
        if slot is not None and m.effect != "change_weapon":
            slot_counts[slot] += 1
            weapon = table.weapon(cid, slot)
            if weapon is not None and slot_counts[slot] > weapon.max_maneuvers:
                raise EngineError(
                    f"{cid} may take no more than {weapon.max_maneuvers} maneuvers "
                    f"with the {weapon.name} this round"
                )
        out.append(stored)
    return out


def _one(table: Table, cid: str, d: rq.Declaration, m: Maneuver, number: int) -> JSON:
    """One declaration checked against the rules; the dict stored in the register."""
    book = table.book
    targets = _targets(table, cid, d, m)
    slot = (d.weapon or "main") if (m.needs_weapon or m.effect == "change_weapon") else None
    if m.needs_weapon and m.effect != "change_weapon":
        weapon = table.weapon(cid, slot or "main")
        if weapon is None:
            raise EngineError(f"{cid} holds nothing in his {slot} hand")
        if m.weapon_kind is not None and weapon.kind != m.weapon_kind:
            raise EngineError(f"{m.name} needs a {m.weapon_kind} weapon, not a {weapon.name}")
        if m.needs_bash and not weapon.can_bash:
            raise EngineError(f"a {weapon.name} cannot bash")
        used = table.used(cid)
        if m.once_per_round and m.id in used.get("once", ()):
            raise EngineError(f"only one {m.name} per round")
        if m.shield_cannot_parry and slot in used.get("parried_with", ()):
            raise EngineError(f"the {weapon.name} already parried this round and cannot bash")
        if m.kind == "defense":
            if not weapon.can_parry:
                raise EngineError(f"{weapon.name} cannot parry")
            if slot == used.get("no_parry_slot"):
                raise EngineError(f"the {weapon.name} bashed this round and cannot parry")
    if not d.step and not m.may_skip_step:
        raise EngineError(f"{m.name} has no step to leave out")
    location = d.location or m.forced_location
    if d.location is not None:
        if not m.called_shots:
            raise EngineError(f"{m.name} cannot be a called shot")
        shot = book.called_shots.get(d.location)
        if shot is None:
            raise EngineError(f"unknown hit location {d.location!r}")
        for t in targets:
            size = table.foe_size(cid, t)
            if shot.modifier(size) is None:
                raise EngineError(f"no called shot to the {shot.name} of a {size} creature")
    new_weapon = None
    if m.effect == "change_weapon":
        if d.new_weapon is None or d.new_weapon not in book.weapons:
            raise EngineError(f"{m.name} needs new_weapon, one of: {', '.join(book.weapons)}")
        new_weapon = d.new_weapon
    frees = None
    if m.effect == "free":
        frees = d.frees or cid
        table.combatant(frees)
        if not table.has_effect(frees, "entangled", targets[0]):
            raise EngineError(f"{frees} is not entangled by {targets[0]}")
    if m.kind == "offense" and all(r["resolved"] for r in table.round["registers"][: number - 1]):
        for t in targets:
            problem = table.reach_problem(cid, t, m, slot)
            if problem:
                raise EngineError(problem)
    return {
        "maneuver": m.id,
        "card": d.card,
        "targets": targets,
        "weapon": slot,
        "step": d.step,
        "location": location,
        "target_weapon": d.target_weapon if m.effect == "disarm" else None,
        "new_weapon": new_weapon,
        "frees": frees,
        "hit_card": None,
        "open": False,
    }


def _targets(table: Table, cid: str, d: rq.Declaration, m: Maneuver) -> list[str]:
    if m.kind == "action":
        return []
    if m.multiple_targets:
        targets = list(d.targets or ([d.target] if d.target else []))
    else:
        if d.targets is not None:
            raise EngineError(f"{m.name} has one target: use target, not targets")
        targets = [d.target] if d.target else []
    if not targets:
        raise EngineError(f"{m.name} needs a target")
    if len(set(targets)) != len(targets):
        raise EngineError("a target is named twice")
    live = table.live_foes(cid)
    for t in targets:
        table.combatant(t)
        if t not in live:
            raise EngineError(f"{t} is not a foe of {cid} still in the fight")
        if m.kind == "offense":
            if m.foe_size != "any" and table.foe_size(cid, t) != m.foe_size:
                raise EngineError(f"{m.name} is only against {m.foe_size} foes; {t} is not one")
            if table.has_effect(cid, "flanked", t):
                raise EngineError(f"{t} has flanked {cid}: {cid} cannot attack him this round")
            if m.needs_clinger and not table.has_effect(cid, "clung", t):
                raise EngineError(f"{t} is not clinging to {cid}")
        if m.barred_by_flank and table.has_effect(cid, "flanked", t):
            raise EngineError(f"{t} has flanked {cid}: {cid} cannot {m.name.lower()} his blows")
    if m.requires_initiative and not any(table.holder(cid, t) == cid for t in targets):
        raise EngineError(f"{m.name} needs the initiative over the target")
    return targets
