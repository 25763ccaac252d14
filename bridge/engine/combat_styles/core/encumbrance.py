"""Encumbrance: the ENC a combatant carries against multiples of his STR.

The most severe band of ``combat.encumbrance`` his load exceeds makes the skills it lists
(the STR- and DEX-based ones) that many grades harder and says how he may move. A record
without ``enc`` is not assessed.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.checks import Grade
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView


def band_of(rules: RulesView, c: CombatantRecord) -> Any | None:
    """The most severe encumbrance band ``c``'s load exceeds (None: unburdened or unknown)."""
    enc = c.enc
    if enc is None:
        return None
    strength = c.characteristics["str"]
    exceeded = [
        b for b in rules.model.combat.encumbrance.bands if enc > b.over_str_multiple * strength
    ]
    return max(exceeded, key=lambda b: b.over_str_multiple, default=None)


def grade_steps(
    rules: RulesView, c: CombatantRecord, skill: str, notes: list[str] | None = None
) -> int:
    """Grades harder ``c``'s ``skill`` is for his load (0 for a skill encumbrance spares);
    when it is not 0, says so in ``notes``."""
    if c.enc is None or skill not in rules.model.combat.encumbrance.skills:
        return 0
    band = band_of(rules, c)
    if band is None or not band.grade_steps:
        return 0
    if notes is not None:
        notes.append(describe(c, band, skill))
    return int(band.grade_steps)


def describe(c: CombatantRecord, band: Any, skill: str) -> str:
    return (
        f"{c.name} is encumbered (ENC {c.enc} over {band.over_str_multiple}× STR "
        f"{c.characteristics['str']}): {skill.replace('_', ' ')} {band.grade_steps} "
        f"grade(s) harder; movement {band.movement}"
    )


def grade_for(rules: RulesView, c: CombatantRecord, skill: str) -> Grade | None:
    """The grade of an otherwise Standard roll of ``skill`` under ``c``'s load (None: no
    burden, the roll stays Standard)."""
    steps = grade_steps(rules, c, skill)
    if not steps:
        return None
    checks = rules.checks
    return checks.shifted(checks.grade(checks.standard), steps)
