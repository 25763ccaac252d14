"""What a successful maneuver does: damage, disarms, flanks, clings, bucks, chops, swats,
weapon changes. Damage follows RULES-NOTES (assumed rules, marked in damage.toml)."""

from __future__ import annotations

from arbiter.bridge.engine.contract import JSON
from arbiter.bridge.engine.karmic.table import Table
from arbiter.compiler.model.karmic import Maneuver


def damage(table: Table, attacker: str, target: str, decl: JSON, m: Maneuver, net: int) -> JSON:
    """Damage of a success with ``net`` total: min(total, maximum damage (+charge)) × the
    maneuver's factor, at least the minimum, × the location multiplier, less protection."""
    rules = table.book.rules
    slot = decl["weapon"] or "main"
    weapon = table.weapon(attacker, slot)
    maximum = weapon.max_damage if weapon is not None else 0
    charge = table.state["round"]["charge"] if table.state["round"] else None
    if charge is not None and charge["charger"] == attacker:
        maximum += rules.charge.max_damage_bonus
    total = net * m.damage_factor
    maximum *= m.damage_factor
    base = max(min(total, maximum), rules.damage.minimum_on_success)
    multiplier = 1
    location = decl.get("location")
    if location is not None and not m.no_location_benefit:
        multiplier = table.book.multipliers[location]
    protection = table.book.armor[table.combatants[target]["armor"]].protection
    dealt = max(base * multiplier - protection, 0)
    return {
        "damage_total": total,
        "maximum": maximum,
        "multiplier": multiplier,
        "protection": protection,
        "damage": dealt,
    }


def wound(table: Table, target: str, dealt: int) -> JSON:
    """Take ``dealt`` from the target's vitality; at the threshold he is out of the fight."""
    c = table.combatants[target]
    c["vitality"] -= dealt
    out = c["vitality"] <= table.book.rules.damage.out_at_vitality
    if out and not c["out"]:
        c["out"] = True
        for card in c["hand"]:
            table.discard(card, target)
        c["hand"] = []
    return {"vitality": c["vitality"], "out": c["out"]}


def apply_success(
    table: Table, attacker: str, target: str, decl: JSON, m: Maneuver, net: int
) -> JSON:
    """The consequences of ``m`` succeeding against ``target``; a summary for the card."""
    out: JSON = {}
    if m.deals_damage:
        hurt = damage(table, attacker, target, decl, m, net)
        out.update(hurt)
        out.update(wound(table, target, hurt["damage"]))
    effect = m.effect
    if effect == "disarm":
        slot = decl.get("target_weapon") or "main"
        c = table.combatants[target]
        dropped = c[slot]
        c[slot] = table.book.bare_hands.id if slot == "main" else None
        c["effects"].append(
            {"effect": "disarmed", "by": attacker, "weapon": dropped, **table.lasting("disarmed")}
        )
        out["disarmed"] = {"weapon": dropped, "hand": slot}
    elif effect == "flank":
        table.remove_effects(target, "flanked", attacker)
        table.combatants[target]["effects"].append(
            {"effect": "flanked", "by": attacker, **table.lasting("flanked")}
        )
        out["flanked"] = target
    elif effect == "cling":
        after_flank = table.has_effect(target, "flanked", attacker)
        table.remove_effects(target, "clung", attacker)
        table.combatants[target]["effects"].append(
            {
                "effect": "clung",
                "by": attacker,
                "after_flank": after_flank,
                **table.lasting("clung"),
            }
        )
        table.pair(attacker, target)["range"] = table.book.wrestling
        out["clinging"] = {"on": target, "after_flank": after_flank}
    elif effect == "buck":
        table.remove_effects(attacker, "clung", target)
        table.pair(attacker, target)["range"] = table.book.close
        out["bucked"] = target
    elif effect == "free":
        freed = decl["frees"]
        table.remove_effects(freed, "entangled", target)
        out["freed"] = freed
    elif effect == "push":
        weapon = table.weapon(attacker, decl["weapon"] or "main")
        feet = max(min(net, weapon.max_damage if weapon else 0), 0)
        yards = feet // table.book.rules.range_rules.feet_per_yard
        pair = table.pair(attacker, target)
        if pair["range"] >= table.book.close:
            pair["range"] += yards
        out["pushed"] = {"feet": feet, "yards": yards, "range": pair["range"]}
    return out


def change_weapon(table: Table, cid: str, decl: JSON) -> JSON:
    """The old weapon is dropped and the new one drawn; next round's hand uses Fast Draw."""
    c = table.combatants[cid]
    slot = decl["weapon"] or "main"
    dropped = c[slot]
    c[slot] = decl["new_weapon"]
    c["changed_weapon_round"] = table.state["round"]["number"]
    return {"dropped": dropped, "drawn": decl["new_weapon"], "hand": slot}
