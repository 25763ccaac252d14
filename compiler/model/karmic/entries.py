"""The entries and tables of the karmic rule data, one model per kind of entry."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from arbiter.compiler.model.common import Assumable, Entry, Id, RuleModel

ManeuverKind = Literal["offense", "defense", "action"]
Step = Literal["forward", "back", "none"]
FoeSize = Literal["any", "equal", "large", "small"]
DifficultyFrom = Literal["fixed", "target_finesse", "target_count", "limb_vitality"]
Effect = Literal["none", "disarm", "flank", "cling", "free", "push", "buck", "change_weapon"]
LastingEffectId = Literal["disarmed", "flanked", "clung", "entangled"]
"""The effects the engine records on a fighter and carries from register to register."""


class Card(Entry):
    """A card face of the deck; ``copies`` identical cards of it are shuffled in."""

    value: int
    hit: bool = False
    copies: int = Field(default=1, ge=1, le=20)


class Maneuver(Entry):
    """A maneuver played with a card in a register, with its difficulty and conditions."""

    name: str
    kind: ManeuverKind
    difficulty: int = 0
    difficulty_from: DifficultyFrom = "fixed"
    requires_initiative: bool = False
    foe_size: FoeSize = "any"
    step: Step = "none"
    may_skip_step: bool = False
    defended_by: tuple[Id, ...] = ()
    deals_damage: bool = False
    damage_factor: int = Field(default=1, ge=1)
    effect: Effect = "none"
    called_shots: bool = False
    declared_as: Id | None = None
    needs_weapon: bool = True
    weapon_kind: Id | None = None
    at_range: int | None = None
    once_per_round: bool = False
    forced_location: Id | None = None
    no_location_benefit: bool = False
    shield_cannot_parry: bool = False
    needs_bash: bool = False
    """Made only with a weapon that can bash (the weapon's ``can_bash``)."""
    seizes_initiative: bool = False
    ends_actions: bool = False
    surrenders_initiative: bool = False
    resolve_immediately: bool = False
    multiple_targets: bool = False
    needs_clinger: bool = False
    barred_by_flank: bool = False
    """Not playable against a foe who has flanked the player (the flank's lasting effect)."""
    text: str = ""


class CalledShot(Entry):
    """A hit location's attack modifier against equal, large and small foes (None: forbidden)."""

    name: str
    normal: int
    large: int | None = None
    small: int | None = None

    def modifier(self, foe_size: str) -> int | None:
        """The modifier against a foe of ``foe_size`` (normal, large, small); None if forbidden."""
        return {"normal": self.normal, "large": self.large, "small": self.small}[foe_size]


class FoeSizes(RuleModel):
    """When a foe counts as large or small relative to the attacker."""

    large_factor: int = Field(ge=1)
    small_factor: int = Field(ge=1)
    text: str = ""


class RangeRules(Assumable):
    """Stepping rules: the no-step modifier and how steps change the range."""

    no_step_modifier: int
    feet_per_yard: int = Field(ge=1)
    follow_lone_step_back: bool = True
    attack_without_step_back_closes: bool = True
    text: str = ""


class SpecialRange(Entry):
    """A named range (close, wrestling) and its value in the range bookkeeping."""

    name: str
    value: int
    text: str = ""


class Weapon(Entry):
    """A weapon: range in yards, maximum maneuvers per round, maximum damage, kind."""

    name: str
    range: int = Field(ge=0)
    max_maneuvers: int = Field(ge=1)
    max_damage: int = Field(ge=0)
    kind: Id
    can_bash: bool = False
    can_parry: bool = True


class Armor(Entry):
    """Armor: its modifier joins the combat modifiers; protection is subtracted from damage."""

    name: str
    modifier: int
    protection: int = Field(ge=0)


class CombatModifier(Entry):
    """One part of the combat modifiers every total adds."""

    name: str
    source: Literal["combatant", "armor"]


class DamageRules(Assumable):
    """Damage rules the text leaves open (RULES-NOTES)."""

    minimum_on_success: int = Field(ge=0)
    out_at_vitality: int


class DamageMultiplier(Assumable):
    """How a called-shot location multiplies damage."""

    location: Id
    multiplier: int = Field(ge=0)


class Draws(Assumable):
    """Which skills give how many cards."""

    default_skill: int = Field(ge=1)
    initiative_skill: Id
    showdown_skill: Id
    weapon_change_skill: Id
    max_initiative_redraws: int = Field(ge=1)
    text: str = ""


class Charge(Assumable):
    """The charge: its damage bonus and the maneuvers each side makes that turn."""

    max_damage_bonus: int
    maneuvers_each: int = Field(ge=1)
    text: str = ""


class Surprise(Assumable):
    """Surprise: the skill a target draws to avoid it and the maneuver the attack is."""

    check_skill: Id
    maneuver: Id
    """The offense a surprise attack is resolved as (its difficulty, damage and effect)."""
    text: str = ""


class Hands(Assumable):
    """What a fighter holds and how many maneuvers two weapons give."""

    off_hand_extra_maneuvers: int = Field(ge=0)
    """With an off-hand weapon or shield: the higher of the two maximums plus this many."""
    bare_hands: Id
    """The weapon a disarmed main hand holds, and a fighter who enters without a weapon."""
    text: str = ""


class LastingEffect(Assumable):
    """How long an effect the engine records on a fighter lasts."""

    id: LastingEffectId
    name: str
    rounds: int | None = Field(default=None, ge=0)
    """Rounds it lasts after the one it began in (0: to the end of that round); absent: until
    a maneuver undoes it (a buck ends a cling, a chop an entanglement)."""
    text: str = ""


class Odds(Assumable):
    """What the exact odds assume about a target who has not declared yet."""

    assumed_defense: Id
    """The defense the target is counted as playing with an unseen card."""
    text: str = ""
