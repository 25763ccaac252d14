"""The combat-styles rule-data model (``compiler/rules/combat-styles/``).

One module per concern: :mod:`.checks` (grades, success levels, differential), :mod:`.effects`
(special effects), :mod:`.equipment` (sizes, reach, weapons, shields, armour), :mod:`.body`
(hit locations, wounds, damage modifier), :mod:`.situations` (situational modifiers, impale,
distance, knockback, charging, fatigue), :mod:`.rounds` (actions, action points, initiative,
combat styles), :mod:`.combat_rules` (other combat numbers). :mod:`.model` ties them together
with lookups for the engine; :mod:`.cross_checks` and :mod:`.reference` check and render it.
"""

from arbiter.compiler.model.combat_styles.basics import Band, Fraction
from arbiter.compiler.model.combat_styles.body import HitLocation, HitLocationTable, WoundLevel
from arbiter.compiler.model.combat_styles.checks import (
    CheckRules,
    Differential,
    Grade,
    SuccessLevel,
)
from arbiter.compiler.model.combat_styles.effects import (
    EffectParams,
    EffectRequirements,
    SpecialEffect,
)
from arbiter.compiler.model.combat_styles.equipment import Armor, RangedWeapon, Shield, Weapon
from arbiter.compiler.model.combat_styles.model import CombatStylesRules

RULESET_MODEL = CombatStylesRules

__all__ = [
    "RULESET_MODEL",
    "Armor",
    "Band",
    "CheckRules",
    "CombatStylesRules",
    "Differential",
    "EffectParams",
    "EffectRequirements",
    "Fraction",
    "Grade",
    "HitLocation",
    "HitLocationTable",
    "RangedWeapon",
    "Shield",
    "SpecialEffect",
    "SuccessLevel",
    "Weapon",
    "WoundLevel",
]
