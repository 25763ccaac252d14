"""Exact odds of an exchange, by counting every face of the d100 (no sampling).

A side's level distribution is counted over the 100 faces (with a luck re-roll, over the
10,000 ordered pairs of rolls, folded); the two sides roll independently, so the probability of
a pair of levels is the product. The number of special effects follows from the differential
table for each pair.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from arbiter.bridge.engine.combat_styles.bodies.requests import OddsBody, Side
from arbiter.bridge.engine.combat_styles.core.checks import (
    CheckRules,
    Level,
    Target,
    contest_penalty,
    level_of,
    target,
)
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import JSON, EngineError

FACES = 100


def level_counts(
    rules: CheckRules, tgt: Target, luck_below: Level | None = None
) -> dict[Level, int]:
    """How many outcomes give each level: out of 100, or 10,000 with a luck re-roll."""
    single = Counter(level_of(rules, roll, tgt) for roll in range(1, FACES + 1))
    if tgt.automatic:
        single = Counter({Level.SUCCESS: FACES})
    if luck_below is None:
        return {lv: single.get(lv, 0) for lv in Level}
    kept = {lv: (single.get(lv, 0) * FACES if lv >= luck_below else 0) for lv in Level}
    rerolled = sum(n for lv, n in single.items() if lv < luck_below)
    return {lv: kept[lv] + rerolled * single.get(lv, 0) for lv in Level}


def _target(rules: RulesView, side: Side, penalty: int) -> Target:
    grade = rules.checks.shifted(rules.checks.most_severe(side.grades), side.grade_steps)
    return target(rules.checks, side.skill, grade, side.augment, penalty)


def _fraction_json(p: Fraction) -> JSON:
    return {"p": float(p), "exact": f"{p.numerator}/{p.denominator}"}


def exchange_odds(rules: RulesView, body: OddsBody) -> JSON:
    """Probability of every (attack, defence) level pair and of each number of effects."""
    for side in (body.attack, body.defence):
        if side is not None:
            for g in side.grades:
                if g not in {x.id for x in rules.checks.grades}:
                    raise EngineError(f"unknown difficulty grade {g!r}")
    skills = [body.attack.skill] + ([body.defence.skill] if body.defence else [])
    penalty = contest_penalty(skills)
    att_t = _target(rules, body.attack, penalty)
    dfd_t = _target(rules, body.defence, penalty) if body.defence is not None else None
    out = odds_of_targets(
        rules,
        att_t,
        dfd_t,
        _luck(body.attack),
        _luck(body.defence) if body.defence else None,
        body.surprise,
    )
    out["penalty_over_100"] = penalty
    return out


def odds_of_targets(
    rules: RulesView,
    att_t: Target,
    dfd_t: Target | None,
    att_luck: Level | None = None,
    dfd_luck: Level | None = None,
    surprise: bool = False,
) -> JSON:
    """Exact odds for two check targets (``dfd_t`` None: no defence roll)."""
    att = level_counts(rules.checks, att_t, att_luck)
    att_total = sum(att.values())
    if dfd_t is not None:
        dfd = level_counts(rules.checks, dfd_t, dfd_luck)
    else:
        dfd = {lv: 0 for lv in Level}
        dfd[Level.named(rules.no_defence_level)] = 1
    dfd_total = sum(dfd.values())
    denominator = att_total * dfd_total
    pairs = []
    effects: dict[str, Counter[int]] = {"attacker": Counter(), "defender": Counter()}
    nobody = 0
    bonus = rules.surprise_bonus_effects if surprise else 0
    for la in sorted(Level, reverse=True):
        for ld in sorted(Level, reverse=True):
            n = att[la] * dfd[ld]
            if not n:
                continue
            diff = rules.differential.effects(la, ld)
            extra = bonus if la.succeeded and diff >= 0 else 0
            pairs.append(
                {
                    "attack": la.label,
                    "defence": ld.label,
                    "effects": diff + extra if diff >= 0 else diff,
                    **_fraction_json(Fraction(n, denominator)),
                }
            )
            if diff > 0 or extra:
                effects["attacker"][diff + extra] += n
            elif diff < 0:
                effects["defender"][-diff] += n
            else:
                nobody += n
    hits = sum(att[lv] for lv in Level if lv.succeeded)
    return {
        "kind": "odds",
        "attack": {
            "target": att_t.skill,
            "levels": {lv.label: _fraction_json(Fraction(att[lv], att_total)) for lv in Level},
        },
        "defence": None
        if dfd_t is None
        else {
            "target": dfd_t.skill,
            "levels": {lv.label: _fraction_json(Fraction(dfd[lv], dfd_total)) for lv in Level},
        },
        "pairs": pairs,
        "effects": {
            side: {str(k): _fraction_json(Fraction(v, denominator)) for k, v in sorted(c.items())}
            for side, c in effects.items()
        },
        "no_effects": _fraction_json(Fraction(nobody, denominator)),
        "attack_succeeds": _fraction_json(Fraction(hits, att_total)),
    }


def _luck(side: Side) -> Level | None:
    return Level.named(side.luck) if side.luck else None
