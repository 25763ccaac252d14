"""The consequences a critical hit or a fumble can have, as data the engine interprets.

Every table row lists its ``effects`` as tables tagged by ``kind``; the engine has one handler
per kind and never reads the row's prose. Who an effect lands on follows the table: a critical
hit's effects land on the one struck (``bonus_strike`` on the attacker); a fumble's effects land
on the fumbler (``strike_bystander`` on the first one in the way).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import Field, field_validator, model_validator

from arbiter.compiler.model.common import Assumable, RuleModel, die_span

Attribute = Literal["STR", "DEX", "AGL", "HEA", "INT", "AWA"]
"""The attributes the rules name (strength, dexterity, agility, health, intellect, awareness)."""

PenaltyTarget = Literal[
    "STR", "DEX", "AGL", "HEA", "INT", "AWA", "strike", "defensive_tactics", "depth_perception"
]
"""What a lasting penalty applies to: an attribute's rolls, strike rolls, Defensive Tactics, or
every roll needing depth perception (ranged strikes)."""

Hand = Literal["left", "right"]

_DICE_RE = re.compile(r"^\d*d\d+([+-]\d+)?$")


def check_dice(text: str) -> str:
    """A dice expression of the form ``NdM`` with an optional ``+K`` or ``-K``."""
    if not _DICE_RE.match(text.replace(" ", "")):
        raise ValueError(f"{text!r} is not a dice expression such as '1d10' or '1d10+3'")
    return text


class Effect(Assumable):
    """Base of every effect: ``kind`` names the handler; ``assumed``/``note`` mark our readings."""


class DieBand(RuleModel):
    """A band of a small die roll and what it means (a distance or a hand)."""

    range: tuple[int, int]


class DistanceBand(DieBand):
    feet: int = Field(ge=0)


class HandBand(DieBand):
    hand: Hand


def _bands_cover(die: str, bands: list[DistanceBand] | list[HandBand]) -> None:
    lo, hi = die_span(die)
    expected = lo
    for band in bands:
        start, end = band.range
        if start != expected or end < start:
            break
        expected = end + 1
    if expected != hi + 1:
        raise ValueError(f"bands must cover {lo}–{hi} of {die} in order, without gaps")


class LoseActions(Effect):
    """The victim loses actions (this round if any are left, else next round)."""

    kind: Literal["lose_actions"]
    count: int = Field(ge=1)


class Disarm(Effect):
    """The victim's weapon flies off; a die says how far."""

    kind: Literal["disarm"]
    distance_die: str = "1d10"
    distances: list[DistanceBand]

    @model_validator(mode="after")
    def _covered(self) -> Disarm:
        _bands_cover(self.distance_die, self.distances)
        return self


class BonusStrike(Effect):
    """The attacker gains extra strikes (usable this round or the next)."""

    kind: Literal["bonus_strike"]
    count: int = Field(default=1, ge=1)


class IgnoreArmor(Effect):
    """This strike's injury ignores the victim's armor PV."""

    kind: Literal["ignore_armor"]


class LoseRounds(Effect):
    """The victim can do nothing for the next ``rounds`` rounds."""

    kind: Literal["lose_rounds"]
    rounds: int = Field(ge=1)


class BreakWeapon(Effect):
    """The weapon breaks on a roll of 1d``die`` at or under ``chance`` (+ STR/10 when so
    marked); a chance of ``die`` or more breaks it without a roll."""

    kind: Literal["break_weapon"]
    chance: int = Field(ge=0, le=100)
    strength_bonus: bool = False
    die: int = Field(100, ge=2, le=1000)
    """Faces of the die the chance is rolled on (a percentage: 100)."""


class ArmorLoss(Effect):
    """The victim's armor loses PV for good."""

    kind: Literal["armor_loss"]
    amount: int = Field(ge=1)


