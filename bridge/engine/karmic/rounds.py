"""Setting up the duel and each round: the deck, initiative, hands, charges, hesitation."""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.karmic import requests as rq
from arbiter.bridge.engine.karmic.rulebook import Rulebook
from arbiter.bridge.engine.karmic.table import Table, new_state, pair_key


def start_duel(book: Rulebook, body: rq.StartDuel, dice: Dice) -> Table:
    """A new duel: the deck shuffled, every pair of foes at the range of its longest weapon;
    a fighter who names no weapon holds bare hands (``hands.bare_hands``)."""
    combatants: dict[str, JSON] = {}
    for spec in body.combatants:
        if spec.id in combatants:
            raise EngineError(f"combatant id {spec.id!r} is used twice")
        for slot in ("main", "off"):
            wid = getattr(spec, slot)
            if wid is not None and wid not in book.weapons:
                raise EngineError(
                    f"{spec.id}: unknown weapon {wid!r} in the {slot} hand "
                    f"(known: {', '.join(book.weapons)})"
                )
        if spec.armor not in book.armor:
            raise EngineError(f"{spec.id}: unknown armor {spec.armor!r}")
        combatants[spec.id] = {
            "name": spec.name,
            "side": spec.side,
            "finesse": spec.finesse,
            "force": spec.force,
            "armor": spec.armor,
            "vitality": spec.vitality,
            "size": spec.size,
            "skills": dict(spec.skills),
            "main": spec.main if spec.main is not None else book.bare_hands.id,
            "off": spec.off,
            "out": False,
            "hand": [],
            "changed_weapon_round": None,
            "effects": [],
        }
    if len({c["side"] for c in combatants.values()}) < 2:
        raise EngineError("a duel needs combatants on at least two sides")
    pairs: dict[str, JSON] = {}
    ids = list(combatants)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            if combatants[a]["side"] != combatants[b]["side"]:
                longest = max(_reach(book, combatants[a]), _reach(book, combatants[b]))
                pairs[pair_key(a, b)] = {
                    "range": body.start_range if body.start_range is not None else longest,
                    "initiative": None,
                    "hesitated": [],
                    "ended": False,
                }
    draw = dice.shuffle(list(book.deck), "shuffle", hidden=True)
    return Table(book, new_state(combatants, pairs, draw), dice)


def _reach(book: Rulebook, c: JSON) -> int:
    return max(book.weapons[w].range for w in (c["main"], c["off"]) if w is not None)


def draw_initiative(table: Table, body: rq.DrawInitiative) -> JSON:
    """Each draws his Combat Training (Fast Draw in a show-down) and keeps the best card."""
    table.require_running()
    a, b = body.between
    table.require_foes(a, b)
    draws = table.book.rules.draws
    skill = draws.showdown_skill if body.showdown else draws.initiative_skill
    attempts = []
    winner = a
    for _ in range(draws.max_initiative_redraws):
        best: dict[str, int] = {}
        shown: dict[str, list[JSON]] = {}
        for cid in (a, b):
            cards = [table.draw(f"initiative {cid}") for _ in range(table.skill(cid, skill))]
            for card in cards:
                table.discard(card, "*")
            shown[cid] = [table.shown(card) for card in cards]
            best[cid] = max(table.book.cards[card].value for card in cards)
        attempts.append({"cards": shown, "best": best})
        if best[a] != best[b]:
            winner = a if best[a] > best[b] else b
            break
    loser = b if winner == a else a
    changes = table.give_initiative(winner, loser)
    return {
        "kind": "initiative",
        "between": [a, b],
        "skill": skill,
        "draws": attempts,
        "winner": winner,
        "changes": changes,
    }


def hand_size(table: Table, cid: str, round_number: int) -> int:
    """Cards for the round: the weapon skill (the lower with an off-hand weapon or shield),
    no more than Fast Draw the round after a weapon change."""
    c = table.combatants[cid]
    size = table.skill(cid, c["main"])
    if c["off"] is not None:
        size = min(size, table.skill(cid, c["off"]))
    if c["changed_weapon_round"] == round_number - 1:
        size = min(size, table.skill(cid, table.book.rules.draws.weapon_change_skill))
    return size


