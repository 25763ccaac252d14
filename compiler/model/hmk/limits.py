"""The bounds the door holds an hmk stat block's numbers to (``stat_block_limits.toml``)."""

from __future__ import annotations

from typing import ClassVar

from arbiter.compiler.model.common import Bound
from arbiter.compiler.model.common import StatBlockLimits as Limits


class StatBlockLimits(Limits):
    """Inclusive bounds of a stat block's numbers, by the stat-block field they hold (each
    attribute, each skill). Read by the door (``bridge/engine/hmk/requests.py``), under the
    served rules."""

    # A negative score would turn a roll's target upside down; a combatant needs an Injury
    # Point to be hurt and an action to act.
    FLOORS: ClassVar[dict[str, int]] = {
        "attributes": 0,
        "ip": 1,
        "defensive_tactics": 0,
        "specialization": 0,
        "skills": 0,
        "actions": 1,
    }

    attributes: Bound
    """Each of the six attributes."""
    ip: Bound
    """Injury Points when unhurt."""
    defensive_tactics: Bound
    specialization: Bound
    skills: Bound
    """Each weapon skill."""
    actions: Bound
    """Actions a round."""