class Knockout(Effect):
    """The victim is knocked out for a rolled number of rounds."""

    kind: Literal["knockout"]
    rounds: str

    @field_validator("rounds")
    @classmethod
    def _dice(cls, value: str) -> str:
        return check_dice(value)


class Penalty(Effect):
    """A lasting penalty (until healed) to the listed rolls.

    ``requires_shield``: applies only while the victim uses a shield. ``hand_die``/``hands``: a
    die picks the hand; the penalty then applies only to rolls made with that hand (the weapon
    hand for strikes and DEX rolls).
    """

    kind: Literal["penalty"]
    targets: list[PenaltyTarget] = Field(min_length=1)
    amount: int = Field(le=0)
    requires_shield: bool = False
    hand_die: str | None = None
    hands: list[HandBand] = Field(default_factory=list)

    @model_validator(mode="after")
    def _hands_covered(self) -> Penalty:
        if self.hand_die is not None:
            _bands_cover(self.hand_die, self.hands)
        elif self.hands:
            raise ValueError("hands need a hand_die to pick one")
        return self


class Bleeding(Effect):
    """The victim loses ``per_round`` IP at the start of every round until healed."""

    kind: Literal["bleeding"]
    per_round: int = Field(ge=1)


class Incapacitated(Effect):
    """The victim cannot act until healed."""

    kind: Literal["incapacitated"]


class Condition(Effect):
    """A named lasting condition the engine records for the GM (e.g. hearing halved)."""

    kind: Literal["condition"]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: str


class Fall(Effect):
    """The victim falls and lies prone until it spends an action to stand."""

    kind: Literal["fall"]


class DropWeapon(Effect):
    """The weapon drops at the victim's feet; readying it again takes an action."""

    kind: Literal["drop_weapon"]


class WalkOnly(Effect):
    """The victim can only walk for a rolled number of days, divided and rounded up."""

    kind: Literal["walk_only"]
    days: str
    divisor: int = Field(default=1, ge=1)

    @field_validator("days")
    @classmethod
    def _dice(cls, value: str) -> str:
        return check_dice(value)


InjuryKind = Literal["base", "normal", "critical"]
"""base: the weapon's d10 column only; normal: + STR/10 + skill/10; critical: normal plus a roll
on the critical table."""


class StrikeBystander(Effect):
    """The first one in the way (nearest friend, innocent, first line-of-fire target) is hit."""

    kind: Literal["strike_bystander"]
    injury: InjuryKind
    bonus: int = 0


class WoundSelf(Effect):
    """The fumbler hits itself."""

    kind: Literal["wound_self"]
    injury: InjuryKind
    bonus: int = 0


class OpenedToStrike(Effect):
    """Until the fumbler's next round, every opponent within reach gets one free strike that
    ignores the fumbler's Defensive Tactics."""

    kind: Literal["opened_to_strike"]
    reach_feet: int = Field(ge=0)


class AttributeRoll(Effect):
    """The victim rolls d100 under the attribute (with its penalties); on a failure the
    ``on_failure`` effects apply."""

    kind: Literal["attribute_roll"]
    attribute: Attribute
    on_failure: list[AnyEffect] = Field(min_length=1)


AnyEffect = Annotated[
    LoseActions
    | Disarm
    | BonusStrike
    | IgnoreArmor
    | LoseRounds
    | BreakWeapon
    | ArmorLoss
    | Knockout
    | Penalty
    | Bleeding
    | Incapacitated
    | Condition
    | Fall
    | DropWeapon
    | WalkOnly
    | StrikeBystander
    | WoundSelf
    | OpenedToStrike
    | AttributeRoll,
    Field(discriminator="kind"),
]

AttributeRoll.model_rebuild()

EFFECT_KINDS: tuple[str, ...] = tuple(
    get_args(member.model_fields["kind"].annotation)[0]
    for member in get_args(get_args(AnyEffect)[0])
)
"""Every effect kind the rule data may use (the engine has a handler for each)."""
