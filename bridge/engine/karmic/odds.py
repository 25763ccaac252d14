"""Exact odds that a declared offense succeeds, counted over the cards a viewer has not seen.

A card the viewer cannot see (the foe's sealed card, a hit draw to come) is equally likely to
be any card he has not seen: the draw pile, the other players' hands and sealed cards, and
discards only others saw. Sampling is without replacement. Hit cards are used when they help:
the attacker draws on a hit card when his attack would fail, then the defender draws on his
when it would succeed. When the target has not declared yet in that register and could still
defend, the odds are those against the defense the rule data assumes (``odds.assumed_defense``,
a parry) played with an unseen card (``assumed_parry`` in the answer). The answer is a fraction,
computed with integers (no floating point).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.resolving import total
from arbiter.bridge.engine.karmic.table import Table
from arbiter.compiler.model.karmic import Maneuver

Face = tuple[int, bool]


def unseen(table: Table, viewer: str) -> dict[Face, int]:
    """How many cards of each face ``viewer`` has not seen, wherever they are."""
    book = table.book
    cards: list[str] = list(table.state["deck"]["draw"])
    for cid, c in table.combatants.items():
        if cid != viewer:
            cards.extend(c["hand"])
    rnd = table.state["round"]
    if rnd is not None:
        for reg in rnd["registers"]:
            if reg["revealed"]:
                continue
            for cid, decls in reg["declarations"].items():
                if cid != viewer:
                    cards.extend(d["card"] for d in decls if not d.get("open"))
    cards.extend(card for card, seen in table.state["deck"]["discard"] if seen not in ("*", viewer))
    counts: dict[Face, int] = {}
    for card in cards:
        face = book.cards[card]
        key = (face.value, face.hit)
        counts[key] = counts.get(key, 0) + 1
    return counts


def _succeeds(attack: int, defense: int | None) -> bool:
    if defense is None:
        return True
    return attack - (defense if defense > 0 else 0) >= 1


def success_probability(
    counts: dict[Face, int],
    attack_base: int,
    attack_card: Face | None,
    attack_hit: int | None,
    defense_base: int | None,
    defense_card: Face | None,
    defense_hit: int | None,
) -> Fraction:
    """P(offense succeeds). A card given as None is unknown; a hit value given as None is a
    draw still to come (used only if the card is a hit card), an int a draw already made."""
    faces = [(face, n) for face, n in counts.items() if n > 0]
    pool = [n for _, n in faces]
    size = sum(pool)
    depth = min(4, size)

    def falling(n: int, k: int) -> int:
        out = 1
        for i in range(k):
            out *= n - i
        return out

    def leaf(k: int, ok: bool) -> int:
        return falling(size - k, depth - k) if ok else 0

    def pick(k: int, then: Callable[[int, Face], int]) -> int:
        """Sum over the next unseen card: count × the rest (units of 1/falling(size, depth))."""
        acc = 0
        for i, (face, _) in enumerate(faces):
            n = pool[i]
            if n:
                pool[i] -= 1
                acc += n * then(k + 1, face)
                pool[i] += 1
        return acc

    def defense_hit_stage(k: int, a: int, d: int | None, d_card: Face | None) -> int:
        if (
            d is not None
            and d_card is not None
            and d_card[1]
            and defense_hit is None
            and _succeeds(a, d)
            and k < depth
        ):
            return pick(k, lambda k2, f: leaf(k2, _succeeds(a, d + f[0])))
        return leaf(k, _succeeds(a, d))

    def attack_hit_stage(k: int, a_card: Face, d_card: Face | None) -> int:
        a = attack_base + a_card[0] + (attack_hit or 0)
        d = None
        if defense_base is not None and d_card is not None:
            d = defense_base + d_card[0] + (defense_hit or 0)
        if a_card[1] and attack_hit is None and not _succeeds(a, d) and k < depth:
            return pick(k, lambda k2, f: defense_hit_stage(k2, a + f[0], d, d_card))
        return defense_hit_stage(k, a, d, d_card)

    def defense_card_stage(k: int, a_card: Face) -> int:
        if defense_base is None:
            return attack_hit_stage(k, a_card, None)
        if defense_card is None:
            return pick(k, lambda k2, f: attack_hit_stage(k2, a_card, f))
        return attack_hit_stage(k, a_card, defense_card)

    if attack_card is None:
        if size == 0:
            raise EngineError("no unseen card is left to count")
        num = pick(0, lambda k, f: defense_card_stage(k, f))
    else:
        num = defense_card_stage(0, attack_card)
    return Fraction(num, falling(size, depth))


def odds(table: Table, body: rq.Odds) -> JSON:
    """The viewer's exact odds that ``attacker``'s offense against ``target`` succeeds."""
    book = table.book
    viewer, attacker, target = body.viewer, body.attacker, body.target
    for cid in (viewer, attacker, target):
        table.combatant(cid)
    rnd = table.round
    regs = [r for r in rnd["registers"] if not r["resolved"]]
    if body.register_number is not None:
        regs = [r for r in rnd["registers"] if r["number"] == body.register_number]
    found = None
    for reg in regs:
        for decl in reg["declarations"].get(attacker, ()):
            m = book.maneuvers[decl["maneuver"]]
            if m.kind == "offense" and target in decl["targets"]:
                found = (reg, decl)
                break
        if found:
            break
    if found is None:
        raise EngineError(f"{attacker} has declared no maneuver against {target} to give odds for")
    reg, decl = found
    open_ = reg["revealed"] or decl.get("open")
    sees_attack = open_ or viewer == attacker
    real = book.maneuvers[decl["maneuver"]]
    shown = real.id if sees_attack else (real.declared_as or real.id)
    if shown != real.id:
        # The viewer sees the maneuver as declared (a feint shows as an attack): count the odds
        # of what he sees, so they never tell him what it really is.
        decl = {**decl, "maneuver": shown}
    m = book.maneuvers[shown]
    attack_base = total(table, attacker, decl)[0] - _card_parts(table, decl)
    attack_card = _face(table, decl["card"]) if sees_attack else None
    attack_hit = _hit(table, decl, open_ or viewer == attacker)
    defense_base = defense_card = defense_hit = None
    problem = table.reach_problem(attacker, target, m, decl["weapon"])
    for d in reg["declarations"].get(target, ()):
        dm = book.maneuvers[d["maneuver"]]
        opposes = dm.kind == "defense" and d["targets"][0] == attacker and dm.id in m.defended_by
        if opposes and not _void(table, target, attacker, decl, dm, d["weapon"]):
            sees = reg["revealed"] or viewer == target
            defense_base = total(table, target, d)[0] - _card_parts(table, d)
            defense_card = _face(table, d["card"]) if sees else None
            defense_hit = _hit(table, d, reg["revealed"] or viewer == target)
    assumed = book.maneuvers[book.rules.odds.assumed_defense]
    assumed_parry = (
        target not in reg["declarations"]
        and table.able(target)
        and assumed.id in m.defended_by
        and not reg["revealed"]
        and not _void(table, target, attacker, decl, assumed, None)
        and not (assumed.barred_by_flank and table.has_effect(target, "flanked", attacker))
    )
    if assumed_parry:
        # The target has yet to declare: count the odds against the defense the rule data
        # assumes (odds.toml), played with an unseen card.
        defense_base = table.modifiers(target) + assumed.difficulty
    counts = unseen(table, viewer)
    if problem:
        probability = Fraction(0)
    else:
        probability = success_probability(
            counts, attack_base, attack_card, attack_hit, defense_base, defense_card, defense_hit
        )
    return {
        "kind": "odds",
        "viewer": viewer,
        "attacker": attacker,
        "target": target,
        "register": reg["number"],
        "maneuver": shown,
        "opposed": defense_base is not None,
        "assumed_parry": assumed_parry,
        "unseen": sum(counts.values()),
        "probability": f"{probability.numerator}/{probability.denominator}",
        "value": float(probability),
        "reason": problem,
    }


def _void(
    table: Table, defender: str, attacker: str, decl: JSON, defense: Maneuver, slot: str | None
) -> bool:
    """Whether ``defense`` made with ``slot`` cannot oppose ``attacker``'s ``decl`` (the
    defender's weapon cannot parry, or not at this range against that reach)."""
    if not defense.needs_weapon:
        return False
    m = table.book.maneuvers[decl["maneuver"]]
    weapon = table.weapon(attacker, decl["weapon"] or "main") if m.needs_weapon else None
    reach = weapon.range if weapon is not None else None
    return table.parry_problem(defender, attacker, slot, reach) is not None


def _face(table: Table, card: str) -> Face:
    f = table.book.cards[card]
    return (f.value, f.hit)


def _card_parts(table: Table, decl: JSON) -> int:
    value = table.book.cards[decl["card"]].value
    if decl.get("hit_card"):
        value += table.book.cards[decl["hit_card"]].value
    return value


def _hit(table: Table, decl: JSON, visible: bool) -> int | None:
    """A hit draw already made (its value; 0 once the register is resolved) or None."""
    if decl.get("hit_card") and visible:
        return table.book.cards[decl["hit_card"]].value
    return None
