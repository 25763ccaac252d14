"""The bounds the door holds a karmic stat block's numbers to (``stat_block_limits.toml``)."""

from __future__ import annotations

from typing import ClassVar

from arbiter.compiler.model.common import Bound
from arbiter.compiler.model.common import StatBlockLimits as Limits


class StatBlockLimits(Limits):
    """Inclusive bounds of a stat block's numbers, by the stat-block field they hold (each
    skill). Read by the door (``bridge/engine/karmic/requests.py``), under the served rules."""

    # A fighter needs Vitality to be hurt and a size to be struck; a negative skill would be a
    # penalty the rules never give. Finesse and Force are modifiers: negative is their nature.
    FLOORS: ClassVar[dict[str, int]] = {"vitality": 1, "size": 1, "skills": 0}

    finesse: Bound
    force: Bound
    vitality: Bound
    size: Bound
    skills: Bound
    """Each skill."""
