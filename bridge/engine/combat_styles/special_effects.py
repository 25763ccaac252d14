"""The consequence of every special effect.

Numbers (durations, knockback rates, target limits, resistance skills, size-step grades) are read
from each effect's rule data; the handler for an effect id says what those numbers do. Effects
without a handler of their own get the generic treatment: their resistance roll (if any) is
made and, when it fails, the effect is recorded as a condition on the victim. Narrative effects
are recorded and change nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bridge.engine.combat_styles.checks import (
    CheckResult,
    Level,
    contest_penalty,
    opposed_winner,
    roll_check,
    target,
)
from bridge.engine.combat_styles.combatants import add_condition
from bridge.engine.combat_styles.damage import modifier_expr
from bridge.engine.combat_styles.requests import EffectChoice
from bridge.engine.combat_styles.wounds import apply_wound, armor_points, roll_location
from bridge.engine.contract import JSON, EngineError
from bridge.engine.dice import parse

if TYPE_CHECKING:
    from bridge.engine.combat_styles.finishing import Blow, Finisher

Handler = Callable[["Finisher", EffectChoice, "Blow | None", JSON], None]


def counter_prepared(fx: Finisher) -> None:
    """Prepare Counter: an effect the victim anticipated is cancelled (and the counter used)."""
    if fx.victim is None:
        return
    prepared = fx.victim["conditions"].get("prepared_counter")
    if not prepared:
        return
    for i, c in enumerate(fx.choices):
        if c.id == prepared["effect"]:
            del fx.choices[i]
            del fx.victim["conditions"]["prepared_counter"]
            fx.out["counter"] = {
                "by": fx.victim["id"],
                "cancelled": c.id,
                "note": "the anticipated effect is cancelled; the counter-taker's own effect succeeds automatically",
            }
            return


def _roll_json(result: CheckResult, skill_name: str) -> JSON:
    return {"skill": skill_name, **result.to_json()}


def resist(fx: Finisher, effect_id: str, victim: JSON, grade_steps: int = 0) -> tuple[bool, JSON]:
    """The victim's opposed roll against the taker's original roll. Returns (resisted, record).

    The victim uses the best of the skills the effect allows; Force Failure makes him fail."""
    effect = fx.rules.effects[effect_id]
    res = effect.resisted_by
    if res is None:
        return False, {}
    if effect_id in fx.forced:
        return False, {"force_failure": True}
    skills = list(res.skills)
    if victim.get("quadruped") and res.quadruped_skill:
        skills.append(res.quadruped_skill)
        grade_steps += res.quadruped_grade_steps if res.quadruped_skill == skills[-1] else 0
    name = max(skills, key=lambda s: victim["skills"].get(s, 0))
    skill = victim["skills"].get(name, 0)
    original = fx.original_roll
    checks = fx.rules.checks
    penalty = contest_penalty([skill, original["skill"]])
    grade = checks.shifted(checks.grade(checks.standard), grade_steps) if grade_steps else None
    mine = roll_check(checks, fx.dice, target(checks, skill, grade, 0, penalty), f"1d100 {name}")
    theirs = CheckResult(
        target(checks, original["target"], None), original["roll"], Level.named(original["level"])
    )
    resisted = opposed_winner(mine, theirs) == 1
    return resisted, {**_roll_json(mine, name), "resisted": resisted}


def _wounded(blow: Blow | None, victim: JSON) -> bool:
    return (
        blow is not None and blow.target == victim["id"] and blow.weapon is None and blow.to_hp > 0
    )


def _turns(fx: Finisher, effect_id: str, blow: Blow | None) -> int | None:
    duration = fx.rules.effects[effect_id].params.duration
    if duration is None:
        return None
    if duration.amount == "damage":
        return blow.to_hp if blow else 0
    if duration.amount == "one":
        return 1
    return fx.dice.roll(parse(duration.amount)).total


def _limit_ok(fx: Finisher, effect_id: str, taker: JSON, victim: JSON) -> str | None:
    limit = fx.rules.effects[effect_id].params.target_limit
    if limit is None:
        return None
    mine = taker["characteristics"].get(limit.attribute, 0)
    theirs = victim["characteristics"].get(limit.attribute, 0)
    if theirs > mine * limit.multiple:
        return (
            f"works only on targets up to {limit.multiple}× the taker's {limit.attribute.upper()}"
        )
    return None


def stay_on_feet(fx: Finisher, victim: JSON, options_: tuple[tuple[str, str], ...]) -> JSON:
    """The best chance among the allowed checks (e.g. Easy Acrobatics, Athletics) to stay up."""
    checks = fx.rules.checks
    options = [
        (skill, target(checks, victim["skills"].get(skill, 0), checks.grade(grade)))
        for skill, grade in options_
    ]
    name, tgt = max(options, key=lambda o: o[1].skill)
    result = roll_check(checks, fx.dice, tgt, f"1d100 {name}")
    return {**_roll_json(result, name), "success": result.level.succeeded}


# --- handlers -------------------------------------------------------------------------------


def _needs_wound(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> bool:
    if not _wounded(blow, fx.victim):
        rec["outcome"] = "no effect: the blow did not wound"
        return False
    return True


def _resisted_condition(condition: str, *, wound: bool = False, location: bool = False) -> Handler:
    """A resisted effect that puts ``condition`` on the victim for the effect's duration."""

    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        if wound and not _needs_wound(fx, choice, blow, rec):
            return
        victim = fx.victim
        resisted, roll = resist(fx, choice.id, victim)
        if roll:
            rec["resistance"] = roll
        if resisted:
            rec["outcome"] = "resisted"
            return
        turns = _turns(fx, choice.id, blow)
        extra: dict[str, Any] = {}
        if location and blow is not None:
            extra["location"] = blow.location
        add_condition(victim, condition, turns, **extra)
        rec["outcome"] = condition.replace("_", " ") + (
            f" for {turns} turns" if turns is not None else ""
        )
        rec["condition"] = condition

    return handler


