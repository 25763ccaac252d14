"""Weapon size and reach ladders, parry reduction, weapons, shields, ranged weapons and armour."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.combat_styles.basics import DiceText, Fraction
from arbiter.compiler.model.common import Entry, Id, RuleModel


class Size(Entry):
    """A step of the weapon Size ladder (also used for ranged Force); higher ``rank`` is larger."""

    name: str
    abbreviation: str
    rank: int


class Reach(Entry):
    """A step of the weapon Reach ladder; higher ``rank`` is longer."""

    name: str
    abbreviation: str
    rank: int


class ParryReduction(Entry):
    """How much damage a successful parry lets through, by how many Size steps the parrying
    weapon is smaller than the attacking one (``steps_smaller`` ≤ 0: equal or larger)."""

    steps_smaller_min: int | None = None
    """Lowest number of steps smaller this row covers; absent: no lower bound."""
    steps_smaller_max: int | None = None
    """Highest number of steps smaller this row covers; absent: no upper bound."""
    damage_taken: Fraction
    """Share of the damage that still gets through (0/1 all blocked, 1/2 half, 1/1 none)."""
    label: str

    def covers(self, steps_smaller: int) -> bool:
        """Whether this row applies to a parry ``steps_smaller`` sizes below the attack."""
        lo_ok = self.steps_smaller_min is None or steps_smaller >= self.steps_smaller_min
        hi_ok = self.steps_smaller_max is None or steps_smaller <= self.steps_smaller_max
        return lo_ok and hi_ok


class Weapon(Entry):
    """A close-combat weapon. ``effects`` are the special-effect ids the weapon enables."""

    name: str
    kind: Literal["melee", "unarmed"] = "melee"
    hands: Literal[0, 1, 2]
    mounted_only: bool = False
    damage: DiceText
    size: Id
    reach: Id
    effects: tuple[Id, ...] = ()
    traits: tuple[Id, ...] = ()
    thrown_as: Id | None = None
    """The ranged-weapons entry used when this weapon is thrown."""
    ap: int | None = Field(None, ge=0)
    hp: int | None = Field(None, ge=0)
    enc: int | None = Field(None, ge=0)
    description: str = ""


class Shield(Entry):
    """A shield: parries like a weapon (and parries missiles), covers ``passive_block``
    locations when held as cover (doubled when crouching)."""

    name: str
    damage: DiceText
    size: Id
    reach: Id
    passive_block: int = Field(ge=0)
    effects: tuple[Id, ...] = ()
    ap: int = Field(ge=0)
    hp: int = Field(ge=0)
    parries_ranged: bool = True
    description: str = ""


class RangeBands(RuleModel):
    """Maximum Close, Effective and Long ranges in metres."""

    close: int = Field(ge=0)
    effective: int = Field(ge=0)
    long: int = Field(ge=0)

    @model_validator(mode="after")
    def _increasing(self) -> RangeBands:
        if not self.close <= self.effective <= self.long:
            raise ValueError(
                f"ranges must not decrease: close {self.close}, effective {self.effective}, "
                f"long {self.long}"
            )
        return self

    def band(self, metres: int) -> Literal["close", "effective", "long"] | None:
        """The range band of a target ``metres`` away; None beyond Long range."""
        if metres <= self.close:
            return "close"
        if metres <= self.effective:
            return "effective"
        if metres <= self.long:
            return "long"
        return None


class RangedWeapon(Entry):
    """A missile or thrown weapon. ``force`` is a Size id; ``impale_size`` the Size used on
    the impale table (absent: it cannot impale)."""

    name: str
    kind: Literal["ranged", "firearm", "siege"] = "ranged"
    hands: Literal[1, 2] | None = None
    """Hands it needs (absent: ``combat.hands.ranged_hands``)."""
    damage: DiceText | None = None
    """Absent: the weapon deals no damage of its own (a blowgun delivers poison)."""
    damage_modifier: bool
    force: Id | None = None
    range: RangeBands
    load: int | None = Field(None, ge=0)
    """Turns (1 AP each) to load; absent for thrown weapons (drawn with Ready Weapon)."""
    impale_size: Id | None = None
    effects: tuple[Id, ...] = ()
    ap: int | None = Field(None, ge=0)
    hp: int | None = Field(None, ge=0)
    description: str = ""


class Armor(Entry):
    """A type of armour. ``ap`` and ``enc`` are per hit location covered."""

    name: str
    examples: str = ""
    ap: int = Field(ge=0)
    enc: int = Field(ge=0)


class ArmorMaterial(Entry):
    """A material's multiplier to armour ENC."""

    name: str
    enc_multiplier: Fraction
