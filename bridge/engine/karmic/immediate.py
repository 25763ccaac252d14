"""Maneuvers settled outside the reveal of a register: swats and surprise attacks.

A swat is resolved the moment it is declared (its card is shown at once); a surprise attack
comes before the round's declarations and cannot be defended against.
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.karmic import effects
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.resolving import total
from arbiter.bridge.engine.karmic.table import Table


def resolve_immediately(table: Table, cid: str, number: int, decls: list[JSON]) -> list[JSON]:
    """Maneuvers resolved at declaration (a swat): shown and settled at once, unopposed."""
    results = []
    for decl in decls:
        m = table.book.maneuvers[decl["maneuver"]]
        if not m.resolve_immediately:
            continue
        decl["open"] = True
        value, parts = total(table, cid, decl)
        for target in decl["targets"]:
            outcome: JSON = {
                "combatant": cid,
                "maneuver": m.id,
                "target": target,
                "total": value,
                "parts": parts,
                "register": number,
            }
            problem = table.reach_problem(cid, target, m, decl["weapon"])
            if problem:
                outcome.update(success=False, reason=problem)
            else:
                outcome["success"] = True
                outcome.update(effects.apply_success(table, cid, target, decl, m, value))
            results.append(outcome)
        decl["settled"] = True
        table.discard(decl["card"], "*")
        decl["discarded"] = True
    return results


def surprise(table: Table, body: rq.SurpriseBody) -> JSON:
    """A surprise attack the target cannot defend against, unless his Combat Training draw
    beats the attacker's; the attack is played with one card drawn for it, as the maneuver
    the rule data names (``surprise.maneuver``)."""
    table.require_running()
    a, t = body.attacker, body.target
    pair = table.require_foes(a, t)
    rnd = table.state["round"]
    if rnd is not None and not rnd["over"] and any(r["declarations"] for r in rnd["registers"]):
        raise EngineError("a surprise comes before the round's first declaration")
    for cid in (a, t):
        if table.combatants[cid]["out"]:
            raise EngineError(f"{cid} is out of the fight")
    skill = table.book.rules.surprise.check_skill
    check: JSON | None = None
    if skill in table.combatants[t]["skills"]:
        best: dict[str, int] = {}
        shown: dict[str, list[JSON]] = {}
        for cid in (a, t):
            cards = [table.draw(f"surprise check {cid}") for _ in range(table.skill(cid, skill))]
            for card in cards:
                table.discard(card, "*")
            shown[cid] = [table.shown(card) for card in cards]
            best[cid] = max(table.book.cards[card].value for card in cards)
        check = {"cards": shown, "best": best, "avoided": best[t] > best[a]}
        if check["avoided"]:
            return {
                "kind": "surprise",
                "attacker": a,
                "target": t,
                "check": check,
                "surprised": False,
            }
    weapon = table.weapon(a, body.weapon)
    if weapon is None:
        raise EngineError(f"{a} holds nothing in his {body.weapon} hand")
    attack = table.book.maneuvers[table.book.rules.surprise.maneuver]
    pair["range"] = weapon.range
    card = table.draw(f"surprise {a}")
    decl: JSON = {
        "maneuver": attack.id,
        "card": card,
        "targets": [t],
        "weapon": body.weapon,
        "step": True,
        "location": None,
        "hit_card": None,
    }
    if body.location is not None:
        if not attack.called_shots:
            raise EngineError(f"a surprise {attack.name} cannot be a called shot")
        shot = table.book.called_shots.get(body.location)
        if shot is None or shot.modifier(table.foe_size(a, t)) is None:
            raise EngineError(f"no called shot {body.location!r} against {t}")
        decl["location"] = body.location
    value, parts = total(table, a, decl)
    table.discard(card, "*")
    outcome = effects.apply_success(table, a, t, decl, attack, value)
    return {
        "kind": "surprise",
        "attacker": a,
        "target": t,
        "check": check,
        "surprised": True,
        "card": table.shown(card),
        "total": value,
        "parts": parts,
        "range": pair["range"],
        **outcome,
        "duel_over": table.check_over(),
    }