def draw_hands(table: Table) -> JSON:
    """A new round: old hands go to the discard and every fighter still in draws his hand."""
    table.require_running()
    previous = table.state["round"]
    if previous is not None:
        unresolved = [r["number"] for r in previous["registers"] if not r["resolved"]]
        if unresolved and not previous["over"]:
            raise EngineError(f"register {unresolved[0]} of this round is not resolved yet")
    number = 1 if previous is None else previous["number"] + 1
    for cid, c in table.combatants.items():
        for card in c["hand"]:
            table.discard(card, cid)
        c["hand"] = []
        c["effects"] = [e for e in c["effects"] if e.get("until_round", number) >= number]
    table.state["round"] = {
        "number": number,
        "over": False,
        "registers": [],
        "used": {},
        "limits": {},
        "charge": None,
    }
    sizes: dict[str, int] = {}
    for cid, c in table.combatants.items():
        if c["out"]:
            continue
        sizes[cid] = hand_size(table, cid, number)
        c["hand"] = [table.draw(f"hand {cid}") for _ in range(sizes[cid])]
    return {"kind": "hands", "round": number, "hand_sizes": sizes}


def charge(table: Table, body: rq.ChargeBody) -> JSON:
    """The charger closes in: one maneuver each this round, his maximum damage +1."""
    table.require_running()
    a, t = body.combatant, body.target
    pair = table.require_foes(a, t)
    rnd = table.round
    if rnd["over"] or any(r["declarations"] for r in rnd["registers"]):
        raise EngineError("a charge must come before the round's first declaration")
    for cid in (a, t):
        if table.combatants[cid]["out"]:
            raise EngineError(f"{cid} is out of the fight")
    rules = table.book.rules.charge
    ca, ct = table.combatants[a], table.combatants[t]
    reach_a = table.book.weapons[ca["main"]].range
    reach_t = table.book.weapons[ct["main"]].range
    pair["range"] = max(_reach(table.book, ca), _reach(table.book, ct))
    rnd["limits"][a] = rules.maneuvers_each
    rnd["limits"][t] = rules.maneuvers_each
    rnd["charge"] = {"charger": a, "target": t}
    holder, foe = (t, a) if reach_t > reach_a else (a, t)
    changes = table.give_initiative(holder, foe)
    return {
        "kind": "charge",
        "charger": a,
        "target": t,
        "range": pair["range"],
        "initiative": holder,
        "changes": changes,
        "max_damage_bonus": rules.max_damage_bonus,
        "maneuvers_each": rules.maneuvers_each,
    }


def hesitate(table: Table, body: rq.Hesitate) -> JSON:
    """The holder of the initiative relinquishes it; when both hesitate their fight ends."""
    table.require_running()
    a, b = body.combatant, body.opponent
    pair = table.require_foes(a, b)
    if pair["ended"]:
        raise EngineError(f"the fight between {a} and {b} has ended")
    if pair["initiative"] != a:
        raise EngineError(f"{a} does not hold the initiative over {b}: only its holder hesitates")
    ended = b in pair["hesitated"]
    pair["hesitated"].append(a)
    changes: list[JSON] = []
    if ended:
        pair["ended"] = True
    else:
        changes = table.give_initiative(b, a)
    over = table.check_over()
    return {
        "kind": "hesitate",
        "combatant": a,
        "opponent": b,
        "ended": ended,
        "duel_over": over,
        "changes": changes,
    }


def entangle(table: Table, body: rq.Entangle) -> JSON:
    """The GM records that a creature's limb entangles a fighter (a chop can free him)."""
    table.require_running()
    table.require_foes(body.combatant, body.by)
    effect = {
        "effect": "entangled",
        "by": body.by,
        "limb_vitality": body.limb_vitality,
        **table.lasting("entangled"),
    }
    table.remove_effects(body.combatant, "entangled", body.by)
    table.combatants[body.combatant]["effects"].append(effect)
    return {"kind": "entangle", "combatant": body.combatant, **effect}
