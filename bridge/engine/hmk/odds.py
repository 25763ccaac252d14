"""Exact odds of a strike, by counting every face of the dice (no sampling)."""

from __future__ import annotations

from fractions import Fraction

from arbiter.bridge.engine.contract import JSON, Resolution
from arbiter.bridge.engine.dice import ConstTerm, parse
from arbiter.bridge.engine.hmk.attack import prepare
from arbiter.bridge.engine.hmk.chance import CRITICAL, FUMBLE, HIT, MISS, classify
from arbiter.bridge.engine.hmk.index import Index
from arbiter.bridge.engine.hmk.injury import armor_pv, extra_injury
from arbiter.bridge.engine.hmk.requests import AttackBody


def odds(ix: Index, body: AttackBody, state: JSON | None) -> Resolution:
    """Probabilities of hit (critical included), critical, fumble and miss for the strike
    ``body`` describes, and the expected IP the defender loses from the blow itself."""
    setup = prepare(ix, body, state)
    combat = ix.rules.combat
    faces = combat.strike_die
    counts = {CRITICAL: 0, HIT: 0, FUMBLE: 0, MISS: 0}
    for roll in range(1, faces + 1):
        counts[classify(roll, setup.chance, combat)] += 1
    attacker, defender, weapon = setup.attacker, setup.defender, setup.weapon
    bonus = attacker.attributes["STR"] // combat.strength_divisor + (
        setup.chance.skill // combat.skill_divisor
    )
    pv = armor_pv(ix, defender)

    def mean_injury(extra: int, armor: int) -> Fraction:
        total = sum(max(0, v + bonus + extra - armor) for v in weapon.injury)
        return Fraction(total, len(weapon.injury))

    on_hit = mean_injury(0, pv)
    on_critical = Fraction(0)
    chances = distribution(ix.rules.critical_hits.die)
    for row in ix.rules.critical_hits.rows:
        width = sum(
            chances.get(roll, Fraction(0)) for roll in range(row.range[0], row.range[1] + 1)
        )
        ignore = any(e.kind == "ignore_armor" for e in row.effects)
        on_critical += width * mean_injury(
            extra_injury(weapon, row.extra_injury_percent), 0 if ignore else pv
        )
    expected = Fraction(counts[HIT], faces) * on_hit + Fraction(counts[CRITICAL], faces) * (
        on_critical
    )
    hits = counts[HIT] + counts[CRITICAL]
    result: JSON = {
        "kind": "odds",
        "attacker": attacker.id,
        "defender": defender.id,
        "weapon": weapon.id,
        "mode": setup.mode,
        "chance": setup.chance.to_json(),
        "faces": faces,
        "hit": _share(hits, faces),
        "critical": _share(counts[CRITICAL], faces),
        "fumble": _share(counts[FUMBLE], faces),
        "miss": _share(counts[MISS], faces),
        "expected_injury": _fraction(expected),
        "injury_on_hit": _fraction(on_hit),
        "injury_on_critical": _fraction(on_critical),
    }
    return Resolution(result=result, state=None)


def distribution(die: str) -> dict[int, Fraction]:
    """The exact chance of each total of a table's die expression (``1d100``, ``2d6`` …)."""
    chances = {0: Fraction(1)}
    for term in parse(die).terms:
        if isinstance(term, ConstTerm):
            chances = {total + term.value: p for total, p in chances.items()}
            continue
        face = Fraction(1, term.faces)
        for _ in range(term.count):
            step: dict[int, Fraction] = {}
            for total, p in chances.items():
                for result in range(1, term.faces + 1):
                    key = total + term.sign * result
                    step[key] = step.get(key, Fraction(0)) + p * face
            chances = step
    return chances


def _share(count: int, faces: int) -> JSON:
    return {"count": count, **_fraction(Fraction(count, faces))}


def _fraction(value: Fraction) -> JSON:
    return {"exact": f"{value.numerator}/{value.denominator}", "value": float(value)}
