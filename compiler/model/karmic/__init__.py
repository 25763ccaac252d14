"""Rule data of the karmic card duels (``compiler/rules/karmic/``).

The deck, the maneuvers and their conditions, called-shot modifiers, ranges, weapons, armor,
combat modifiers, damage rules, draws, hands, lasting effects, odds and special situations. The
engine (``arbiter.bridge.engine.karmic``) reads all of it; no number or id of the rules lives in code.
"""

from arbiter.compiler.model.karmic.entries import (
    Armor,
    CalledShot,
    Card,
    Charge,
    CombatModifier,
    DamageMultiplier,
    DamageRules,
    Draws,
    FoeSizes,
    Hands,
    LastingEffect,
    LastingEffectId,
    Maneuver,
    Odds,
    RangeRules,
    SpecialRange,
    Surprise,
    Weapon,
)
from arbiter.compiler.model.karmic.ruleset import KarmicRules

RULESET_MODEL = KarmicRules

__all__ = [
    "RULESET_MODEL",
    "Armor",
    "CalledShot",
    "Card",
    "Charge",
    "CombatModifier",
    "DamageMultiplier",
    "DamageRules",
    "Draws",
    "FoeSizes",
    "Hands",
    "KarmicRules",
    "LastingEffect",
    "LastingEffectId",
    "Maneuver",
    "Odds",
    "RangeRules",
    "SpecialRange",
    "Surprise",
    "Weapon",
]
