"""Building blocks of special effects: resistance rolls, durations, target limits, and the
handler shapes most effects share."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core import encumbrance
from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckResult,
    Level,
    ceil_div,
    contest_penalty,
    level_of,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import expr_of
from arbiter.bridge.engine.combat_styles.core.hands import holds
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.effects.eligibility import limit_refusal
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.contract import JSON

Handler = Callable[["Finisher", EffectChoice, "Blow | None", JSON], None]


def counter_prepared(fx: Finisher) -> None:
    """Prepare Counter: an effect the victim anticipated is cancelled (and the counter used)."""
    if fx.loser is None:
        return
    prepared = fx.loser.conditions.get("prepared_counter")
    if not prepared:
        return
    for i, c in enumerate(fx.choices):
        if c.id == prepared["effect"]:
            del fx.choices[i]
            del fx.victim.conditions["prepared_counter"]
            fx.out["counter"] = {
                "by": fx.victim.id,
                "cancelled": c.id,
                "substitute": prepared.get("substitute"),
            }
            return


def roll_json(result: CheckResult, skill_name: str) -> JSON:
    return {"skill": skill_name, **result.to_json()}


def resist(
    fx: Finisher, effect_id: str, victim: CombatantRecord, grade_steps: int = 0
) -> tuple[bool, JSON]:
    """The victim's opposed roll against the taker's original roll. Returns (resisted, record).

    The victim uses the best of the skills the effect allows; Force Failure makes him fail."""
    effect = fx.rules.effects[effect_id]
    res = effect.resisted_by
    if res is None:
        return False, {}
    if effect_id in fx.forced:
        return False, {"force_failure": True}
    skills = list(res.skills)
    if res.with_shield and uses_shield(fx.rules, victim):
        skills.extend(res.with_shield)
    quadruped = bool(victim.quadruped and res.quadruped_skill)
    if quadruped:
        skills.append(res.quadruped_skill)
    name = max(skills, key=lambda s: victim.skills.get(s, 0))
    if quadruped and name == res.quadruped_skill:
        grade_steps += res.quadruped_grade_steps
    burden = encumbrance.grade_steps(fx.rules, victim, name)
    grade_steps += burden
    skill = victim.skills.get(name, 0)
    original = fx.original_roll
    checks = fx.rules.checks
    penalty = contest_penalty([skill, original["skill"]])
    grade = checks.shifted(checks.grade(checks.standard), grade_steps) if grade_steps else None
    mine = roll_check(checks, fx.dice, target(checks, skill, grade, 0, penalty), f"1d100 {name}")
    # Over 100 the excess comes off the original roll's target too, which may lower its level.
    their_target = target(checks, original["target"], None, 0, penalty)
    their_level = (
        level_of(checks, original["roll"], their_target)
        if penalty
        else Level.named(original["level"])
    )
    theirs = CheckResult(their_target, original["roll"], their_level)
    resisted = opposed_winner(mine, theirs) == 1
    out = {**roll_json(mine, name), "resisted": resisted}
    if burden:
        out["encumbered_grade_steps"] = burden
    return resisted, out


def uses_shield(rules: RulesView, c: CombatantRecord) -> bool:
    """Whether ``c`` is using a shield: one he carries is in a hand that can use it."""
    for arm_id in c.weapons:
        if rules.arm(arm_id).kind == "shield" and holds(rules, c, arm_id):
            return True
    return False


def wounded(blow: Blow | None, victim: CombatantRecord) -> bool:
    return blow is not None and blow.target == victim.id and blow.weapon is None and blow.to_hp > 0


def duration_turns(fx: Finisher, effect_id: str, blow: Blow | None) -> int | None:
    """Turns an effect lasts (None when it is not counted in turns: until removed, or
    measured in rounds, minutes or hours, which the result reports instead)."""
    params = fx.rules.effects[effect_id].params
    duration = params.duration
    if duration is None:
        return 1 if params.prevents is not None else None
    if duration.unit != "turns":
        return None
    if duration.amount == "damage":
        return blow.to_hp if blow else 0
    if duration.amount == "one":
        return 1
    return fx.dice.roll(expr_of(duration.amount)).total


def lasting(fx: Finisher, effect_id: str, victim: CombatantRecord) -> str | None:
    """A duration not counted in turns, as text (e.g. "1 hours" ÷ Healing Rate → minutes)."""
    duration = fx.rules.effects[effect_id].params.duration
    if duration is None or duration.unit == "turns":
        return None
    amount = duration.amount
    if amount == "one":
        amount = "1"
    if duration.per_healing_rate and amount.isdigit():
        rate = max(1, victim.healing_rate)
        minutes = int(amount) * {"rounds": 1, "minutes": 1, "hours": 60}[duration.unit]
        if duration.unit == "hours":
            return f"{ceil_div(minutes, rate)} minutes"
        return f"{ceil_div(minutes, rate)} {duration.unit}"
    return f"{amount} {duration.unit}"


def target_limit_refusal(
    fx: Finisher,
    effect_id: str,
    taker: CombatantRecord,
    victim: CombatantRecord,
    victim_scale: Fraction | None = None,
) -> str | None:
    """Why the effect's target limit (e.g. SIZ up to 2× the taker's) rules the victim out;
    ``victim_scale`` enlarges the victim's value (a Brace against Bash). Checked again here,
    though the exchange already refuses such a choice, for an effect applied without one (a
    Prepare Counter's substitute)."""
    return limit_refusal(fx.rules, effect_id, taker, victim, victim_scale)


def stay_on_feet(
    fx: Finisher, victim: CombatantRecord, options_: tuple[tuple[str, str], ...]
) -> JSON:
    """The best chance among the allowed checks (e.g. Easy Acrobatics, Athletics) to stay up;
    a load makes each as many grades harder as encumbrance says."""
    checks = fx.rules.checks
    options = [
        (
            skill,
            target(
                checks,
                victim.skills.get(skill, 0),
                checks.shifted(
                    checks.grade(grade), encumbrance.grade_steps(fx.rules, victim, skill)
                ),
            ),
        )
        for skill, grade in options_
    ]
    name, tgt = max(options, key=lambda o: o[1].skill)
    result = roll_check(checks, fx.dice, tgt, f"1d100 {name}")
    return {**roll_json(result, name), "success": result.level.succeeded}


# --- handlers -------------------------------------------------------------------------------


def needs_wound(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> bool:
    if not wounded(blow, fx.victim):
        rec["outcome"] = "no effect: the blow did not wound"
        return False
    return True


def resisted_condition(condition: str, *, wound: bool = False, location: bool = False) -> Handler:
    """A resisted effect that puts ``condition`` on the victim for the effect's duration."""

    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        if wound and not needs_wound(fx, choice, blow, rec):
            return
        victim = fx.victim
        resisted, roll = resist(fx, choice.id, victim)
        if roll:
            rec["resistance"] = roll
        if resisted:
            rec["outcome"] = "resisted"
            return
        turns = duration_turns(fx, choice.id, blow)
        extra: dict[str, Any] = {}
        if location and blow is not None:
            extra["location"] = blow.location
        lasts = lasting(fx, choice.id, victim)
        if lasts is not None:
            extra["lasts"] = lasts
        add_condition(victim, condition, turns, **extra)
        rec["outcome"] = condition.replace("_", " ") + (
            f" for {turns} turns" if turns is not None else f" for {lasts}" if lasts else ""
        )
        rec["condition"] = condition

    return handler


def condition_on(who: str, condition: str, stack: bool = False) -> Handler:
    """An unresisted effect: ``condition`` on the victim or the taker."""

    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        rec_ = fx.victim if who == "victim" else fx.taker
        turns = duration_turns(fx, choice.id, blow)
        params = fx.rules.effects[choice.id].params
        if turns is None and params.prevents is not None:
            turns = 1
        old = rec_.conditions.get(condition)
        if stack and old and old.get("turns") is not None and turns is not None:
            turns += old["turns"]
        add_condition(rec_, condition, turns)
        rec["outcome"] = condition.replace("_", " ")
        rec["condition"] = condition

    return handler


def noop(note: str) -> Handler:
    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        rec["outcome"] = note

    return handler


def wound_gated(note: str) -> Handler:
    def handler(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
        if needs_wound(fx, choice, blow, rec):
            rec["outcome"] = note

    return handler
