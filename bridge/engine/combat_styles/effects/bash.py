"""Bash: knockback by the damage rolled, limited by the victim's size (more when he braced),
and the fall when he is knocked into an obstacle."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.bodies.requests import EffectChoice
from arbiter.bridge.engine.combat_styles.core.checks import roll_check, target
from arbiter.bridge.engine.combat_styles.effects.effect_rolls import roll_json, target_limit_refusal
from arbiter.bridge.engine.combat_styles.encounter import brace
from arbiter.bridge.engine.combat_styles.encounter.blows import Blow, Finisher
from arbiter.bridge.engine.combat_styles.encounter.combatants import add_condition
from arbiter.bridge.engine.combat_styles.riding.astride import displace
from arbiter.bridge.engine.contract import JSON


def bash(fx: Finisher, choice: EffectChoice, blow: Blow | None, rec: JSON) -> None:
    if blow is None or blow.target != fx.victim.id:
        rec["outcome"] = "no effect: the blow did not land"
        return
    braced = brace.is_braced(
        fx.victim,
        fx.pending.situation["defender_braced"] and fx.victim.id == fx.pending.defender,
    )
    scale = fx.rules.brace_vs_bash if braced else None
    why = target_limit_refusal(fx, choice.id, fx.taker, fx.victim, scale)
    if why:
        rec["outcome"] = f"no effect: {why}" + (" (braced)" if braced else "")
        return
    arm = fx.rules.arm(fx.pending.weapon)
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
    if metres > 0:
        displace(fx.victim)
        brace.lose(fx.rules, fx.victim, "knocked_back")
    if fx.pending.situation["obstacle"] and metres > 0:
        checks = fx.rules.effects[choice.id].params.obstacle_checks
        best = max(checks, key=lambda c: fx.victim.skills.get(c.skill, 0))
        res = roll_check(
            fx.rules.checks,
            fx.dice,
            target(
                fx.rules.checks, fx.victim.skills[best.skill], fx.rules.checks.grade(best.grade)
            ),
            f"1d100 {best.skill}",
        )
        rec["obstacle_check"] = roll_json(res, best.skill)
        if not res.level.succeeded:
            add_condition(fx.victim, "prone")
            rec["outcome"] += " into an obstacle: falls"
