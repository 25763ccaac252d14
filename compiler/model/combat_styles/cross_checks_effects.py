"""Cross-checks of how the engine finds special effects: every effect it applies names its
mechanic, the conditions effects leave name an effect of the matching mechanic (with the data
that condition needs), and Stun Location's senseless locations are hit locations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from compiler.model.combat_styles.combat_rules import CONDITION_MECHANICS
from compiler.model.common import Problem

if TYPE_CHECKING:
    from compiler.model.combat_styles.model import CombatStylesRules

HOLDS = ("gripped", "entangled", "pinned")
"""Conditions a victim struggles free of, by the governing effect's ``escape``."""


def effect_links(rules: CombatStylesRules, locations: set[str]) -> Iterator[Problem]:
    """Every problem in the links between effects, their mechanics and their conditions."""
    for i, effect in enumerate(rules.special_effects):
        where = ("special_effects", i)
        if effect.mechanic is None and not effect.narrative:
            yield Problem(
                path=(*where, "mechanic"),
                message="an effect the engine applies names its mechanic (e.g. mechanic = "
                "'sunder', or 'generic'); mark an effect the GM judges narrative = true",
            )
        for j, loc in enumerate(effect.params.senseless_locations):
            if loc not in locations:
                yield Problem(
                    path=(*where, "params", "senseless_locations", j),
                    message=f"unknown hit location {loc!r} (known: {', '.join(sorted(locations))})",
                )
    effects = {e.id: e for e in rules.special_effects}
    links = rules.combat.effect_conditions
    for condition, mechanic in CONDITION_MECHANICS.items():
        path = ("combat", "effect_conditions", condition)
        effect_id = getattr(links, condition)
        effect = effects.get(effect_id)
        if effect is None:
            yield Problem(
                path=path,
                message=f"unknown special effect {effect_id!r} "
                f"(known: {', '.join(sorted(effects))})",
            )
            continue
        if effect.mechanic != mechanic:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has mechanic {effect.mechanic!r}, but the {condition} "
                f"condition is left by an effect with mechanic {mechanic!r}",
            )
        if condition in HOLDS and effect.escape is None:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has no escape, so a {condition} victim could never "
                "struggle free",
            )
        if condition == "impaled" and effect.params.withdraw_skill is None:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has no params.withdraw_skill to pull the weapon free with",
            )