def _condition_on(who: str, condition: str, stack: bool = False) -> Handler:
    """An unresisted effect: ``condition`` on the victim or the taker."""

    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        rec_ = fx.victim if who == "victim" else fx.taker
        turns = _turns(fx, choice.id, blow)
        params = fx.rules.effects[choice.id].params
        if turns is None and params.prevents is not None:
            turns = 1
        old = rec_["conditions"].get(condition)
        if stack and old and old.get("turns") is not None and turns is not None:
            turns += old["turns"]
        add_condition(rec_, condition, turns)
        rec["outcome"] = condition.replace("_", " ")
        rec["condition"] = condition

    return handler


def _noop(note: str) -> Handler:
    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        rec["outcome"] = note

    return handler


def _bleed(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if not _needs_wound(fx, choice, blow, rec):
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
    if not _needs_wound(fx, choice, blow, rec):
        return
    assert blow is not None
    resisted, roll = resist(fx, choice.id, fx.victim)
    rec["resistance"] = roll
    if resisted:
        rec["outcome"] = "resisted"
        return
    turns = _turns(fx, choice.id, blow) or blow.to_hp
    stunned = fx.victim["conditions"].setdefault("stunned", {"turns": None, "locations": {}})
    stunned["locations"][blow.location] = max(turns, stunned["locations"].get(blow.location, 0))
    rec["outcome"] = f"{blow.location} incapacitated for {turns} turns"
    rec["condition"] = "stunned"


def _impale(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rec["outcome"] = "damage rolled twice, the better kept"
    if not _wounded(blow, fx.victim) or not choice.leave_in:
        return
    rules = fx.rules
    arm = rules.arm(fx.pending["weapon"])
    size = arm.impale_size or arm.size
    siz = fx.victim["characteristics"]["siz"]
    grade = impale_grade(rules, siz, size)
    impaled = fx.victim["conditions"].setdefault("impaled", {"turns": None, "grades": [], "by": []})
    impaled["grades"].append(grade)
    impaled["by"].append(fx.taker["id"])
    stuck = fx.taker["conditions"].setdefault("impaled_in", {"turns": None, "weapons": []})
    if not arm.is_ranged:
        stuck["weapons"].append(arm.id)
    rec["outcome"] += f"; the weapon stays in the wound: {grade} on all the victim's skills"
    rec["condition"] = "impaled"


def impale_grade(rules: Any, siz: int, size: str | None) -> str:
    """The impale-table result for a weapon of ``size`` left in a creature of ``siz``."""
    try:
        return str(rules.model.impale_penalty(siz, size or rules.sizes[0]))
    except KeyError as err:
        raise EngineError(str(err).strip("'\"")) from None


def _disarm(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rules = fx.rules
    why = _limit_ok(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
        return
    mine = rules.arm(fx.pending["weapon"] if fx.side == "attacker" else fx.pending["parry_weapon"])
    theirs_id = choice.weapon or (
        fx.pending["parry_weapon"] if fx.side == "attacker" else fx.pending["weapon"]
    )
    if theirs_id is None or theirs_id == rules.unarmed_id:
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
    why = _limit_ok(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
        return
    theirs_id = choice.weapon or (
        fx.pending["parry_weapon"] if fx.side == "attacker" else fx.pending["weapon"]
    )
    if theirs_id is None or theirs_id == fx.rules.unarmed_id:
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
    rec["outcome"] = f"takes the {arm.name}"
    rec["condition"] = "taken"


def _bash(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if blow is None or blow.target != fx.victim["id"]:
        rec["outcome"] = "no effect: the blow did not land"
        return
    why = _limit_ok(fx, choice.id, fx.taker, fx.victim)
    if why:
        rec["outcome"] = f"no effect: {why}"
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
        rec["obstacle_check"] = _roll_json(res, best.skill)
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
    from bridge.engine.combat_styles.finishing import damage_expr

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
    from bridge.engine.combat_styles.finishing import damage_expr

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


def _entangle(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    loc = choice.location or (blow.location if blow else None)
    if loc is None:
        loc = roll_location(fx.rules, fx.dice).id
    location = fx.rules.location(loc)
    add_condition(fx.victim, "entangled", None, location=loc, by=fx.taker["id"])
    if location.limb and location.leg:
        rec["outcome"] = f"{loc} entangled: cannot move"
    elif location.limb:
        rec["outcome"] = f"{loc} entangled: cannot use what it holds"
    else:
        grade = fx.rules.effects[choice.id].params.imposes_grade
        rec["outcome"] = f"{loc} entangled: all skills {grade}"
    rec["condition"] = "entangled"


def _grip(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.victim, "gripped", None, by=fx.taker["id"])
    rec["outcome"] = "gripped: cannot change range or disengage"
    rec["condition"] = "gripped"


def _pin_weapon(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    theirs = choice.weapon or (
        fx.pending["parry_weapon"] if fx.side == "attacker" else fx.pending["weapon"]
    )
    if theirs is None:
        raise EngineError("Pin Weapon needs the weapon or shield to pin (weapon)")
    if theirs not in fx.victim["weapons"]:
        raise EngineError(f"{fx.victim['name']} does not hold {theirs!r}")
    fx.victim["conditions"].setdefault("pinned", {"turns": None, "weapons": []})["weapons"].append(
        theirs
    )
    rec["outcome"] = f"{theirs} pinned"
    rec["condition"] = "pinned"


def _slip_free(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    freed = [c for c in ("entangled", "gripped", "pinned") if fx.taker["conditions"].pop(c, None)]
    rec["outcome"] = "free of " + ", ".join(freed) if freed else "nothing to slip"


def _arise(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    was = fx.taker["conditions"].pop("prone", None)
    rec["outcome"] = "back on his feet" if was else "already standing"


def _withdraw(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    engaged = fx.taker["conditions"].get("engaged", {}).get("with", [])
    if fx.victim["id"] in engaged:
        engaged.remove(fx.victim["id"])
    rec["outcome"] = f"withdraws out of {fx.victim['name']}'s reach"


def _range(longer: bool) -> Handler:
    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        rules = fx.rules
        arms = [a for a in (fx.pending["weapon"], fx.pending["parry_weapon"]) if a]
        reaches = [rules.arm(a).reach for a in arms if rules.arm(a).reach]
        if not reaches:
            rec["outcome"] = "no effect: no reach to favour"
            return
        pick = max if longer else min
        reach = pick(reaches, key=rules.reaches.index)
        fx.out.setdefault("notes", []).append(f"engagement range is now {reach}")
        rec["outcome"] = f"range set to {reach}"
        rec["engaged_reach"] = reach

    return handler


def _prepare_counter(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if choice.counter is None or choice.counter not in fx.rules.effects:
        raise EngineError("Prepare Counter needs the effect to anticipate (counter)")
    fx.taker["conditions"]["prepared_counter"] = {"turns": None, "effect": choice.counter}
    rec["outcome"] = "counter prepared (secret)"
    rec["private"] = True


def _kill_silently(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.victim, "silenced", None)
    rec["outcome"] = (
        "no sound for the round; a serious or major wound fails Endurance automatically"
    )


def _force_failure(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rec["outcome"] = f"{choice.with_effect}: the resistance roll fails automatically"


def _reload(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    n = fx.rules.effects[choice.id].params.reload_reduction or 1
    cond = fx.taker["conditions"].setdefault("rapid_reload", {"turns": None, "turns_off": 0})
    cond["turns_off"] += n
    rec["outcome"] = f"next reload {cond['turns_off']} turn(s) shorter"


def _follow_up(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.taker, "follow_up_attack", 1, effect=choice.id)
    rec["outcome"] = "a follow-up attack is allowed" + (
        " (costs an action point)" if fx.rules.effects[choice.id].params.extra_attack else ""
    )


def _overpenetration(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    share = fx.rules.effects[choice.id].params.second_target_damage
    if blow is None or blow.to_hp <= 0 or share is None:
        rec["outcome"] = "no effect: the shot did not pass through"
        return
    scaled = blow.rolled * share.numerator
    rec["outcome"] = (
        f"passes through: the next target takes {-(-scaled // share.denominator)} damage"
    )


def _wound_gated(note: str) -> Handler:
    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        if _needs_wound(fx, choice, blow, rec):
            rec["outcome"] = note

    return handler


HANDLERS: dict[str, Handler] = {
    "bleed": _bleed,
    "stun_location": _stun,
    "impale": _impale,
    "disarm_opponent": _disarm,
    "take_weapon": _take_weapon,
    "bash": _bash,
    "damage_weapon": _damage_weapon_defender,
    "accidental_injury": _accidental_injury,
    "entangle": _entangle,
    "grip": _grip,
    "pin_weapon": _pin_weapon,
    "slip_free": _slip_free,
    "arise": _arise,
    "withdraw": _withdraw,
    "close_range": _range(longer=False),
    "open_range": _range(longer=True),
    "prepare_counter": _prepare_counter,
    "kill_silently": _kill_silently,
    "force_failure": _force_failure,
    "rapid_reload": _reload,
    "flurry": _follow_up,
    "remise": _follow_up,
    "overpenetration": _overpenetration,
    "trip_opponent": _resisted_condition("prone"),
    "compel_surrender": _resisted_condition("surrendered"),
    "blind_opponent": _resisted_condition("blinded"),
    "drop_foe": _resisted_condition("incapacitated", wound=True),
    "pin_down": _resisted_condition("pinned_down"),
    "press_advantage": _condition_on("victim", "cannot_attack"),
    "overextend_opponent": _condition_on("victim", "cannot_attack", stack=True),
    "weapon_malfunction": _condition_on("victim", "malfunction"),
    "duck_back": _condition_on("taker", "in_cover"),
    "spoil_spell": _wound_gated("the spell being cast is ruined"),
    "maximize_damage": _noop("a damage die counts at its maximum"),
    "bypass_armor": _noop("armour ignored"),
    "choose_location": _noop("location chosen"),
    "marksman": _noop("location moved to an adjoining one"),
    "circumvent_parry": _noop("the parry is ignored"),
    "circumvent_cover": _noop("the cover is ignored"),
    "enhance_parry": _noop("the parry blocks all damage"),
    "select_target": _noop("the blow strikes a bystander"),
    "stand_fast": _noop("no knockback"),
    "sunder": _noop("the damage goes against the armour first"),
}


def _generic(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    effect = fx.rules.effects[choice.id]
    if effect.resisted_by is not None:
        _resisted_condition(choice.id.replace("-", "_"), wound=effect.requires.blow_wounds)(
            fx, choice, blow, rec
        )
    else:
        add_condition(fx.victim, choice.id.replace("-", "_"), _turns(fx, choice.id, blow))
        rec["outcome"] = "applied"


def apply_all(fx: Finisher, blow: Blow | None) -> None:
    """Apply every chosen effect in the order chosen, recording what each did."""
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
