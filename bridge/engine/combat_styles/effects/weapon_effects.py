"""Special effects aimed at a weapon: Disarm Opponent (with size steps), Take Weapon, Damage
Weapon, and a fumbled firearm's Weapon Malfunction."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.damage import modifier_expr
from arbiter.bridge.engine.combat_styles.core.hands import grab
from arbiter.bridge.engine.combat_styles.effects.effect_rolls import resist, target_limit_refusal
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher, damage_expr
from arbiter.bridge.engine.contract import JSON, EngineError


def opponents_weapon(fx: Finisher, choice: EffectChoice) -> str | None:
    """The weapon an effect aims at: the one named, else the one the opponent used in the
    exchange, else the first he carries (None if he has only his hands)."""
    victim = fx.victim
    if choice.weapon is not None:
        if choice.weapon not in victim.weapons:
            raise EngineError(f"{victim.name} does not hold {choice.weapon!r}")
        return None if choice.weapon == fx.rules.unarmed_id else choice.weapon
    used = fx.pending.parry_weapon if fx.side == "attacker" else fx.pending.weapon
    if used is not None and used != fx.rules.unarmed_id:
        return used
    return next((w for w in victim.weapons if w != fx.rules.unarmed_id), None)


def disarm(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rules = fx.rules
    why = target_limit_refusal(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
        return
    mine_id = fx.pending.weapon if fx.side == "attacker" else fx.pending.parry_weapon
    mine = rules.arm(mine_id or rules.unarmed_id)
    theirs_id = opponents_weapon(fx, choice)
    if theirs_id is None:
        rec["outcome"] = "no effect: the opponent holds no weapon"
        return
    theirs = rules.arm(theirs_id)
    per_step = fx.rules.effects[choice.id].resisted_by.grade_per_size_step
    steps = (
        (rules.sizes.index(mine.size) - rules.sizes.index(theirs.size)) * per_step
        if mine.size and theirs.size
        else 0
    )
    resisted, roll = resist(fx, choice.id, fx.victim, steps)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    flung = 0
    dm = modifier_expr(fx.taker.damage_modifier)
    if dm is not None and rules.effects[choice.id].params.flung_metres:
        flung = max(0, fx.dice.roll(dm).total)
    disarmed = fx.victim.conditions.setdefault("disarmed", {"turns": None, "weapons": []})
    disarmed["weapons"].append(theirs_id)
    rec["outcome"] = (
        f"{theirs.name} flies {flung} m" if flung else f"{theirs.name} drops at the victim's feet"
    )
    rec["condition"] = "disarmed"


def take_weapon(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    why = target_limit_refusal(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
        return
    theirs_id = opponents_weapon(fx, choice)
    if theirs_id is None:
        rec["outcome"] = "no effect: the opponent holds no weapon"
        return
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    fx.victim.conditions.setdefault("taken", {"turns": None, "weapons": []})["weapons"].append(
        theirs_id
    )
    arm = fx.rules.arm(theirs_id)
    fx.taker.weapons.setdefault(theirs_id, {"hp": arm.hp, "broken": False})
    grab(fx.rules, fx.taker, theirs_id)  # "from that moment on, may be used by the character"
    rec["outcome"] = f"takes the {arm.name}"
    rec["condition"] = "taken"


def damage_weapon_defender(
    fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON
) -> None:
    if fx.side == "attacker":
        rec["outcome"] = (
            "the damage goes to the parrying weapon"
            if blow and blow.weapon
            else "no effect: no parrying weapon"
        )
        return
    rules = fx.rules
    parry_id = fx.pending.parry_weapon
    if parry_id is None:
        rec["outcome"] = "no effect: the defender did not parry with a weapon"
        return
    mine = rules.arm(parry_id)
    theirs_id = fx.pending.weapon
    theirs = rules.arm(theirs_id)
    weapon, dm = damage_expr(rules, mine, fx.taker, 0, 0)
    rolled = fx.dice.roll(weapon).total + (fx.dice.roll(dm).total if dm else 0)
    through = max(0, rolled - theirs.ap)
    state = fx.victim.weapons[theirs_id]
    state["hp"] -= through
    if state["hp"] <= 0:
        state["broken"] = True
    rec["outcome"] = (
        f"{theirs.name} takes {through} ({state['hp']} HP left{', broken' if state['broken'] else ''})"
    )
    fx.out["weapon_damage"] = {
        "weapon": theirs_id,
        "rolled": rolled,
        "armor": theirs.ap,
        "damage": through,
    }


def weapon_malfunction(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    weapon = fx.pending.weapon
    jammed = fx.victim.conditions.setdefault("malfunction", {"turns": None, "weapons": []})
    jammed["weapons"].append(weapon)
    rec["outcome"] = f"{fx.rules.arm(weapon).name} is useless until repaired"
    rec["condition"] = "malfunction"
