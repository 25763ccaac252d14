"""Skill checks: difficulty grades, success levels, the check rules and the differential table.

The engine reads these to turn a skill and a d100 roll into a success level, and two levels
into a number of special effects; no number of the check lives in engine code.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.combat_styles.basics import Fraction, Rounding, implemented_only
from arbiter.compiler.model.common import Assumable, Entry, Id, RuleModel


class Grade(Entry):
    """A difficulty grade. ``step`` orders the ladder from easiest (0) to hardest.

    ``outcome`` is ``roll`` (multiply the skill by ``multiplier``), ``automatic`` (no roll, it
    succeeds) or ``impossible`` (no attempt may be made).
    """

    name: str
    step: int = Field(ge=0)
    outcome: Literal["roll", "automatic", "impossible"] = "roll"
    multiplier: Fraction | None = None
    description: str = ""

    @model_validator(mode="after")
    def _multiplier_when_rolled(self) -> Grade:
        if self.outcome == "roll" and self.multiplier is None:
            raise ValueError(
                "a grade that is rolled needs a multiplier, e.g. {numerator = 2, denominator = 3}"
            )
        if self.outcome != "roll" and self.multiplier is not None:
            raise ValueError(f"a grade whose outcome is {self.outcome!r} takes no multiplier")
        return self


class SuccessLevel(Entry):
    """A level of success; a higher ``rank`` beats a lower one in opposed and differential rolls."""

    name: str
    rank: int
    description: str = ""


class CheckRules(Assumable):
    """How a d100 roll against a (modified) skill becomes a success level."""

    die_faces: Annotated[int, implemented_only(100, "every check is a d100 roll")] = 100
    rounding: Annotated[Rounding, implemented_only("up", "every fraction in a check rounds up")] = (
        "up"
    )
    """How every fraction in the rules rounds (grade multipliers, halvings)."""
    grades_stack: Annotated[
        bool, implemented_only(False, "several penalties: only the most severe grade applies")
    ] = False
    """False: when several penalties apply, only the most severe grade counts."""
    critical_divisor: int = Field(gt=0)
    """A roll at or under ``ceil(skill / critical_divisor)`` is a critical."""
    critical_minimum: Annotated[
        int,
        implemented_only(
            1, "a skill above 0 criticals on ceil(skill / critical_divisor), at least 01"
        ),
    ]
    """The smallest critical range of a skill above 0 (a skill of 0 has no critical)."""
    fumble_rolls: tuple[int, ...]
    """Rolls that fumble while the modified skill is 100 or less."""
    fumble_rolls_over_100: tuple[int, ...]
    """Rolls that fumble when the modified skill is over 100."""
    automatic_success_max: int = Field(ge=0)
    """Rolls from 1 to this always succeed, whatever the skill."""
    automatic_failure_min: int
    """Rolls from this to the die's maximum always fail, whatever the skill."""
    over_100: Literal["subtract_excess_from_all"] = "subtract_excess_from_all"
    """Opposed or differential rolls with a skill over 100: every participant loses
    (highest skill − 100)."""
    over_100_needs_declared_defence: Annotated[
        bool,
        implemented_only(True, "a parry sent with parry_only_if_hit imposes no over-100 penalty"),
    ] = True
    """A defender may impose his over-100 penalty only if he declares his parry before the
    attacker rolls (no retroactive downgrading)."""
    over_100_endurance_retroactive: Annotated[
        bool,
        implemented_only(True, "the Endurance test re-reads the attack roll against the excess"),
    ] = True
    """When the wounded victim's Endurance is the skill over 100, its penalty is applied to
    the attacker's roll retroactively for the Endurance test only."""
    augment: Fraction
    """Share of the augmenting skill added to the primary skill."""
    augment_changes_critical: Annotated[
        bool, implemented_only(False, "the critical range uses the unaugmented skill")
    ] = False
    """False: the critical and fumble ranges use the unaugmented skill."""
    tie: Literal["higher_roll_wins"] = "higher_roll_wins"
    """Opposed roll with equal levels: the higher roll still inside the success range wins."""
    both_fail: Literal["reroll_or_gm"] = "reroll_or_gm"
    description: str = ""

    @model_validator(mode="after")
    def _rolls_on_the_die(self) -> CheckRules:
        for name in ("fumble_rolls", "fumble_rolls_over_100"):
            for roll in getattr(self, name):
                if not 1 <= roll <= self.die_faces:
                    raise ValueError(f"{name}: {roll} is not a face of a d{self.die_faces}")
        if not 1 <= self.automatic_failure_min <= self.die_faces:
            raise ValueError(f"automatic_failure_min {self.automatic_failure_min} is off the die")
        if self.automatic_success_max >= self.automatic_failure_min:
            raise ValueError("automatic_success_max must be below automatic_failure_min")
        for roll in (*self.fumble_rolls, *self.fumble_rolls_over_100):
            if roll < self.automatic_failure_min:
                raise ValueError(
                    f"fumble roll {roll} is below automatic_failure_min "
                    f"{self.automatic_failure_min}: a fumble must always fail"
                )
        return self


class DifferentialCell(RuleModel):
    """One pair of levels: ``effects`` > 0 means the protagonist wins that many special
    effects, < 0 means the antagonist does."""

    protagonist: Id
    antagonist: Id
    effects: int


class Differential(Assumable):
    """The differential-roll table and what stands in for a missing defence roll."""

    cells: tuple[DifferentialCell, ...]
    no_defence_level: Id
    """The level a defender counts as rolling when he does not (or cannot) parry or evade."""
    description: str = ""

    def effects(self, protagonist: str, antagonist: str) -> int:
        """Signed number of special effects for a pair of success-level ids."""
        for cell in self.cells:
            if cell.protagonist == protagonist and cell.antagonist == antagonist:
                return cell.effects
        raise KeyError(f"no differential cell for {protagonist!r} against {antagonist!r}")
