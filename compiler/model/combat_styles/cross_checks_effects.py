"""Cross-checks of how the engine finds special effects: every effect it applies names its
mechanic, the conditions effects leave name an effect of the matching mechanic (with the data
that condition needs), and Stun Location's senseless locations are hit locations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from arbiter.compiler.model.combat_styles.combat_rules import CONDITION_MECHANICS
from arbiter.compiler.model.combat_styles.effects import HOLD_CONDITIONS
from arbiter.compiler.model.common import Problem

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules

HOLDS = tuple(h for h in HOLD_CONDITIONS if h != "grappled")
"""Conditions a victim struggles free of by the governing effect's ``escape`` (a grapple's
escape is the grapple rules')."""

_RESISTED = ("resisted_by",)
MECHANIC_NEEDS: dict[str, tuple[str, ...]] = {
    "bash": ("params.knockback",),
    "bleed": ("params.fatigue_per_round", *_RESISTED),
    "blind_opponent": _RESISTED,
    "bypass_armor": ("params.ignores_armor",),
    "choose_location": ("params.chooses_location",),
    "circumvent_parry": ("params.ignores_parry",),
    "close_range": ("params.sets_range",),
    "compel_surrender": _RESISTED,
    "disarm_opponent": _RESISTED,
    "drop_foe": _RESISTED,
    "enhance_parry": ("params.blocks_all_damage",),
    "entangle": ("params.imposes_grade",),
    "force_failure": ("params.combines_with_opposed",),
    "impale": ("params.damage_rolls",),
    "kill_silently": ("params.auto_fails_endurance",),
    "marksman": ("params.location_steps",),
    "maximize_damage": ("params.maximized_dice",),
    "open_range": ("params.sets_range",),
    "overextend_opponent": ("params.prevents",),
    "overpenetration": ("params.second_target_damage",),
    "pin_down": _RESISTED,
    "press_advantage": ("params.prevents",),
    "rapid_reload": ("params.reload_reduction",),
    "slip_free": ("params.frees",),
    "stun_location": ("params.duration", *_RESISTED),
    "take_weapon": _RESISTED,
    "trip_opponent": _RESISTED,
}
"""The values each mechanic reads from its effect's data: an effect working by that mechanic
must set them (the consequence would otherwise be missing or silently different)."""


def _value(effect: object, dotted: str) -> object:
    for key in dotted.split("."):
        effect = getattr(effect, key)
    return effect


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
        for needed in MECHANIC_NEEDS.get(effect.mechanic or "", ()):
            if _value(effect, needed) in (None, False, ()):
                yield Problem(
                    path=(*where, *needed.split(".")),
                    message=f"an effect with mechanic {effect.mechanic!r} needs {needed}",
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
        linked = effects.get(effect_id)
        if linked is None:
            yield Problem(
                path=path,
                message=f"unknown special effect {effect_id!r} "
                f"(known: {', '.join(sorted(effects))})",
            )
            continue
        if linked.mechanic != mechanic:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has mechanic {linked.mechanic!r}, but the {condition} "
                f"condition is left by an effect with mechanic {mechanic!r}",
            )
        if condition in HOLDS and linked.escape is None:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has no escape, so a {condition} victim could never "
                "struggle free",
            )
        if condition == "impaled" and linked.params.withdraw_skill is None:
            yield Problem(
                path=path,
                message=f"{effect_id!r} has no params.withdraw_skill to pull the weapon free with",
            )


SPIRIT_MECHANIC_NEEDS: dict[str, tuple[str, ...]] = {
    "spirit_lance": ("params.damage_rolls",),
    "bleed_essence": ("params.magic_points_per_cycle",),
    "psychic_stun": ("params.lost_turns",),
    "restrain": ("params.condition",),
}
"""The values each spirit-combat mechanic reads from its effect's data."""


def spirit_effect_links(rules: CombatStylesRules) -> Iterator[Problem]:
    """Every spirit effect the engine applies names its mechanic and the numbers that mechanic
    reads; the conditions ``requires.taker_free_of`` names are ones a spirit effect leaves."""
    left = {e.params.condition for e in rules.spirit_effects if e.mechanic == "restrain"}
    for i, effect in enumerate(rules.spirit_effects):
        where = ("spirit_effects", i)
        if effect.mechanic is None and not effect.narrative:
            yield Problem(
                path=(*where, "mechanic"),
                message="a spirit effect the engine applies names its mechanic (e.g. mechanic = "
                "'spirit_lance'); mark one the GM judges narrative = true",
            )
        for needed in SPIRIT_MECHANIC_NEEDS.get(effect.mechanic or "", ()):
            if _value(effect, needed) is None:
                yield Problem(
                    path=(*where, *needed.split(".")),
                    message=f"a spirit effect with mechanic {effect.mechanic!r} needs {needed}",
                )
        for j, condition in enumerate(effect.requires.taker_free_of):
            if condition not in left:
                known = ", ".join(sorted(c for c in left if c)) or "none"
                yield Problem(
                    path=(*where, "requires", "taker_free_of", j),
                    message=f"no spirit effect leaves the condition {condition!r} "
                    f"(left by restrain effects: {known})",
                )
