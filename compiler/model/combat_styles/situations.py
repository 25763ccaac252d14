"""Situations: situational modifiers, impale effects, distance penalties, knockback,
charging and fatigue levels."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.combat_styles.basics import (
    Band,
    Fraction,
    Skill,
    ceil_div,
    implemented_only,
)
from arbiter.compiler.model.common import Assumable, Entry, Id, RuleModel

CombatantCondition = Literal[
    "prone",
    "blinded",
    "disarmed",
    "entangled",
    "gripped",
    "grappled",
    "pinned",
    "pinned_down",
    "in_cover",
    "bleeding",
    "surprised",
    "impaled",
]
"""Conditions the engine records on a combatant that a situational modifier may follow."""


class PreparedPosition(RuleModel):
    """The weapons a prepared position frees from a situational modifier: by id, or by kind."""

    weapons: tuple[Id, ...] = ()
    kinds: tuple[Literal["ranged", "firearm", "siege"], ...] = ()


class SituationalModifier(Entry):
    """A situation and the difficulty grade it imposes (the most severe of several applies)."""

    name: str
    context: Literal["close", "ranged"]
    grade: Id
    applies_to: Literal["all", "attack", "defence"] = "all"
    """Close-combat modifiers apply to attacking, parrying and evading unless stated."""
    while_condition: CombatantCondition | None = None
    """The engine applies this situation by itself to the rolls of a combatant bearing this
    condition (e.g. ``prone``: fighting while prone); absent, it applies only when named. A
    ``close`` one grades every roll but a ranged attack; a ``ranged`` one grades the bearer's
    ranged attacks instead of the close one following the same condition (attacker prone)."""
    negated_from_prepared_position: PreparedPosition | None = None
    """A ranged attack with one of these weapons from a prepared position
    (``situation.prepared_position``) escapes this modifier (a prone crossbowman)."""
    description: str = ""

    @model_validator(mode="after")
    def _ranged_conditions_grade_attacks(self) -> SituationalModifier:
        if self.context == "ranged" and self.while_condition and self.applies_to != "attack":
            raise ValueError(
                f"{self.id}: a ranged situation following a condition grades the bearer's "
                "ranged attacks (applies_to = 'attack')"
            )
        if self.negated_from_prepared_position is not None and self.context != "ranged":
            raise ValueError(f"{self.id}: only a ranged situation is negated from a position")
        return self


class SkillCap(Entry):
    """Combat skills may not exceed ``capped_by`` while in this situation."""

    situation: str
    capped_by: Skill
    description: str = ""


class ImpaleRow(Entry):
    """The impale table row for creatures of ``siz``: the effect of a weapon of each Size
    left in the wound — a grade id, ``no_effect`` or ``incapacitated``."""

    siz: Band
    by_weapon_size: dict[Id, Id]


class DistanceRow(RuleModel):
    """Grade steps (+ harder, − easier) at a distance band, one per target-SIZ column."""

    metres: Band
    steps: tuple[int, ...]


class DistanceBeyond(Assumable):
    """How the table continues beyond its last row: ``every_metres`` further adds ``steps``
    to the value that many metres nearer."""

    every_metres: int = Field(gt=0)
    steps: int


class DistancePenalties(Assumable):
    """Distance penalties for ranged attacks, by distance and target SIZ."""

    siz_columns: tuple[Band, ...] = Field(min_length=1)
    rows: tuple[DistanceRow, ...] = Field(min_length=1)
    beyond: DistanceBeyond
    simplified_from_metres: int
    """The text's simplification: penalties take effect only beyond this distance."""
    description: str = ""

    @model_validator(mode="after")
    def _row_widths(self) -> DistancePenalties:
        width = len(self.siz_columns)
        for i, row in enumerate(self.rows):
            if len(row.steps) != width:
                raise ValueError(
                    f"row #{i + 1} ({row.metres} m) has {len(row.steps)} steps; "
                    f"expected one per SIZ column ({width})"
                )
        return self

    def steps(self, metres: int, siz: int) -> int:
        """Grade steps for a target of ``siz`` at ``metres``. Beyond the last row, each
        ``beyond.every_metres`` further adds ``beyond.steps`` to the value that much nearer."""
        column = next((i for i, b in enumerate(self.siz_columns) if b.contains(siz)), None)
        if column is None:
            raise KeyError(f"no distance-penalty column for SIZ {siz}")
        last = self.rows[-1].metres.max
        extra = 0
        if last is not None and metres > last:
            further = ceil_div(metres - last, self.beyond.every_metres)
            metres -= further * self.beyond.every_metres
            extra = further * self.beyond.steps
        for row in self.rows:
            if row.metres.contains(metres):
                return row.steps[column] + extra
        raise KeyError(f"no distance-penalty row for {metres} m")


class AvoidFall(RuleModel):
    """A check (any one of several) to avoid falling prone."""

    skill: Skill
    grade: Id


class Knockback(Assumable):
    """Knockback from blows whose rolled damage (before parry and armour) exceeds SIZ."""

    metres_per_points: int = Field(gt=0)
    """One metre per this many points (or fraction) of damage over SIZ."""
    avoid_fall: tuple[AvoidFall, ...]
    brace_siz_multiplier: Fraction
    """Brace: SIZ counts this much larger against knockback and leaping attacks."""
    brace_siz_multiplier_vs_bash: Fraction
    description: str = ""

    def metres(self, damage: int, siz: int) -> int:
        """Metres knocked back (0 when the damage does not exceed SIZ)."""
        over = damage - siz
        return 0 if over <= 0 else ceil_div(over, self.metres_per_points)


class Charging(Assumable):
    """The numbers of a charge."""

    min_rounds_of_movement: int = Field(ge=0)
    attack_grade_steps: int
    weapon_size_steps: int
    damage_modifier_steps_biped: int
    damage_modifier_steps_quadruped: int
    set_weapon_uses_chargers_dm: Annotated[
        bool,
        implemented_only(
            True, "a weapon set against a charge strikes with the charger's Damage Modifier"
        ),
    ] = True
    benefits_last: Literal["first_attack"] = "first_attack"
    counterattack_counts_as_failed_parry: Annotated[
        bool,
        implemented_only(True, "against a counterattack both sides count as failing to parry"),
    ] = True
    description: str = ""


class FatigueLevel(Entry):
    """A fatigue level. ``skill_grade`` is an absolute floor (not extra steps); ``movement``
    is a change in metres, or ``half``/``immobile``/``none``."""

    name: str
    rank: int
    skill_grade: Id | None = None
    no_activity: bool = False
    movement: int | Literal["half", "immobile", "none"] = 0
    initiative: int = 0
    action_points: int = 0
    recovery_minutes: int | None = Field(None, ge=0)
    """Time to recover one level, before dividing by Healing Rate; absent: never."""
