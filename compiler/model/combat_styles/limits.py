"""The bounds the door holds a combat-styles stat block's numbers to
(``stat_block_limits.toml``)."""

from __future__ import annotations

from typing import ClassVar

from arbiter.compiler.model.common import Bound
from arbiter.compiler.model.common import StatBlockLimits as Limits


class StatBlockLimits(Limits):
    """Inclusive bounds of a stat block's numbers, by the stat-block field they hold (a
    mapping's bound holds each of its values). Read by the door
    (``bridge/engine/combat_styles/bodies/stat_blocks.py``), under the served rules."""

    # A negative skill, armour or initiative would turn a penalty into a bonus (or armour into
    # damage); a location starting at 0 hit points would take a Major Wound from its first
    # point of damage.
    FLOORS: ClassVar[dict[str, int]] = {
        "skills": 0,
        "hit_points": 1,
        "natural_armor": 0,
        "initiative_bonus": 0,
        "fatigue_initiative": 0,
        # Negative characteristics, points, movement, load or healing mean nothing to the
        # engine's formulas; a body of SIZ 0 has no hit points to give its locations.
        "characteristics": 0,
        "siz": 1,
        "action_points": 0,
        "luck_points": 0,
        "movement": 0,
        "magic_points": 0,
        "spirit_combat": 0,
        "enc": 0,
        "healing_rate": 0,
    }

    characteristics: Bound
    """Each characteristic but SIZ (STR, CON, DEX, INT, POW, CHA)."""
    siz: Bound
    """SIZ (listed after ``characteristics``: the schema writer lets it override theirs)."""

    skills: Bound
    """Every percentile skill value."""
    natural_armor: Bound
    """Natural armour points at a location."""
    hit_points: Bound
    """A location's starting hit points."""
    initiative_bonus: Bound
    fatigue_initiative: Bound
    """The initiative penalty from fatigue (subtracted)."""
    action_points: Bound
    luck_points: Bound
    movement: Bound
    """Movement rate in metres."""
    magic_points: Bound
    spirit_combat: Bound
    enc: Bound
    """Total ENC carried."""
    healing_rate: Bound
    """Without a ``max``: no upper bound."""
