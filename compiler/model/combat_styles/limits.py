"""The bounds the door holds a combat-styles stat block's numbers to
(``stat_block_limits.toml``)."""

from __future__ import annotations

from pydantic import ValidationInfo, field_validator

from arbiter.compiler.model.common import Bound, RuleModel


class StatBlockLimits(RuleModel):
    """Inclusive bounds of a stat block's numbers, by the stat-block field they hold (a
    mapping's bound holds each of its values). Read by the door
    (``bridge/engine/combat_styles/bodies/stat_blocks.py``), under the served rules."""

    skills: Bound
    """Every percentile skill value."""
    hit_points: Bound
    """A location's starting hit points."""
    natural_armor: Bound
    """Natural armour points at a location."""
    initiative_bonus: Bound
    fatigue_initiative: Bound
    """The initiative penalty from fatigue (subtracted)."""

    @field_validator("*")
    @classmethod
    def _floor(cls, bound: Bound, info: ValidationInfo) -> Bound:
        # What the engine's arithmetic needs, whatever the data: a negative skill, armour or
        # initiative would turn a penalty into a bonus (or armour into damage), and a location
        # starting at 0 hit points would take a Major Wound from its first point of damage.
        floor = FLOORS.get(info.field_name or "")
        if isinstance(bound, Bound) and floor is not None and bound.min < floor:
            raise ValueError(f"min {bound.min} is under {floor}, the least the engine can use")
        return bound


FLOORS = {
    "skills": 0,
    "hit_points": 1,
    "natural_armor": 0,
    "initiative_bonus": 0,
    "fatigue_initiative": 0,
}
"""The least ``min`` of each bound the engine can work with (not a rule: arithmetic)."""
