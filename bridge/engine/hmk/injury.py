"""Injury: the weapon's d10 column, the STR and skill bonuses, critical extra injury, armor,
and what losing IP does (unconsciousness, the death timer, Terminal Injury)."""

from __future__ import annotations

from dataclasses import dataclass, field

from arbiter.bridge.engine.contract import JSON
from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.state import ACTIVE, DEAD, UNCONSCIOUS, Combatant, Encounter
from arbiter.compiler.model.hmk.combat import Combat
from arbiter.compiler.model.hmk.gear import Weapon
from arbiter.compiler.model.hmk.tables import CriticalRow


@dataclass(slots=True)
class Fight:
    """What a strike's consequences need: rules, dice, the combatants and the event list."""

    ix: Index
    dice: Dice
    encounter: Encounter
    attacker: Combatant
    defender: Combatant
    weapon: Weapon
    bystander: Combatant | None
    events: list[JSON] = field(default_factory=list)


def armor_pv(ix: Index, victim: Combatant) -> int:
    """The victim's armor PV less what criticals shredded (never below 0)."""
    return max(0, ix.armor_pv(victim.armor) - victim.armor_loss)


def extra_injury(weapon: Weapon, percent: int) -> int:
    """A critical's extra injury: ``percent`` of the weapon's maximum d10 injury, rounded up."""
    return -(-weapon.maximum_injury * percent // 100)


def deal(
    fight: Fight, striker: Combatant, victim: Combatant, kind: str, bonus: int
) -> tuple[JSON, CriticalRow | None]:
    """Roll and inflict one blow of ``kind`` (base, normal or critical) on ``victim``.

    Dice, in order: the d10 injury roll, then for a critical the critical table's own die.
    Returns the injury breakdown for the outcome and the critical row, whose effects the
    caller applies next (they may roll more dice).
    """
    ix, dice, weapon = fight.ix, fight.dice, fight.weapon
    combat = ix.rules.combat
    d10 = dice.die(10, "1d10")
    base = weapon.injury[d10 - 1]
    skill = striker.skills.get(weapon.id, 0)
    with_bonuses = kind != "base"
    strength_bonus = striker.attributes["STR"] // combat.strength_divisor if with_bonuses else 0
    skill_bonus = skill // combat.skill_divisor if with_bonuses else 0
    row = None
    extra = 0
    ignore_armor = False
    if kind == "critical":
        roll = dice.roll(ix.rules.critical_hits.die).total
        row = ix.critical_rows[roll]
        extra = extra_injury(weapon, row.extra_injury_percent)
        ignore_armor = any(e.kind == "ignore_armor" for e in row.effects)
    dealt = base + strength_bonus + skill_bonus + bonus + extra
    pv = 0 if ignore_armor else armor_pv(ix, victim)
    suffered = max(0, dealt - pv)
    out: JSON = {
        "target": victim.id,
        "kind": kind,
        "roll": d10,
        "base": base,
        "strength_bonus": strength_bonus,
        "skill_bonus": skill_bonus,
        "bonus": bonus,
        "extra": extra,
        "dealt": dealt,
        "armor_pv": pv,
        "armor_ignored": ignore_armor,
        "suffered": suffered,
        "critical": None,
    }
    if row is not None:
        out["critical"] = {
            "roll": roll,
            "range": list(row.range),
            "name": row.name,
            "text": row.text,
            "extra_injury_percent": row.extra_injury_percent,
            "penalty": row.penalty.model_dump() if row.penalty else None,
        }
        if row.penalty is not None:
            lose_attribute(victim, row.penalty.attribute, row.penalty.amount, row.name)
            fight.events.append(
                {
                    "kind": "attribute_loss",
                    "target": victim.id,
                    "attribute": row.penalty.attribute,
                    "amount": row.penalty.amount,
                    "permanent": True,
                }
            )
    fight.events.extend(suffer(victim, suffered, combat))
    out["ip"] = victim.ip
    out["status"] = victim.status
    return out, row


def lose_attribute(victim: Combatant, attribute: str, amount: int, source: str) -> None:
    """A permanent attribute loss (only magic or modern medicine cures it)."""
    victim.attributes[attribute] = max(0, victim.attributes[attribute] + amount)
    victim.attribute_losses.append({"attribute": attribute, "amount": amount, "source": source})


def suffer(victim: Combatant, amount: int, combat: Combat) -> list[JSON]:
    """Take ``amount`` IP from the victim and settle what that means."""
    if amount <= 0 or victim.status == DEAD:
        return []
    victim.ip -= amount
    return settle(victim, combat)


def settle(victim: Combatant, combat: Combat) -> list[JSON]:
    """Unconscious at 0 IP or below (death timer HEA/4 rounds); dead below −(HEA/4)."""
    if victim.status == DEAD:
        return []
    health = victim.attributes["HEA"]
    terminal = health // combat.terminal_injury_divisor
    if victim.ip < -terminal:
        victim.status = DEAD
        victim.death_in = None
        victim.actions_left = 0
        return [
            {
                "kind": "dead",
                "target": victim.id,
                "reason": f"injury beyond Terminal Injury ({victim.ip} IP, limit −{terminal})",
            }
        ]
    if victim.ip <= 0 and victim.status == ACTIVE:
        victim.status = UNCONSCIOUS
        victim.death_in = health // combat.death_rounds_divisor
        victim.stabilized = False
        victim.actions_left = 0
        return [{"kind": "unconscious", "target": victim.id, "death_in": victim.death_in}]
    return []
