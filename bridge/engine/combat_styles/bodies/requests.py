"""Typed bodies of every combat-styles request (validated at the edge by pydantic)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import Body, StatBlock

LuckPolicy = Literal["critical", "success"]
"""Spend a luck point to re-roll once when the result is worse than this level."""


class CheckBody(Body):
    """A single d100 check."""

    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    skill: int = Field(ge=0, le=500)
    grades: list[str] = Field(default_factory=list, max_length=16)
    """Difficulty grades that apply; the most severe counts."""
    grade_steps: int = Field(default=0, ge=-6, le=6)
    """Further steps harder (positive) or easier (negative), e.g. an unfamiliar weapon."""
    augment: int = Field(default=0, ge=0, le=500)
    luck: LuckPolicy | None = None
    label: str = Field(default="", max_length=64)
    combatant: str | None = Field(default=None, max_length=64)
    """A combatant of the encounter whose conditions grade the check (fatigue, blinded, an
    entangled or grappled head or torso, an impaled weapon, prone)."""
    skill_name: str | None = Field(default=None, max_length=64)
    """The skill checked (e.g. ``athletics``): with ``combatant``, his load grades it when the
    rule data's encumbrance lists that skill."""


class Side(Body):
    skill: int = Field(ge=0, le=500)
    grades: list[str] = Field(default_factory=list, max_length=16)
    grade_steps: int = Field(default=0, ge=-6, le=6)
    augment: int = Field(default=0, ge=0, le=500)
    luck: LuckPolicy | None = None


class OpposedBody(Body):
    """Two checks against each other; ``differential`` also reports special effects won."""

    acting: ClassVar[tuple[str, ...]] = ()

    protagonist: Side
    antagonist: Side
    differential: bool = True


class Situation(Body):
    """Circumstances of an exchange (all optional)."""

    attacker_situations: list[str] = Field(default_factory=list, max_length=16)
    """Situational modifier ids that apply to the attack roll."""
    defender_situations: list[str] = Field(default_factory=list, max_length=16)
    """Situational modifier ids that apply to the defence roll."""
    charging: bool = False
    surprise: bool = False
    """The defender is surprised: cannot defend, and a successful attack wins a bonus effect."""
    distance: int | None = Field(default=None, ge=0, le=100000)
    """Metres to the target (ranged attacks)."""
    target_stationary: bool = False
    aiming: bool = False
    crowd: Literal["none", "edge", "through"] = "none"
    blind_strike: bool = False
    """Striking blindly at a target behind total cover."""
    cover: dict[str, int] = Field(default_factory=dict)
    """Hit location id → armour points of the cover in front of it (partial cover)."""
    pulled_blow: bool = False
    mounted: bool = False
    """The attacker is mounted and the target is a lower biped (mounted location die)."""
    familiarity: str | None = None
    """Weapon familiarity id from the rule data (similar, broadly-similar …)."""
    defender_familiarity: str | None = None
    """The same for the defender's parrying weapon ("offensive and defensive actions")."""
    cap: str | None = Field(default=None, max_length=64)
    """A ``skill_caps`` id from the rule data (climbing, swimming, mounted …): the attacker's and
    defender's combat skills are capped by the skill it names."""
    engaged_reach: str | None = None
    """The reach at which the pair is fighting (closing and opening range)."""
    defender_braced: bool = False
    set_against_charge: bool = False
    """The attacker's weapon (trait ``set``) is set against the defender's charge: it strikes
    with the charger's damage modifier (charge steps included)."""
    obstacle: bool = False
    """Something stands behind the defender (Bash into an obstacle)."""
    braced_weapon: bool = False
    """A mounted charge with the weapon braced (a couched lance): it cannot parry until the
    end of the rider's next turn unless ``combat.mounted.braced_weapon_can_parry``."""
    prepared_position: bool = False
    """The attacker fires from a prepared position: a weapon the rule data names (crossbows,
    firearms) escapes the situations it negates (Attacker prone). Ranged attacks only."""


_NO_SITUATION = Situation()
"""The circumstances of an exchange that names none: one instance for every such request."""


def _no_situation() -> Situation:
    """:data:`_NO_SITUATION`. A factory, not a default: pydantic deep-copies a model default,
    and building a fresh Situation cost every exchange a model validation. Sharing one is safe:
    it is frozen, and the engine only reads a body's situation (its lists are never changed)."""
    return _NO_SITUATION


class EffectChoice(Body):
    """One special effect picked by the winner, with its options."""

    id: str = Field(min_length=1, max_length=64)
    location: str | None = None
    """Choose Location / Marksman: the location hit; Entangle/Grip: the location held."""
    bypass: Literal["worn", "natural"] | None = None
    """Bypass Armor: which protection is ignored (default: worn first, then natural)."""
    weapon: str | None = None
    """Damage Weapon / Pin Weapon / Disarm / Take Weapon: the opponent's weapon aimed at."""
    with_effect: str | None = None
    """Force Failure: the effect whose resistance roll is failed automatically."""
    leave_in: bool = True
    """Impale: leave the weapon in the wound (otherwise it is free for the wielder)."""
    counter: str | None = None
    """Prepare Counter: the effect to anticipate."""


