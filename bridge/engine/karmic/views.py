"""What each participant may see: the public view and each player's own hand.

The public view shows counts, never cards: no hand, no sealed card, no order of the draw pile.
A sealed declaration shows only the maneuver as declared (a feint shows as an attack) and its
targets; its card appears once the register is revealed. Public cards show their face (value
and hit) but never their id: ids are handles for their holder only, so nothing public can be
matched against a hand or the draw pile. A player's private view adds his own
hand and his own sealed cards, nobody else's.
"""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON
from arbiter.bridge.engine.karmic.table import Table

_OPTIONS = ("weapon", "step", "location", "target_weapon", "new_weapon", "frees")


def public_declaration(table: Table, decl: JSON, revealed: bool) -> JSON:
    """A declaration as everyone sees it (the card only once revealed)."""
    m = table.book.maneuvers[decl["maneuver"]]
    out: JSON = {
        "maneuver": decl["maneuver"] if revealed or decl.get("open") else m.declared_as or m.id,
        "targets": list(decl["targets"]),
    }
    for key in _OPTIONS:
        if decl.get(key) is not None:
            out[key] = decl[key]
    if revealed or decl.get("open"):
        out["card"] = table.shown(decl["card"])
        if decl.get("hit_card"):
            out["hit_card"] = table.shown(decl["hit_card"])
    return out


def public_view(table: Table) -> JSON:
    """The duel as every participant may see it."""
    state = table.state
    deck = state["deck"]
    rnd = state["round"]
    combatants: JSON = {}
    for cid, c in state["combatants"].items():
        entry: JSON = {
            "name": c["name"],
            "side": c["side"],
            "vitality": c["vitality"],
            "out": c["out"],
            "main": c["main"],
            "off": c["off"],
            "armor": c["armor"],
            "size": c["size"],
            "hand_count": len(c["hand"]),
            "effects": [dict(e) for e in c["effects"]],
        }
        if rnd is not None:
            entry["maneuvers_used"] = table.used(cid)["total"]
            entry["maneuver_limit"] = table.maneuver_limit(cid)
        combatants[cid] = entry
    registers = []
    if rnd is not None:
        for reg in rnd["registers"]:
            registers.append(
                {
                    "number": reg["number"],
                    "revealed": reg["revealed"],
                    "resolved": reg["resolved"],
                    "declarations": {
                        cid: [public_declaration(table, d, reg["revealed"]) for d in decls]
                        for cid, decls in reg["declarations"].items()
                    },
                }
            )
    return {
        "round": None if rnd is None else rnd["number"],
        "round_over": None if rnd is None else rnd["over"],
        "over": state["over"],
        "deck": {
            "draw_count": len(deck["draw"]),
            "discard_count": len(deck["discard"]),
            "face_up": [table.shown(card) for card, seen in deck["discard"] if seen == "*"],
            "reshuffles": deck["reshuffles"],
        },
        "combatants": combatants,
        "pairs": {
            key: {"range": p["range"], "initiative": p["initiative"], "ended": p["ended"]}
            for key, p in state["pairs"].items()
        },
        "registers": registers,
    }


def private_view(table: Table, cid: str) -> JSON:
    """What only ``cid`` may see: his hand and his sealed cards."""
    c = table.state["combatants"][cid]
    sealed = []
    rnd = table.state["round"]
    if rnd is not None:
        for reg in rnd["registers"]:
            if reg["revealed"]:
                continue
            for decl in reg["declarations"].get(cid, ()):
                if not decl.get("open"):
                    sealed.append(
                        {
                            "register": reg["number"],
                            "maneuver": decl["maneuver"],
                            "card": table.face(decl["card"]),
                        }
                    )
    return {
        "combatant": cid,
        "hand": [table.face(card) for card in c["hand"]],
        "sealed": sealed,
    }


def private_views(table: Table, ids: list[str] | None = None) -> dict[str, JSON]:
    """Private views of ``ids`` (default: every combatant)."""
    return {cid: private_view(table, cid) for cid in ids or table.state["combatants"]}
