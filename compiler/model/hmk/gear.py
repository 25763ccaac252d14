"""Weapons, armor, reloading and thrown-weapon ranges."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.common import Assumable, Entry, RuleModel

RangeBand = Literal["short", "medium", "long", "maximum"]


class Weapon(Entry):
    """A weapon with its own d10 injury column (``injury[n - 1]`` is the injury for a roll of n).

    Missile weapons fire (``reload`` names their reload rule; ``ranges`` are the upper bounds in
    feet of short, medium, long and maximum range). Melee weapons marked ``throwable`` may be
    thrown, with ranges from the thrower's STR.
    """

    name: str
    kind: Literal["melee", "missile"]
    injury: tuple[int, ...]
    throwable: bool = False
    reload: str | None = None
    ranges: tuple[int, int, int, int] | None = None
    description: str = ""

    @model_validator(mode="after")
    def _kind_fits(self) -> Weapon:
        if len(self.injury) != 10:
            raise ValueError(
                f"injury needs exactly ten values, one per d10 result; got {len(self.injury)}"
            )
        if any(v < 0 for v in self.injury):
            raise ValueError("injury values cannot be negative")
        if self.kind == "missile":
            if self.reload is None or self.ranges is None:
                raise ValueError("a missile weapon needs 'reload' (a reload rule id) and 'ranges'")
            if self.throwable:
                raise ValueError("a missile weapon fires; only melee weapons are 'throwable'")
            if list(self.ranges) != sorted(self.ranges) or self.ranges[0] < 1:
                raise ValueError("ranges must be positive feet in ascending order")
        elif self.reload is not None or self.ranges is not None:
            raise ValueError("only missile weapons have 'reload' and 'ranges'")
        return self

    @property
    def maximum_injury(self) -> int:
        return max(self.injury)


class Armor(Entry):
    """Armor and the injury it absorbs from every blow (its Protection Value)."""

    name: str
    pv: int = Field(ge=0)
    description: str = ""


class ReloadRule(Entry):
    """How many actions reloading a kind of missile weapon takes."""

    name: str
    actions: int = Field(ge=1)
    text: str


class ThrownBand(RuleModel):
    """A range band of a thrown melee weapon: up to STR / ``strength_divisor`` feet."""

    range: Literal["long", "maximum"]
    strength_divisor: int = Field(ge=1)


class ReadyRule(Assumable):
    """Actions needed to ready another weapon (thrown weapons are readied, not reloaded)."""

    actions: int = Field(ge=1)


class ThrownWeapons(RuleModel):
    """Melee weapons thrown: no short or medium range; long and maximum range from STR."""

    text: str
    bands: list[ThrownBand] = Field(min_length=1)
    ready: ReadyRule

    @model_validator(mode="after")
    def _bands_widen(self) -> ThrownWeapons:
        divisors = [b.strength_divisor for b in self.bands]
        if divisors != sorted(divisors, reverse=True) or len(set(divisors)) != len(divisors):
            raise ValueError("bands must reach farther in order: strength_divisor must decrease")
        return self
