"""Special effects that work through the wound a blow inflicts: Bleed, Stun Location, Impale
(and the weapon left in the wound), and Accidental Injury's blow against the attacker himself."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.hands import stun_arm
from arbiter.bridge.engine.combat_styles.core.traits import stun_unit
from arbiter.bridge.engine.combat_styles.effects.effect_rolls import (
    duration_turns,
    needs_wound,
    resist,
    wounded,
)
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher, damage_expr
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.combat_styles.encounter.wounds import (
    apply_wound,
    armor_points,
    roll_location,
)
from arbiter.bridge.engine.contract import JSON, EngineError


def bleed(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if not needs_wound(fx, choice, blow, rec):
        return
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    per_round = fx.rules.effects[choice.id].params.fatigue_per_round
    add_condition(fx.victim, "bleeding", None, fatigue_per_round=per_round)
    rec["outcome"] = f"bleeding: loses {per_round} fatigue level at the start of each round"
    rec["condition"] = "bleeding"


def stun(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if not needs_wound(fx, choice, blow, rec):
        return
    assert blow is not None and blow.location is not None  # needs_wound: a wound has a location
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    turns = duration_turns(fx, choice.id, blow) or blow.to_hp
    # The condition's duration in turns (None: kept in its own unit until removed).
    counted: int | None = turns
    stunned = fx.victim.conditions.setdefault("stunned", {"turns": None, "locations": {}})
    unit = stun_unit(fx.rules, fx.taker, fx.pending.surprised)
    if unit is None:
        stunned["locations"][blow.location] = max(turns, stunned["locations"].get(blow.location, 0))
        rec["outcome"] = f"{blow.location} incapacitated for {turns} turns"
    else:
        # Knockout Blow on a surprised victim: the stun outlasts the fight's turn count, so it
        # is kept (in its own unit) until removed, like any duration not counted in turns.
        lasting = stunned.setdefault(unit, {})
        lasting[blow.location] = max(turns, lasting.get(blow.location, 0))
        rec["outcome"] = f"{blow.location} incapacitated for {turns} {unit}"
        rec["lasting"] = f"{turns} {unit}"
        counted = None
    rec["condition"] = "stunned"
    location = fx.rules.location(blow.location)
    if not location.limb:
        # A stunned torso can only defend; a stunned head (the effect's senseless_locations)
        # leaves the victim insensible.
        senseless = location.id in fx.rules.effects[choice.id].params.senseless_locations
        condition = "incapacitated" if senseless else "cannot_attack"
        add_condition(fx.victim, condition, counted)
        rec["outcome"] += "; insensible" if senseless else "; only able to defend"
    elif not location.leg:
        # A numbed arm can neither strike nor parry (hands.py); it may let go of its weapon.
        dropped = stun_arm(fx.rules, fx.victim, location.id)
        if dropped:
            rec["dropped"] = dropped
            rec["outcome"] += "; drops " + ", ".join(dropped)
    elif fx.rules.effects[choice.id].params.leg_falls_prone:
        add_condition(fx.victim, "prone")
        rec["outcome"] += "; falls prone"


def impale(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rec["outcome"] = "damage rolled twice, the better kept"
    if blow is None or not wounded(blow, fx.victim) or not choice.leave_in:
        return
    rules = fx.rules
    arm = rules.arm(fx.pending.weapon)
    size = arm.impale_size or arm.size
    siz = fx.victim.characteristics["siz"]
    grade = impale_grade(rules, siz, size)
    impaled = fx.victim.conditions.setdefault(
        "impaled", {"turns": None, "grades": [], "by": [], "wounds": []}
    )
    impaled["grades"].append(grade)
    impaled["by"].append(fx.taker.id)
    impaled["wounds"].append({"by": fx.taker.id, "weapon": arm.id, "location": blow.location})
    stuck = fx.taker.conditions.setdefault(
        "impaled_in", {"turns": None, "weapons": [], "victims": {}}
    )
    if not arm.is_ranged:
        stuck["weapons"].append(arm.id)
        stuck["victims"][arm.id] = fx.victim.id
    rec["outcome"] += f"; the weapon stays in the wound: {grade} on all the victim's skills"
    rec["condition"] = "impaled"


def impale_grade(rules: Any, siz: int, size: str | None) -> str:
    """The impale-table result for a weapon of ``size`` left in a creature of ``siz``."""
    try:
        return str(rules.model.impale_penalty(siz, size or rules.sizes[0]))
    except KeyError as err:
        raise EngineError(str(err).strip("'\"")) from None


def accidental_injury(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rules = fx.rules
    att = fx.attacker
    arm = rules.arm(fx.pending.weapon)
    weapon, dm = damage_expr(rules, arm, att, 0, 0)
    rolled = max(0, fx.dice.roll(weapon).total + (fx.dice.roll(dm).total if dm else 0))
    loc = roll_location(rules, fx.dice, victim=att)
    unarmed = arm.kind == "unarmed" and rules.effects[choice.id].params.unarmed_ignores_armor
    counted = 0 if unarmed else armor_points(att, loc.id, [])[2]
    to_hp = max(0, rolled - counted)
    out: JSON = {"location": loc.id, "damage": rolled, "armor": counted, "to_hit_points": to_hp}
    if to_hp:
        # The roll the wound's Endurance test opposes: the defence that won the effect.
        opposed: Any = fx.pending.defence_roll
        out["wound"] = apply_wound(
            rules,
            fx.dice,
            att,
            loc,
            to_hp,
            opposed,
            mitigate=att.id in fx.pending.mitigate,
        )
    rec["outcome"] = f"the attacker injures himself: {to_hp} to {loc.id}"
    fx.out["self_injury"] = out
