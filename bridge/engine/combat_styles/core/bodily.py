"""The bodily part of a combatant record: Magic Points, the spirit-combat skill, whether he is a
spirit, carried ENC, the starting fatigue level and what each hand holds (optional stat-block
fields)."""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.hands import initial_hands
from arbiter.bridge.engine.combat_styles.core.memo import memo_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import JSON


def bodily_record(rules: RulesView, block: Any, stats: dict[str, int]) -> JSON:
    """Record fields from a stat block's ``magic_points``, ``spirit_combat``, ``spirit``, ``enc``,
    ``fatigue`` and ``hands``; raises LookupError for an unknown fatigue level or hand."""
    mp = block.magic_points
    formula = rules.model.derived.magic_points
    if mp is None and formula is not None:
        # Memoised per view on the characteristics (a pure function of them, and a Python
        # call into the rule model).
        memo = memo_of(rules.memo, "magic_points")
        key = tuple(stats.values())
        mp = memo.get(key)
        if mp is None:
            mp = memo.put(key, formula.value(stats))
    out: JSON = {
        "magic_points": mp,
        "magic_points_max": mp,
        "spirit_combat": block.spirit_combat,
        "spirit": block.spirit,
        "enc": block.enc,
        "hands": initial_hands(rules, block.weapons, block.hands),
    }
    if block.fatigue is not None:
        ranks = [f.id for f in rules.fatigue]
        if block.fatigue not in ranks:
            raise LookupError(
                f"unknown fatigue level {block.fatigue!r} (known: {', '.join(ranks)})"
            )
        # The record counts levels lost from the first (Fresh): the level's place on the ladder.
        out["fatigue_levels"] = ranks.index(block.fatigue)
    return out
