"""Small value types shared by the combat-styles rule model: fractions, bands, dice text.

Everything here is data the engine reads directly: a :class:`Fraction` applies itself with the
ruleset's rounding, a :class:`Band` says whether a number falls inside it, and :data:`DiceText`
accepts only dice expressions the engine's parser understands (``1d8+1``, ``2d10+1d4``, ``-1d6``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from arbiter.compiler.model.common import RuleModel

DICE_PATTERN = r"^[+-]?(\d*d\d+|\d+)([+-](\d*d\d+|\d+))*$"

DiceText = Annotated[str, Field(pattern=DICE_PATTERN)]
"""A dice expression such as ``1d4+1``, ``2d6``, ``1d8+1d6``, ``-1d4`` or ``+0``."""

Rounding = Literal["up", "down", "nearest"]


def _as_toml(value: Any) -> str:
    """A value as it is written in a rule file (``false``, ``"up"``, ``100``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)


def implemented_only(expected: Any, how: str) -> AfterValidator:
    """A validator for a flag that states how the engine behaves: any other value is refused
    with ``how`` (what the engine does, and where a GM changes it instead), so a house rule
    never sits in the data unread."""

    def check(value: Any) -> Any:
        if value != expected:
            raise ValueError(
                f"the engine implements only {_as_toml(expected)} here ({how}); "
                f"{_as_toml(value)} would be ignored, so it is refused"
            )
        return value

    return AfterValidator(check)


Skill = Literal[
    "acrobatics",
    "athletics",
    "brawn",
    "combat_style",
    "endurance",
    "evade",
    "fly",
    "perception",
    "ride",
    "swim",
    "unarmed",
    "willpower",
]
"""Skill names the rule data refers to (resistance rolls, caps, checks)."""

Attribute = Literal["str", "con", "siz", "dex", "int", "pow", "cha"]


def round_fraction(numerator: int, denominator: int, rounding: Rounding) -> int:
    """``numerator / denominator`` rounded as asked, exactly (no floating point)."""
    if denominator <= 0:
        raise ValueError("denominator must be positive")
    if rounding == "up":
        return -((-numerator) // denominator)
    if rounding == "down":
        return numerator // denominator
    doubled = 2 * numerator + denominator
    return doubled // (2 * denominator)


class Fraction(RuleModel):
    """An exact multiplier such as 2/3; ``apply`` rounds the product as the ruleset says."""

    numerator: int = Field(ge=0)
    denominator: int = Field(gt=0)

    def apply(self, value: int, rounding: Rounding = "up") -> int:
        """``value × numerator / denominator``, rounded (fractions round up by default)."""
        return round_fraction(value * self.numerator, self.denominator, rounding)

    def __str__(self) -> str:
        if self.denominator == 1:
            return f"×{self.numerator}"
        return f"×{self.numerator}/{self.denominator}"


class Band(RuleModel):
    """An inclusive range of whole numbers; ``max`` absent means open-ended upwards."""

    min: int
    max: int | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Band:
        if self.max is not None and self.max < self.min:
            raise ValueError(f"band {self.min}–{self.max} is reversed: min must not exceed max")
        return self

    def contains(self, value: int) -> bool:
        """Whether ``value`` lies inside the band."""
        return value >= self.min and (self.max is None or value <= self.max)

    def __str__(self) -> str:
        if self.max is None:
            return f"{self.min}+"
        if self.max == self.min:
            return str(self.min)
        return f"{self.min}–{self.max}"


def ceil_div(value: int, divisor: int) -> int:
    """``ceil(value / divisor)`` for integers."""
    return -((-value) // divisor)


__all__ = [
    "DICE_PATTERN",
    "Attribute",
    "Band",
    "DiceText",
    "Fraction",
    "Rounding",
    "Skill",
    "ceil_div",
    "round_fraction",
]
