"""Weapon traits and combat-style traits, with the numbers the engine reads from them.

A weapon trait says how the engine treats it (``effect``): ``rules`` — its ``rules`` table
holds the values the engine applies (or ``combat.swimming.thrusting_traits`` names it, which
the cross-checks see); ``narrative`` — the GM's call, shown in the journal and changing nothing.

A style trait says how the engine treats it (``effect``): ``rules`` — its ``rules`` table holds
the values the engine applies; ``unlocks_effects`` — it only makes special effects available
(a special effect's ``requires.style_trait`` names it); ``narrative`` — purely the GM's call,
recorded on the combatant and changing nothing. Nothing in between is accepted, so no trait
sits in the data unread.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from arbiter.compiler.model.combat_styles.basics import Fraction
from arbiter.compiler.model.common import Entry, Id, RuleModel


class WeaponTraitRules(RuleModel):
    """What a weapon trait changes. Only the fields a trait uses are set."""

    withdraw_damage: Fraction | None = None
    """Share of the weapon's damage roll dealt when it is pulled out of an impaling wound,
    instead of the Impale effect's ``withdraw_damage`` (Barbed: all of it)."""
    receives_charge: bool = False
    """The weapon may be set against a charge, striking with the charger's Damage Modifier."""

    def sets_anything(self) -> bool:
        """Whether any value is set."""
        return self != WeaponTraitRules()


class WeaponTrait(Entry):
    """A weapon property that is not a special effect (Thrown, Set, Barbed, Flexible…)."""

    name: str
    effect: Literal["rules", "narrative"]
    """``rules``: the engine applies ``rules`` (or the swimming rules name the trait);
    ``narrative``: the GM's call, nothing in the engine reads it."""
    rules: WeaponTraitRules = WeaponTraitRules()
    description: str

    @model_validator(mode="after")
    def _effect_matches_rules(self) -> WeaponTrait:
        if self.effect == "narrative" and self.rules.sets_anything():
            raise ValueError(
                "effect = 'narrative' takes no rules (they would be ignored); use effect = 'rules'"
            )
        return self


ParrySizeWhen = Literal["always", "damage_modifier_steps_above_attacker", "not_attacked_this_round"]
"""When a trait's parry size steps apply: always; when the parrier's Damage Modifier is at least
``damage_modifier_steps`` steps above the attacker's; in a Round the parrier has not attacked."""


class StyleTraitRules(RuleModel):
    """What a style trait changes, as the engine reads it. Only the fields a trait uses are set."""

    evade_ends_prone: bool | None = None
    """Whether evading leaves the holder prone (absent: ``combat.evading.ends_prone``)."""
    parry_size_steps: int = 0
    """Sizes larger the holder's parrying weapon counts when ``parry_size_when`` holds."""
    parry_size_when: ParrySizeWhen | None = None
    damage_modifier_steps: int | None = Field(default=None, ge=1)
    """For ``damage_modifier_steps_above_attacker``: how many steps above."""
    unarmed_parry_size: Id | None = None
    """The Size the holder's unarmed blocks and parries count as."""
    eases_situations: tuple[Id, ...] = ()
    """Situational modifiers whose grade is eased for the holder ..."""
    eased_steps: int = Field(default=0, ge=0)
    """... by this many grade steps."""
    lifts_skill_caps: tuple[Id, ...] = ()
    """Skill caps (``skill_caps`` ids) that do not limit the holder."""
    mounted_charge_grade_steps: int | None = None
    """Grade steps of the holder's charge from the back of a mount, instead of the charging
    rule's ``attack_grade_steps``."""
    stun_unit_on_surprised: Literal["minutes"] | None = None
    """The holder's Stun Location on a surprised victim lasts this unit instead of Turns."""

    def sets_anything(self) -> bool:
        """Whether any value is set (a ``rules`` trait must set one)."""
        return self != StyleTraitRules()

    @model_validator(mode="after")
    def _pairs(self) -> StyleTraitRules:
        if self.parry_size_steps and self.parry_size_when is None:
            raise ValueError("parry_size_steps needs parry_size_when (when the steps apply)")
        if self.parry_size_when is not None and not self.parry_size_steps:
            raise ValueError("parry_size_when needs parry_size_steps (how many sizes)")
        needs_steps = self.parry_size_when == "damage_modifier_steps_above_attacker"
        if needs_steps != (self.damage_modifier_steps is not None):
            raise ValueError(
                "damage_modifier_steps goes with parry_size_when = "
                "'damage_modifier_steps_above_attacker', and only with it"
            )
        if bool(self.eases_situations) != bool(self.eased_steps):
            raise ValueError("eases_situations and eased_steps go together")
        return self


class StyleTrait(Entry):
    """A combat-style trait (benefit) and how the engine treats it."""

    name: str
    group_only: bool = False
    """Works only if everyone in the group has the trait (the text's asterisk)."""
    effect: Literal["rules", "unlocks_effects", "narrative"]
    """``rules``: the engine applies ``rules``; ``unlocks_effects``: a special effect requires
    it; ``narrative``: the GM's call, recorded only."""
    rules: StyleTraitRules = StyleTraitRules()
    description: str

    @model_validator(mode="after")
    def _effect_matches_rules(self) -> StyleTrait:
        if self.effect == "rules" and not self.rules.sets_anything():
            raise ValueError(
                "effect = 'rules' needs a [style_traits.rules] value the engine applies; "
                "mark a trait the GM judges effect = 'narrative'"
            )
        if self.group_only and self.effect == "rules":
            raise ValueError(
                "a group_only trait works only when the whole group has it, which the engine "
                "does not track: mark it effect = 'narrative'"
            )
        if self.effect != "rules" and self.rules.sets_anything():
            raise ValueError(
                f"effect = {self.effect!r} takes no rules (they would be ignored); "
                "use effect = 'rules'"
            )
        return self
