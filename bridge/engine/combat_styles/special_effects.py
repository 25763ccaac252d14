"""The consequence of every special effect.

Numbers (durations, knockback rates, target limits, resistance skills, size-step grades) are read
from each effect's rule data; the handler for an effect id says what those numbers do. Effects
without a handler of their own get the generic treatment: their resistance roll (if any) is
made and, when it fails, the effect is recorded as a condition on the victim. Narrative effects
are recorded and change nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bridge.engine.combat_styles.blows import Blow, Finisher, damage_expr
from bridge.engine.combat_styles.checks import (
    roll_check,
    target,
)
from bridge.engine.combat_styles.combatants import add_condition
from bridge.engine.combat_styles.damage import modifier_expr
from bridge.engine.combat_styles.effect_rolls import (
    Handler,
    condition_on,
    duration_turns,
    needs_wound,
    noop,
    resist,
    resisted_condition,
    roll_json,
    target_limit_refusal,
    wound_gated,
    wounded,
)
from bridge.engine.combat_styles.hands import grab
from bridge.engine.combat_styles.manoeuvres import (
    arise,
    entangle,
    follow_up,
    force_failure,
    grip,
    kill_silently,
    overpenetration,
    pin_weapon,
    prepare_counter,
    reload,
    set_range,
    slip_free,
    withdraw,
)
from bridge.engine.combat_styles.requests import EffectChoice
from bridge.engine.combat_styles.wounds import apply_wound, armor_points, roll_location
from bridge.engine.contract import JSON, EngineError


def _bleed(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if not needs_wound(fx, choice, blow, rec):
        return
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    per_round = fx.rules.effects[choice.id].params.fatigue_per_round or 1
    add_condition(fx.victim, "bleeding", None, fatigue_per_round=per_round)
    rec["outcome"] = f"bleeding: loses {per_round} fatigue level at the start of each round"
    rec["condition"] = "bleeding"


def _stun(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if not needs_wound(fx, choice, blow, rec):
        return
    assert blow is not None
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    turns = duration_turns(fx, choice.id, blow) or blow.to_hp
    stunned = fx.victim["conditions"].setdefault("stunned", {"turns": None, "locations": {}})
    stunned["locations"][blow.location] = max(turns, stunned["locations"].get(blow.location, 0))
    rec["outcome"] = f"{blow.location} incapacitated for {turns} turns"
    rec["condition"] = "stunned"
    location = fx.rules.location(blow.location)
    if not location.limb:
        # A stunned torso can only defend; a stunned head leaves the victim insensible.
        head = location.id == "head"
        condition = "incapacitated" if head else "cannot_attack"
        add_condition(fx.victim, condition, turns)
        rec["outcome"] += "; insensible" if head else "; only able to defend"


def _impale(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rec["outcome"] = "damage rolled twice, the better kept"
    if not wounded(blow, fx.victim) or not choice.leave_in:
        return
    rules = fx.rules
    arm = rules.arm(fx.pending["weapon"])
    size = arm.impale_size or arm.size
    siz = fx.victim["characteristics"]["siz"]
    grade = impale_grade(rules, siz, size)
    impaled = fx.victim["conditions"].setdefault(
        "impaled", {"turns": None, "grades": [], "by": [], "wounds": []}
    )
    impaled["grades"].append(grade)
    impaled["by"].append(fx.taker["id"])
    impaled["wounds"].append({"by": fx.taker["id"], "weapon": arm.id, "location": blow.location})
    stuck = fx.taker["conditions"].setdefault(
        "impaled_in", {"turns": None, "weapons": [], "victims": {}}
    )
    if not arm.is_ranged:
        stuck["weapons"].append(arm.id)
        stuck["victims"][arm.id] = fx.victim["id"]
    rec["outcome"] += f"; the weapon stays in the wound: {grade} on all the victim's skills"
    rec["condition"] = "impaled"


def impale_grade(rules: Any, siz: int, size: str | None) -> str:
    """The impale-table result for a weapon of ``size`` left in a creature of ``siz``."""
    try:
        return str(rules.model.impale_penalty(siz, size or rules.sizes[0]))
    except KeyError as err:
        raise EngineError(str(err).strip("'\"")) from None


def opponents_weapon(fx: Finisher, choice: EffectChoice) -> str | None:
    """The weapon an effect aims at: the one named, else the one the opponent used in the
    exchange, else the first he carries (None if he has only his hands)."""
    victim = fx.victim
    if choice.weapon is not None:
        if choice.weapon not in victim["weapons"]:
            raise EngineError(f"{victim['name']} does not hold {choice.weapon!r}")
        return None if choice.weapon == fx.rules.unarmed_id else choice.weapon
    used = fx.pending["parry_weapon"] if fx.side == "attacker" else fx.pending["weapon"]
    if used is not None and used != fx.rules.unarmed_id:
        return used
    return next((w for w in victim["weapons"] if w != fx.rules.unarmed_id), None)


def _disarm(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rules = fx.rules
    why = target_limit_refusal(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
        return
    mine_id = fx.pending["weapon"] if fx.side == "attacker" else fx.pending["parry_weapon"]
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
    dm = modifier_expr(fx.taker["damage_modifier"])
    if dm is not None and rules.effects[choice.id].params.flung_metres:
        flung = max(0, fx.dice.roll(dm).total)
    disarmed = fx.victim["conditions"].setdefault("disarmed", {"turns": None, "weapons": []})
    disarmed["weapons"].append(theirs_id)
    rec["outcome"] = (
        f"{theirs.name} flies {flung} m" if flung else f"{theirs.name} drops at the victim's feet"
    )
    rec["condition"] = "disarmed"


def _take_weapon(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
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
    fx.victim["conditions"].setdefault("taken", {"turns": None, "weapons": []})["weapons"].append(
        theirs_id
    )
    arm = fx.rules.arm(theirs_id)
    fx.taker["weapons"].setdefault(theirs_id, {"hp": arm.hp, "broken": False})
    grab(fx.rules, fx.taker, theirs_id)  # "from that moment on, may be used by the character"
    rec["outcome"] = f"takes the {arm.name}"
    rec["condition"] = "taken"


def _bash(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if blow is None or blow.target != fx.victim["id"]:
        rec["outcome"] = "no effect: the blow did not land"
        return
    braced = (
        fx.pending["situation"]["defender_braced"] and fx.victim["id"] == fx.pending["defender"]
    )
    scale = fx.rules.brace_vs_bash if braced else None
    why = target_limit_refusal(fx, choice.id, fx.taker, fx.victim, scale)
    if why:
        rec["outcome"] = f"no effect: {why}" + (" (braced)" if braced else "")
        return
    arm = fx.rules.arm(fx.pending["weapon"])
    rates = {
        r.weapon_kind: r.damage_per_metre for r in fx.rules.effects[choice.id].params.knockback
    }
    per = (
        rates.get("shield")
        if arm.kind == "shield"
        else rates.get("melee", min(rates.values(), default=3))
    )
    metres = blow.rolled // per if per else 0
    rec["outcome"] = f"knocked back {metres} m"
    rec["metres"] = metres
    if fx.pending["situation"]["obstacle"] and metres > 0:
        checks = fx.rules.effects[choice.id].params.obstacle_checks
        best = max(checks, key=lambda c: fx.victim["skills"].get(c.skill, 0))
        res = roll_check(
            fx.rules.checks,
            fx.dice,
            target(
                fx.rules.checks, fx.victim["skills"][best.skill], fx.rules.checks.grade(best.grade)
            ),
            f"1d100 {best.skill}",
        )
        rec["obstacle_check"] = roll_json(res, best.skill)
        if not res.level.succeeded:
            add_condition(fx.victim, "prone")
            rec["outcome"] += " into an obstacle: falls"


def _damage_weapon_defender(
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
    parry_id = fx.pending["parry_weapon"]
    if parry_id is None:
        rec["outcome"] = "no effect: the defender did not parry with a weapon"
        return
    mine = rules.arm(parry_id)
    theirs_id = fx.pending["weapon"]
    theirs = rules.arm(theirs_id)
    weapon, dm = damage_expr(rules, mine, fx.taker, 0, 0)
    rolled = fx.dice.roll(weapon).total + (fx.dice.roll(dm).total if dm else 0)
    through = max(0, rolled - theirs.ap)
    state = fx.victim["weapons"][theirs_id]
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


def _accidental_injury(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rules = fx.rules
    att = fx.attacker
    arm = rules.arm(fx.pending["weapon"])
    weapon, dm = damage_expr(rules, arm, att, 0, 0)
    rolled = max(0, fx.dice.roll(weapon).total + (fx.dice.roll(dm).total if dm else 0))
    loc = roll_location(rules, fx.dice)
    unarmed = arm.kind == "unarmed" and rules.effects[choice.id].params.unarmed_ignores_armor
    counted = 0 if unarmed else armor_points(att, loc.id, [])[2]
    to_hp = max(0, rolled - counted)
    out: JSON = {"location": loc.id, "damage": rolled, "armor": counted, "to_hit_points": to_hp}
    if to_hp:
        out["wound"] = apply_wound(rules, fx.dice, att, loc, to_hp, fx.pending["defence_roll"])
    rec["outcome"] = f"the attacker injures himself: {to_hp} to {loc.id}"
    fx.out["self_injury"] = out


def weapon_malfunction(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    weapon = fx.pending["weapon"]
    jammed = fx.victim["conditions"].setdefault("malfunction", {"turns": None, "weapons": []})
    jammed["weapons"].append(weapon)
    rec["outcome"] = f"{fx.rules.arm(weapon).name} is useless until repaired"
    rec["condition"] = "malfunction"


HANDLERS: dict[str, Handler] = {
    "bleed": _bleed,
    "stun_location": _stun,
    "impale": _impale,
    "disarm_opponent": _disarm,
    "take_weapon": _take_weapon,
    "bash": _bash,
    "damage_weapon": _damage_weapon_defender,
    "accidental_injury": _accidental_injury,
    "entangle": entangle,
    "grip": grip,
    "pin_weapon": pin_weapon,
    "slip_free": slip_free,
    "arise": arise,
    "withdraw": withdraw,
    "close_range": set_range,
    "open_range": set_range,
    "prepare_counter": prepare_counter,
    "kill_silently": kill_silently,
    "force_failure": force_failure,
    "rapid_reload": reload,
    "flurry": follow_up,
    "remise": follow_up,
    "overpenetration": overpenetration,
    "trip_opponent": resisted_condition("prone"),
    "compel_surrender": resisted_condition("surrendered"),
    "blind_opponent": resisted_condition("blinded"),
    "drop_foe": resisted_condition("incapacitated", wound=True),
    "pin_down": resisted_condition("pinned_down"),
    "press_advantage": condition_on("victim", "cannot_attack"),
    "overextend_opponent": condition_on("victim", "cannot_attack", stack=True),
    "weapon_malfunction": weapon_malfunction,
    "duck_back": condition_on("taker", "in_cover"),
    "spoil_spell": wound_gated("the spell being cast is ruined"),
    "maximize_damage": noop("a damage die counts at its maximum"),
    "bypass_armor": noop("armour ignored"),
    "choose_location": noop("location chosen"),
    "marksman": noop("location moved to an adjoining one"),
    "circumvent_parry": noop("the parry is ignored"),
    "circumvent_cover": noop("the cover is ignored"),
    "enhance_parry": noop("the parry blocks all damage"),
    "select_target": noop("the blow strikes a bystander"),
    "stand_fast": noop("no knockback"),
    "sunder": noop("the damage goes against the armour first"),
}


def _generic(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    effect = fx.rules.effects[choice.id]
    if effect.params.sets_range is not None:
        set_range(fx, choice, blow, rec)
    elif effect.resisted_by is not None:
        resisted_condition(choice.id.replace("-", "_"), wound=effect.requires.blow_wounds)(
            fx, choice, blow, rec
        )
    else:
        add_condition(fx.victim, choice.id.replace("-", "_"), duration_turns(fx, choice.id, blow))
        rec["outcome"] = "applied"


def apply_counter(fx: Finisher) -> None:
    """Prepare Counter sprung: the counter-taker's own effect replaces the cancelled one and
    succeeds automatically (its resistance roll, if any, is failed)."""
    counter = fx.out.get("counter")
    if not counter or not counter.get("substitute") or fx.victim is None or fx.taker is None:
        return
    substitute = counter["substitute"]
    swapped = replace(
        fx,
        choices=[EffectChoice(id=substitute)],
        side="defender" if fx.side == "attacker" else "attacker",
        taker=fx.victim,
        victim=fx.taker,
        applied=[],
        forced={substitute},
    )
    effect = fx.rules.effects[substitute]
    rec: JSON = {"id": substitute, "name": effect.name, "by_counter": True}
    if effect.narrative:
        rec["narrative"] = True
        rec["outcome"] = "recorded"
    else:
        HANDLERS.get(substitute, _generic)(swapped, EffectChoice(id=substitute), None, rec)
    fx.applied.append(rec)


def escapes(fx: Finisher) -> None:
    """Winning certain effects also frees the winner from a hold (an Entangle escapes by
    Damage Weapon, Disarm Opponent or Slip Free), as each hold's ``escape`` data lists."""
    if fx.taker is None or not fx.choices:
        return
    chosen = {c.id for c in fx.choices}
    for condition, effect_id in (
        ("entangled", "entangle"),
        ("gripped", "grip"),
        ("pinned", "pin_weapon"),
    ):
        hold = fx.taker["conditions"].get(condition)
        escape = fx.rules.effects[effect_id].escape if effect_id in fx.rules.effects else None
        if hold and escape is not None and chosen & set(escape.also_by_effects):
            del fx.taker["conditions"][condition]
            fx.out.setdefault("notes", []).append(f"{fx.taker['name']} breaks free ({condition})")


def apply_all(fx: Finisher, blow: Blow | None) -> None:
    """Apply every chosen effect in the order chosen, recording what each did."""
    escapes(fx)
    for choice in fx.choices:
        effect = fx.rules.effects[choice.id]
        rec: JSON = {"id": choice.id, "name": effect.name}
        if effect.narrative:
            rec["narrative"] = True
            rec["outcome"] = "recorded"
            fx.victim.setdefault("marks", []).append(choice.id) if fx.victim is not None else None
        else:
            HANDLERS.get(choice.id, _generic)(fx, choice, blow, rec)
        fx.applied.append(rec)
