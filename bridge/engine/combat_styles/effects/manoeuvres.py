"""Special effects that hold, free, move or prepare: Entangle, Grip, Pin Weapon, Slip Free,
Arise, Withdraw, Close/Open Range, Prepare Counter, Kill Silently, Force Failure, Rapid Reload,
Flurry/Remise, Overpenetration."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.combat_styles.encounter.wounds import roll_location
from arbiter.bridge.engine.combat_styles.riding.astride import release
from arbiter.bridge.engine.contract import JSON, EngineError


def entangle(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    loc = choice.location or (blow.location if blow else None)
    if loc is None:
        loc = roll_location(fx.rules, fx.dice, victim=fx.victim).id
    location = fx.rules.location(loc)
    add_condition(fx.victim, "entangled", None, location=loc, by=fx.taker.id)
    if location.limb and location.leg:
        rec["outcome"] = f"{loc} entangled: cannot move"
    elif location.limb:
        rec["outcome"] = f"{loc} entangled: cannot use what it holds"
    else:
        grade = fx.rules.effects[choice.id].params.imposes_grade
        rec["outcome"] = f"{loc} entangled: all skills {grade}"
    rec["condition"] = "entangled"


def grip(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.victim, "gripped", None, by=fx.taker.id)
    rec["outcome"] = "gripped: cannot change range or disengage"
    rec["condition"] = "gripped"


def pin_weapon(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    theirs = choice.weapon or (
        fx.pending.parry_weapon if fx.side == "attacker" else fx.pending.weapon
    )
    if theirs is None:
        carried = [w for w in fx.victim.weapons if w != fx.rules.unarmed_id]
        theirs = carried[0] if carried else None
    if theirs is None:
        rec["outcome"] = "no effect: nothing to pin"
        return
    if theirs not in fx.victim.weapons:
        raise EngineError(f"{fx.victim.name} does not hold {theirs!r}")
    pinned = fx.victim.conditions.setdefault(
        "pinned", {"turns": None, "weapons": [], "by": fx.taker.id}
    )
    pinned["weapons"].append(theirs)
    rec["outcome"] = f"{theirs} pinned"
    rec["condition"] = "pinned"


def slip_free(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    frees = fx.rules.effects[choice.id].params.frees
    freed = [c for c in frees if fx.taker.conditions.pop(c, None)]
    rec["outcome"] = "free of " + ", ".join(freed) if freed else "nothing to slip"


def arise(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    was = fx.taker.conditions.pop("prone", None)
    rec["outcome"] = "back on his feet" if was else "already standing"


def withdraw(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    engaged = fx.taker.conditions.get("engaged", {}).get("with", [])
    if fx.victim.id in engaged:
        engaged.remove(fx.victim.id)
    rec["outcome"] = f"withdraws out of {fx.victim.name}'s reach"
    brace.lose(fx.rules, fx.taker, "withdrawing")
    # Out of reach, a leaper has left his victim, and a victim is no longer under him.
    if release(fx.taker, fx.victim):
        rec["outcome"] += f", no longer astride {fx.victim.name}"
    elif release(fx.victim, fx.taker):
        rec["outcome"] += f", out from under {fx.victim.name}"


def set_range(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    """Set the engagement range to the one the effect's ``sets_range`` favours: the shorter
    or the longer of the two weapons' reaches."""
    rules = fx.rules
    sets = rules.effects[choice.id].params.sets_range
    if sets is None:
        raise EngineError(f"{rules.effects[choice.id].name} has no sets_range in the rule data")
    arms = [a for a in (fx.pending.weapon, fx.pending.parry_weapon) if a]
    reaches = [rules.arm(a).reach for a in arms if rules.arm(a).reach]
    if not reaches:
        rec["outcome"] = "no effect: no reach to favour"
        return
    pick = max if sets == "longer" else min
    reach = pick(reaches, key=rules.reaches.index)
    fx.out.setdefault("notes", []).append(f"engagement range is now {reach}")
    rec["outcome"] = f"range set to {reach}"
    rec["engaged_reach"] = reach


def prepare_counter(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if choice.counter is None or choice.counter not in fx.rules.effects:
        raise EngineError("Prepare Counter needs the effect to anticipate (counter)")
    substitute = choice.with_effect
    if substitute is not None and substitute not in fx.rules.effects:
        raise EngineError(f"unknown special effect {substitute!r} to substitute")
    fx.taker.conditions["prepared_counter"] = {
        "turns": None,
        "effect": choice.counter,
        "substitute": substitute,
    }
    rec["outcome"] = "counter prepared (secret)"
    fx.out.setdefault("private", {})[fx.taker.id] = {
        "prepared_counter": choice.counter,
        "substitute": substitute,
    }


def kill_silently(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.victim, "silenced", None)
    rec["outcome"] = (
        "no sound for the round; a serious or major wound fails Endurance automatically"
    )


def force_failure(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    rec["outcome"] = f"{choice.with_effect}: the resistance roll fails automatically"


def reload(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    n = fx.rules.effects[choice.id].params.reload_reduction  # required for rapid_reload
    cond = fx.taker.conditions.setdefault("rapid_reload", {"turns": None, "turns_off": 0})
    cond["turns_off"] += n
    rec["outcome"] = f"next reload {cond['turns_off']} turn(s) shorter"


def follow_up(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    add_condition(fx.taker, "follow_up_attack", 1, effect=choice.id)
    rec["outcome"] = "a follow-up attack is allowed" + (
        " (costs an action point)" if fx.rules.effects[choice.id].params.extra_attack else ""
    )


def overpenetration(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    share = fx.rules.effects[choice.id].params.second_target_damage
    if blow is None or blow.to_hp <= 0 or share is None:
        rec["outcome"] = "no effect: the shot did not pass through"
        return
    scaled = blow.rolled * share.numerator
    rec["outcome"] = (
        f"passes through: the next target takes {-(-scaled // share.denominator)} damage"
    )
