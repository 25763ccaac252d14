"""Damage arithmetic: Maximize Damage, damage-modifier steps, parry reduction by size, armor.

The ladders (weapon sizes, damage-modifier steps) and the reduction fractions are rule data
passed in; this module applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from arbiter.bridge.engine.combat_styles.core.checks import ceil_div
from arbiter.bridge.engine.contract import EngineError
from arbiter.bridge.engine.dice import ConstTerm, DiceExpr, DiceTerm, Term, parse


@lru_cache(maxsize=1024)
def expr_of(text: str) -> DiceExpr:
    """The parsed expression of rule-data dice text (cached: parsing is pure)."""
    return parse(text)


@lru_cache(maxsize=1024)
def maximize(expr: DiceExpr, times: int = 1) -> DiceExpr:
    """``expr`` with ``times`` of its positive dice counted at their full value.

    The largest die goes first (the attacker's best choice): 1d6 → 6, 2d6 → 1d6+6,
    1d8+1d4 → 1d4+8. Constants are kept and summed at the end; once every die is maximized,
    further applications change nothing.
    """
    terms: list[Term] = list(expr.terms)
    bonus = 0
    for _ in range(times):
        best: int | None = None
        best_faces = 0
        for i, t in enumerate(terms):
            if isinstance(t, DiceTerm) and t.sign > 0 and (best is None or t.faces > best_faces):
                best, best_faces = i, t.faces
        if best is None:
            break
        chosen = terms[best]
        assert isinstance(chosen, DiceTerm)
        bonus += chosen.faces
        if chosen.count > 1:
            terms[best] = DiceTerm(chosen.count - 1, chosen.faces, chosen.sign)
        else:
            del terms[best]
    return _with_constant(terms, bonus)


def _with_constant(terms: list[Term], extra: int) -> DiceExpr:
    dice = [t for t in terms if isinstance(t, DiceTerm)]
    const = sum(t.value for t in terms if isinstance(t, ConstTerm)) + extra
    out: list[Term] = list(dice)
    if const or not dice:
        out.append(ConstTerm(const))
    return DiceExpr(tuple(out))


def halve_expr_label(expr: DiceExpr) -> str:
    """Text for a halved roll, e.g. ``(1d8+1)/2``."""
    return f"({expr})/2"


def step_modifier(ladder: Sequence[str], current: str, steps: int) -> str:
    """The damage modifier ``steps`` rows along ``ladder`` from ``current`` (clamped).

    ``ladder`` lists modifiers from weakest to strongest (``-1d8`` … ``+0`` … ``+2d10``);
    a charging biped moves one step, a charging quadruped two. EngineError when ``current`` is
    not on the ladder.
    """
    key = normalize_modifier(current)
    normalized = [normalize_modifier(m) for m in ladder]
    if key not in normalized:
        # A stat block may give any rollable modifier; only one on the ladder can be stepped.
        raise EngineError(
            f"damage modifier {current!r} is not on the ladder ({', '.join(ladder)}), "
            "so it cannot be stepped"
        )
    index = max(0, min(len(ladder) - 1, normalized.index(key) + steps))
    return ladder[index]


def normalize_modifier(text: str) -> str:
    """Canonical text of a damage modifier: ``"+1d4"`` and ``"1d4"`` agree; ``"0"``/``"+0"`` → ``"+0"``."""
    t = text.replace(" ", "").lower()
    if t in ("", "0", "+0", "-0", "none", "–"):
        return "+0"
    if not t.startswith(("+", "-")):
        t = "+" + t
    return t


@lru_cache(maxsize=256)
def modifier_expr(text: str) -> DiceExpr | None:
    """The dice expression of a damage modifier, or None for ``+0``."""
    key = normalize_modifier(text)
    if key == "+0":
        return None
    return expr_of(key[1:]) if key.startswith("+") else expr_of(key)


# A dataclass compiled by mypyc into a native class (its method called directly); mypyc
# compiles a dataclass's own __init__ but not the one dataclasses generates.
@dataclass(slots=True, init=False, unsafe_hash=True)
class ParryBlock:
    """How much of a blow a parry stops: a fraction of the damage (1 = all, 0 = none); never
    changed once made."""

    fraction: Fraction
    size_difference: int
    """Attacking size minus parrying size, in ladder steps (after charging and Force steps)."""

    def __init__(self, fraction: Fraction, size_difference: int) -> None:
        self.fraction = fraction
        self.size_difference = size_difference

    def remaining(self, damage: int) -> int:
        """Damage that gets through. A half block lets through the larger half (rounded up)."""
        if damage <= 0:
            return 0
        # Integer arithmetic: ceil(damage × (1 − blocked)) without Fraction objects.
        num, den = self.fraction.numerator, self.fraction.denominator
        return ceil_div(damage * (den - num), den)


def parry_block(
    sizes: Sequence[str],
    reductions: Sequence[Fraction],
    attacking_size: str,
    parrying_size: str,
) -> ParryBlock:
    """The share of damage a parry blocks.

    ``reductions[k]`` is the fraction blocked when the parrying weapon is ``k`` steps smaller
    than the attacking one; equal or larger blocks ``reductions[0]``; beyond the list, the last
    entry applies (two or more steps smaller: none).
    """
    diff = sizes.index(attacking_size) - sizes.index(parrying_size)
    k = max(0, diff)
    return ParryBlock(reductions[min(k, len(reductions) - 1)], diff)


def size_step(sizes: Sequence[str], size: str, steps: int) -> str:
    """The size ``steps`` along the ladder (charging +1, Long range −1), clamped."""
    index = max(0, min(len(sizes) - 1, sizes.index(size) + steps))
    return sizes[index]
