"""One handler per effect kind of the rule data (see ``compiler/model/hmk/effects.py``).

A handler changes the victim (and sometimes the attacker or a bystander), may roll dice, and
appends events describing what happened, so the chat card can show every consequence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arbiter.bridge.engine.contract import JSON
from arbiter.bridge.engine.hmk.injury import Fight, armor_pv, deal
from arbiter.bridge.engine.hmk.state import ACTIVE, Combatant, LastingPenalty
from arbiter.compiler.model.hmk import effects as fx


def apply_all(fight: Fight, effects: Sequence[Any], victim: Combatant, source: str) -> None:
    """Apply ``effects`` in order to ``victim``; ``source`` names the table row."""
    for effect in effects:
        _HANDLERS[effect.kind](fight, effect, victim, source)


def _event(kind: str, victim: Combatant, source: str, **fields: Any) -> JSON:
    return {"kind": kind, "target": victim.id, "source": source, **fields}


def _attribute_roll(fight: Fight, e: fx.AttributeRoll, victim: Combatant, source: str) -> None:
    if victim.status != ACTIVE:
        # One who is down cannot catch himself: the roll fails without dice.
        fight.events.append(
            _event(
                "attribute_roll",
                victim,
                source,
                attribute=e.attribute,
                roll=None,
                target_number=None,
                success=False,
                reason=f"{victim.name} is {victim.status}",
            )
        )
        apply_all(fight, e.on_failure, victim, source)
        return
    target = victim.attributes[e.attribute] + victim.penalty_to(e.attribute)
    die = fight.ix.rules.combat.attribute_roll.die
    roll = fight.dice.die(die, f"1d{die}")
    success = roll <= target
    fight.events.append(
        _event(
            "attribute_roll",
            victim,
            source,
            attribute=e.attribute,
            roll=roll,
            target_number=target,
            success=success,
        )
    )
    if not success:
        apply_all(fight, e.on_failure, victim, source)


def _lose_actions(fight: Fight, e: fx.LoseActions, victim: Combatant, source: str) -> None:
    now = min(e.count, victim.actions_left)
    victim.actions_left -= now
    victim.actions_owed += e.count - now
    fight.events.append(
        _event(
            "lose_actions", victim, source, count=e.count, this_round=now, next_round=e.count - now
        )
    )


def _disarm(fight: Fight, e: fx.Disarm, victim: Combatant, source: str) -> None:
    weapon = victim.weapon
    if weapon is None:
        fight.events.append(_event("disarm", victim, source, weapon=None, feet=None))
        return
    roll = fight.dice.roll(e.distance_die).total
    feet = next(b.feet for b in e.distances if b.range[0] <= roll <= b.range[1])
    gear = victim.gear[weapon]
    gear.where, gear.distance_feet = "disarmed", feet
    victim.weapon = None
    fight.events.append(_event("disarm", victim, source, weapon=weapon, roll=roll, feet=feet))


def _bonus_strike(fight: Fight, e: fx.BonusStrike, victim: Combatant, source: str) -> None:
    attacker = fight.attacker
    if victim is not fight.defender:
        fight.events.append(_event("bonus_strike", attacker, source, count=0))
        return
    attacker.bonus_strikes += e.count
    fight.events.append(_event("bonus_strike", attacker, source, count=e.count))


def _ignore_armor(fight: Fight, e: fx.IgnoreArmor, victim: Combatant, source: str) -> None:
    # The injury was already computed without PV (see injury.deal); record it for the card.
    fight.events.append(_event("ignore_armor", victim, source))


def _lose_rounds(fight: Fight, e: fx.LoseRounds, victim: Combatant, source: str) -> None:
    victim.lost_rounds += e.rounds
    fight.events.append(_event("lose_rounds", victim, source, rounds=e.rounds))


def _break_weapon(fight: Fight, e: fx.BreakWeapon, victim: Combatant, source: str) -> None:
    weapon = victim.weapon
    if weapon is None:
        fight.events.append(_event("break_weapon", victim, source, weapon=None, broken=False))
        return
    chance = e.chance
    if e.strength_bonus:
        chance += victim.attributes["STR"] // fight.ix.rules.combat.strength_divisor
    roll = None if chance >= e.die else fight.dice.die(e.die, f"1d{e.die}")
    broken = roll is None or roll <= chance
    if broken:
        victim.gear[weapon].broken = True
        victim.weapon = None
    fight.events.append(
        _event(
            "break_weapon",
            victim,
            source,
            weapon=weapon,
            chance=min(chance, e.die),
            roll=roll,
            broken=broken,
        )
    )


def _armor_loss(fight: Fight, e: fx.ArmorLoss, victim: Combatant, source: str) -> None:
    before = armor_pv(fight.ix, victim)
    lost = min(e.amount, before)
    victim.armor_loss += lost
    fight.events.append(
        _event("armor_loss", victim, source, armor=victim.armor, amount=lost, pv=before - lost)
    )


def _knockout(fight: Fight, e: fx.Knockout, victim: Combatant, source: str) -> None:
    rounds = fight.dice.roll(e.rounds).total
    victim.knocked_out = max(victim.knocked_out, rounds)
    victim.out_this_round = True
    victim.actions_left = 0
    fight.events.append(_event("knockout", victim, source, rounds=rounds))


def _penalty(fight: Fight, e: fx.Penalty, victim: Combatant, source: str) -> None:
    hand = None
    roll = None
    if e.hand_die is not None:
        roll = fight.dice.roll(e.hand_die).total
        hand = next(b.hand for b in e.hands if b.range[0] <= roll <= b.range[1])
    victim.penalties.append(
        LastingPenalty(tuple(e.targets), e.amount, source, e.requires_shield, hand)
    )
    fight.events.append(
        _event(
            "penalty",
            victim,
            source,
            targets=list(e.targets),
            amount=e.amount,
            requires_shield=e.requires_shield,
            hand=hand,
            roll=roll,
        )
    )


def _bleeding(fight: Fight, e: fx.Bleeding, victim: Combatant, source: str) -> None:
    victim.bleeding.append({"per_round": e.per_round, "source": source})
    fight.events.append(_event("bleeding", victim, source, per_round=e.per_round))


def _incapacitated(fight: Fight, e: fx.Incapacitated, victim: Combatant, source: str) -> None:
    victim.incapacitated = True
    victim.actions_left = 0
    fight.events.append(_event("incapacitated", victim, source))


def _condition(fight: Fight, e: fx.Condition, victim: Combatant, source: str) -> None:
    victim.conditions.append({"name": e.name, "text": e.text, "source": source})
    fight.events.append(_event("condition", victim, source, name=e.name, text=e.text))


def _fall(fight: Fight, e: fx.Fall, victim: Combatant, source: str) -> None:
    victim.prone = True
    fight.events.append(_event("fall", victim, source))


def _drop_weapon(fight: Fight, e: fx.DropWeapon, victim: Combatant, source: str) -> None:
    weapon = victim.weapon
    if weapon is not None:
        victim.gear[weapon].where = "dropped"
        victim.weapon = None
    fight.events.append(_event("drop_weapon", victim, source, weapon=weapon))


def _walk_only(fight: Fight, e: fx.WalkOnly, victim: Combatant, source: str) -> None:
    roll = fight.dice.roll(e.days).total
    rounding = fight.ix.rules.combat.walk_only.rounding
    days = -(-roll // e.divisor) if rounding == "up" else roll // e.divisor
    victim.walk_only_days = max(victim.walk_only_days, days)
    fight.events.append(_event("walk_only", victim, source, roll=roll, days=days))


def _strike_bystander(fight: Fight, e: fx.StrikeBystander, victim: Combatant, source: str) -> None:
    bystander = fight.bystander
    if bystander is None:
        fight.events.append(
            _event(
                "strike_bystander",
                victim,
                source,
                bystander=None,
                injury=None,
                reason="no bystander was named, so the blow strikes no one",
            )
        )
        return
    _blow(fight, "strike_bystander", victim, bystander, e.injury, e.bonus, source)


def _wound_self(fight: Fight, e: fx.WoundSelf, victim: Combatant, source: str) -> None:
    _blow(fight, "wound_self", victim, victim, e.injury, e.bonus, source)


def _blow(
    fight: Fight,
    kind: str,
    striker: Combatant,
    victim: Combatant,
    injury: str,
    bonus: int,
    source: str,
) -> None:
    event = _event(kind, striker, source, bystander=victim.id, injury=None)
    fight.events.append(event)
    event["injury"], row = deal(fight, striker, victim, injury, bonus)
    if row is not None:
        apply_all(fight, row.effects, victim, row.name)


def _opened(fight: Fight, e: fx.OpenedToStrike, victim: Combatant, source: str) -> None:
    victim.opened = True
    victim.free_strikes_taken = []
    fight.events.append(_event("opened_to_strike", victim, source, reach_feet=e.reach_feet))


_HANDLERS: dict[str, Callable[[Fight, Any, Combatant, str], None]] = {
    "attribute_roll": _attribute_roll,
    "lose_actions": _lose_actions,
    "disarm": _disarm,
    "bonus_strike": _bonus_strike,
    "ignore_armor": _ignore_armor,
    "lose_rounds": _lose_rounds,
    "break_weapon": _break_weapon,
    "armor_loss": _armor_loss,
    "knockout": _knockout,
    "penalty": _penalty,
    "bleeding": _bleeding,
    "incapacitated": _incapacitated,
    "condition": _condition,
    "fall": _fall,
    "drop_weapon": _drop_weapon,
    "walk_only": _walk_only,
    "strike_bystander": _strike_bystander,
    "wound_self": _wound_self,
    "opened_to_strike": _opened,
}

HANDLED_KINDS = frozenset(_HANDLERS)
"""The effect kinds this engine applies (every kind the rule model allows; see the tests)."""