class ExchangeBody(Body):
    """An attack and the defender's reaction (see docs/requests-combat-styles.md)."""

    acting: ClassVar[tuple[str, ...]] = ("attacker", "mitigate_damage")

    awaits_unless: ClassVar[str] = "effects"
    """Without ``effects`` the exchange waits for the winner's choice whenever the dice award
    special effects: without an encounter to keep that wait, the server refuses it before any
    die (``arbiter.bridge.refusals.pending_without_encounter``)."""

    attacker: str
    defender: str
    weapon: str | None = None
    """The attacker's weapon id (default: his first weapon in hand, else unarmed)."""
    defence: Literal["parry", "evade", "none", "counterattack"] = "parry"
    parry_weapon: str | None = None
    parry_only_if_hit: bool = False
    """Decide to parry after seeing the attack: no AP spent on a miss, and a skill over 100
    imposes no penalty (the retroactive-parry rule)."""
    situation: Situation = Field(default_factory=_no_situation)
    """Circumstances (absent: none, the one shared :data:`_NO_SITUATION`)."""
    attacker_augment: int = Field(default=0, ge=0, le=500)
    defender_augment: int = Field(default=0, ge=0, le=500)
    attacker_luck: LuckPolicy | None = None
    defender_luck: LuckPolicy | None = None
    grapple: bool = False
    """An Unarmed grapple: the contest's winner holds the location struck instead of damaging."""
    odds: bool = False
    """Add the exact odds of this pairing to the result."""
    effects: list[EffectChoice] | None = Field(default=None, max_length=8)
    """The winner's choice made in advance: when given, the exchange finishes at once."""
    bystander: str | None = None
    """A combatant next to the target (firing into a crowd, Select Target)."""
    mitigate_damage: list[str] = Field(default_factory=list, max_length=32)
    """Combatants who spend Luck Points (Mitigate Damage) should a blow of this exchange leave
    them the wound level ``combat.luck.mitigate_from`` (Major)."""
    combatants: list[StatBlock] | None = Field(default=None, max_length=32)
    """Without an encounter: the stat blocks of both parties."""
    defended_by: str | None = None
    """The defender is a mount and its rider defends it with his own skill, paying
    ``combat.mounted.defend_mount_ap_cost`` action points."""
    defended_with: Literal["combat_style", "ride"] = "combat_style"
    """The rider's skill that replaces the mount's (Combat Style parries with his weapon)."""


class ChooseEffectsBody(Body):
    """The winner's choice of special effects for a pending exchange."""

    acting: ClassVar[tuple[str, ...]] = ("by",)

    token: str = Field(min_length=1, max_length=32)
    by: str | None = Field(default=None, min_length=1, max_length=64)
    """Who chooses: the exchange's winner (its pending choice's ``by``). A player holding him
    may send the choice; a ``by`` that is not the winner is refused. Absent: the GM chooses
    for him (a table action)."""
    effects: list[EffectChoice] = Field(default_factory=list, max_length=8)


class OddsBody(Body):
    """Exact odds of an exchange between two skills."""

    acting: ClassVar[tuple[str, ...]] = ()

    attack: Side
    defence: Side | None = None
    """None: the defender does not defend (counts as the no-defence level)."""
    surprise: bool = False


class StartEncounterBody(Body):
    acting: ClassVar[tuple[str, ...]] = ()

    combatants: list[StatBlock] = Field(min_length=1, max_length=32)
    surprised: list[str] = Field(default_factory=list)
    """Combatants caught by surprise (−10 initiative, cannot act offensively this round)."""
    fatigue_checks: bool = False
    """Roll the Endurance checks against fatigue as rounds close (rule data
    ``combat.fatigue_checks``)."""


class InitiativeBody(Body):
    """Roll initiative for every combatant of the encounter: the request carries nothing."""

    acting: ClassVar[tuple[str, ...]] = ()


class ActBody(Body):
    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: str
    action: str = Field(min_length=1, max_length=64)
    """An action id from the rule data's action lists (attack, dither, ready-weapon …)."""
    weapon: str | None = None
    """Ward Location: the weapon or shield held as a passive block; Ready Weapon: the weapon
    drawn, sheathed, picked up or pulled free; Drop Weapon: the weapon let go."""
    locations: list[str] = Field(default_factory=list, max_length=14)
    """Ward Location: the locations covered (a shield covers its passive-block count)."""
    crouching: bool = False
    """Ward Location: crouching behind a shield multiplies the locations it may cover."""
    target: str | None = None
    """A follow-up move (Trip the Entangled): the foe, needed only when several are open to it;
    Regain Footing: the engaged opponent he must beat before standing."""
    skill: str | None = Field(default=None, min_length=1, max_length=64)
    """Regain Footing: the skill the stander tests (one the rule data lists; default his best)."""


class CombatantBody(Body):
    acting: ClassVar[tuple[str, ...]] = ("combatant",)

    combatant: str


class EmptyBody(Body):
    """A request whose meaning is its type alone (e.g. the next turn)."""

    acting: ClassVar[tuple[str, ...]] = ()


class SpiritCombatBody(Body):
    """One exchange of spirit combat: the attacker's spirit-combat skill against the
    defender's resistance (rule data ``combat.spirit_combat``), damage to Magic Points."""

    acting: ClassVar[tuple[str, ...]] = ("attacker",)

    awaits_unless: ClassVar[str] = "effects"
    """As for :class:`ExchangeBody`: the choice of spirit effects made in advance."""

    attacker: str
    defender: str
    attacker_grades: list[str] = Field(default_factory=list, max_length=16)
    attacker_grade_steps: int = Field(default=0, ge=-6, le=6)
    attacker_augment: int = Field(default=0, ge=0, le=500)
    attacker_luck: LuckPolicy | None = None
    defender_grades: list[str] = Field(default_factory=list, max_length=16)
    defender_grade_steps: int = Field(default=0, ge=-6, le=6)
    defender_augment: int = Field(default=0, ge=0, le=500)
    defender_luck: LuckPolicy | None = None
    effects: list[EffectChoice] | None = Field(default=None, max_length=8)
    """The winner's choice of spirit effects (``spirit_effects`` ids) made in advance: when
    given, the exchange finishes at once."""
    combatants: list[StatBlock] | None = Field(default=None, max_length=32)
    """Without an encounter: the stat blocks of both parties."""
