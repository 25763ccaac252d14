"""Bodies and harm: attribute formulas, hit locations, hit points, wounds, damage modifier."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from arbiter.compiler.model.combat_styles.basics import (
    Attribute,
    Band,
    DiceText,
    Rounding,
    round_fraction,
)
from arbiter.compiler.model.common import Assumable, DieTable, Entry, Id, RuleModel, TableRow


class AttributeFormula(Assumable):
    """``sum(attributes) / divisor`` rounded, plus ``add``, at least ``minimum``."""

    attributes: tuple[Attribute, ...] = Field(min_length=1)
    divisor: int = Field(1, gt=0)
    rounding: Rounding = "up"
    add: int = 0
    minimum: int | None = None
    description: str = ""

    def value(self, stats: dict[str, int]) -> int:
        """The formula's value for a stat block keyed by lower-case attribute names."""
        total = sum(stats[a] for a in self.attributes)
        result = round_fraction(total, self.divisor, self.rounding) + self.add
        if self.minimum is not None:
            result = max(self.minimum, result)
        return result


class HitLocation(Entry):
    """A humanoid hit location and how its hit points follow from the base value."""

    name: str
    kind: Literal["limb", "vital"]
    """Limbs and vital locations (head, chest, abdomen) take different wound outcomes."""
    limb: Literal["arm", "leg"] | None = None
    hp_offset: int
    """Hit points = base (see ``hit_points``) + offset, at least ``hp_minimum``."""
    hp_minimum: int = Field(1, ge=1)
    adjacent: tuple[Id, ...] = ()
    """Locations a shot may be moved to with Marksman."""

    def hit_points(self, base: int) -> int:
        """This location's hit points for a base value (``hit_points`` formula)."""
        return max(self.hp_minimum, base + self.hp_offset)


class LocationRow(TableRow):
    """A row of a hit-location table: the die range, the text and the location id."""

    location: Id


class HitLocationTable(DieTable):
    """A rollable hit-location table."""

    rows: list[LocationRow]  # type: ignore[assignment]  # pydantic validates rows as this row type; never reassigned

    def location_for(self, roll: int) -> str:
        """The location id a die result lands on."""
        for row in self.rows:
            if row.range[0] <= roll <= row.range[1]:
                return row.location
        raise KeyError(f"no row of {self.id} covers {roll}")


class DeathTimer(RuleModel):
    """Dies unless treated within ``multiple`` × Healing Rate ``unit``."""

    multiple: int = Field(gt=0)
    unit: Literal["rounds", "minutes"]


class WoundOutcome(Assumable):
    """What a wound level does to one kind of location."""

    prone: bool = False
    endurance_test: bool = False
    """Opposed Endurance against the original attack roll."""
    on_failure: Literal["limb_useless", "unconscious", "death"] | None = None
    unconscious_minutes: Literal["damage"] | None = None
    """Failure means unconsciousness for minutes equal to the damage of the blow."""
    unconscious: bool = False
    """Unconscious at once, test or not."""
    dies_unless_treated: DeathTimer | None = None
    description: str = ""


class WoundLevel(Entry):
    """A wound level. ``threshold`` is the location's remaining hit points that cause it."""

    name: str
    rank: int
    threshold: Literal["above_zero", "zero_or_below", "minus_starting_or_below"]
    no_attack_turns: DiceText | None = None
    """Turns in which the victim cannot attack or start casting (may still parry or evade)."""
    incapacitated: bool = False
    limb: WoundOutcome
    vital: WoundOutcome
    description: str

    def reached(self, remaining: int, starting: int) -> bool:
        """Whether a location with ``remaining`` of ``starting`` hit points is at this level."""
        if self.threshold == "above_zero":
            return remaining > 0
        if self.threshold == "zero_or_below":
            return remaining <= 0
        return remaining <= -starting


class DamageModifierStep(Entry):
    """A step of the damage-modifier ladder: the STR+SIZ band and the dice added."""

    band: Band
    dice: DiceText


class SpiritDamageStep(Entry):
    """Spirit damage (to Magic Points) by spirit-combat skill band."""

    skill: Band
    damage: DiceText
