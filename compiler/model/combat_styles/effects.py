"""Special effects: who may take them, what they require, how they are resisted, their numbers.

A special effect is chosen by the winner of a differential roll. The engine decides which
effects are eligible from :class:`EffectRequirements` (rolls, weapon, situation), resolves any
resistance roll from :class:`Resistance`, and applies the numbers in :class:`EffectParams`.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from arbiter.compiler.model.combat_styles.basics import Attribute, DiceText, Fraction, Skill
from arbiter.compiler.model.common import Entry, Id, RuleModel

Taker = Literal["attacker", "defender", "either"]
"""Who may choose the effect: the winner of an attack, of a defence (parry or evade), or both."""

WeaponKind = Literal["melee", "ranged", "unarmed", "shield", "firearm", "siege"]
"""What the taker fights with: a weapons entry (``melee`` or ``unarmed``), a shield, or a
ranged weapon (``ranged``, ``firearm`` or ``siege``)."""

Condition = Literal[
    "surprised_first_attack",
    "disadvantaged",
    "prone",
    "held",
    "defending",
    "ranged_close_range_stationary_or_unaware",
    "not_blind_strike",
    "not_gripped",
    "engaged_at_different_reach",
    "casting",
]
"""Situations an effect may require of its taker or its target:

* ``surprised_first_attack`` — the target is surprised and this is the first attack on it;
* ``disadvantaged`` — disarmed, prone and unable to rise, seriously wounded or worse;
* ``prone`` — lying on the ground; ``held`` — entangled, gripped or with a pinned weapon;
* ``defending`` — the target is fighting defensively (not fleeing, not helpless);
* ``ranged_close_range_stationary_or_unaware`` — a ranged target at Close range that is
  stationary or unaware of the attack;
* ``not_blind_strike`` — the attack is not a blind strike through total cover;
* ``not_gripped`` — not held by a Grip, which prevents "being able to change weapon range or
  disengage from combat";
* ``engaged_at_different_reach`` — the two weapons' Reaches differ (optional reach rules);
* ``casting`` — the target is casting magic.
"""


Hold = Literal["grappled", "gripped", "entangled", "pinned"]
"""The holds a victim can struggle free of (the engine's condition names): a grapple, and the
conditions Grip, Entangle and Pin Weapon leave (``combat.effect_conditions``)."""
HOLD_CONDITIONS: tuple[str, ...] = get_args(Hold)


Mechanic = Literal[
    "generic",
    "accidental_injury",
    "arise",
    "bash",
    "bleed",
    "blind_opponent",
    "bypass_armor",
    "choose_location",
    "circumvent_cover",
    "circumvent_parry",
    "close_range",
    "compel_surrender",
    "damage_weapon",
    "disarm_opponent",
    "drop_foe",
    "duck_back",
    "enhance_parry",
    "entangle",
    "flurry",
    "force_failure",
    "grip",
    "impale",
    "kill_silently",
    "marksman",
    "maximize_damage",
    "open_range",
    "overextend_opponent",
    "overpenetration",
    "pin_down",
    "pin_weapon",
    "prepare_counter",
    "press_advantage",
    "rapid_reload",
    "remise",
    "select_target",
    "slip_free",
    "spoil_spell",
    "stand_fast",
    "stun_location",
    "sunder",
    "take_weapon",
    "trip_opponent",
    "weapon_malfunction",
    "withdraw",
]
"""The consequence the engine gives an effect, named after the text's effect that has it.
An effect whose ``mechanic`` is ``sunder`` works as Sunder whatever its id or name, so a GM may
rename an effect or clone it under a new id. ``generic``: the victim resists with the effect's
``resisted_by`` (if any) or simply gains a condition named after the effect (or, with
``params.sets_range``, the engagement range changes)."""


class EffectRequirements(RuleModel):
    """What must be true for the taker to choose the effect. Absent fields require nothing."""

    own_roll: Literal["critical"] | None = None
    """The taker's own roll must be this level."""
    opponent_roll: Literal["fumble"] | None = None
    """The opponent's roll must be this level."""
    ranged_own_roll: Literal["critical"] | None = None
    """Extra requirement when the taker attacks with a ranged weapon."""
    ranged_roll_waived_when: tuple[Condition, ...] = ()
    """Situations in which ``ranged_own_roll`` does not apply."""
    weapon_lists_effect: bool = False
    """The taker's weapon (or shield) must list this effect among its ``effects``."""
    weapon_kinds: tuple[WeaponKind, ...] = ()
    """The taker's weapon must be one of these kinds (any of them)."""
    opponent_weapon_kinds: tuple[WeaponKind, ...] = ()
    """The opponent's weapon must be one of these kinds."""
    max_weapon_size: Id | None = None
    """The taker's weapon may be at most this size."""
    style_trait: Id | None = None
    """The taker's combat style must have this trait."""
    blow_wounds: bool = False
    """Works only if the blow overcomes armour and injures the target."""
    taker_conditions: tuple[Condition, ...] = ()
    """Situations the taker must be in (all of them)."""
    target_conditions: tuple[Condition, ...] = ()
    """Situations the target must be in (all of them)."""


class SkillCheck(RuleModel):
    """An unopposed roll of ``skill`` at ``grade``."""

    skill: Skill
    grade: Id


class Resistance(RuleModel):
    """The victim's opposed roll: any of ``skills`` (the victim chooses) against the taker's
    original roll. A fumble by the victim with Force Failure means it fails automatically."""

    skills: tuple[Skill, ...] = Field(min_length=1)
    against: Literal["original_roll"] = "original_roll"
    grade_per_size_step: int = 0
    """Grades harder for the victim per size step the taker's weapon is larger than the
    victim's (easier per step smaller)."""
    quadruped_skill: Skill | None = None
    """A quadruped (or more legs) may use this skill instead."""
    quadruped_grade_steps: int = 0
    """Grade steps for a quadruped's roll (negative: easier)."""
    with_shield: tuple[Skill, ...] = ()
    """Skills the victim may also use while he is using a shield (holds one he can use):
    Blind Opponent's "his Evade skill (or Weapon style if using a shield)"."""


class Escape(RuleModel):
    """How the victim ends a lasting hold on his own turn (1 AP)."""

    skills: tuple[Skill, ...] = Field(min_length=1)
    chooser: Literal["victim", "holder"] = "victim"
    """Who picks which of ``skills`` is used (the holder for Grip: 'whichever he prefers')."""
    ap_cost: int = 1
    also_by_effects: tuple[Id, ...] = ()
    """Winning any of these effects also frees the victim."""


class Duration(RuleModel):
    """How long an effect lasts: ``amount`` is dice text, or ``damage`` (the damage inflicted)
    or ``one`` (a single unit); divided by the victim's Healing Rate when ``per_healing_rate``."""

    amount: DiceText | Literal["damage", "one"]
    unit: Literal["turns", "rounds", "minutes", "hours"]
    per_healing_rate: bool = False


class KnockbackRate(RuleModel):
    """Bash: metres of knockback per ``damage_per_metre`` points of rolled damage."""

    weapon_kind: WeaponKind
    damage_per_metre: int = Field(gt=0)


class TargetLimit(RuleModel):
    """Works only on targets whose ``attribute`` is at most ``multiple`` × the taker's."""

    attribute: Attribute
    multiple: int = Field(gt=0)


class FollowUp(RuleModel):
    """A move the taker may make on his following Turn while the effect holds its victim
    (Entangle: an automatic Trip Opponent for 1 AP)."""

    action: Id
    """The ``actions`` entry that makes the move (its kind and Action Point cost)."""
    effect: Id
    """The special effect attempted: the victim resists it with its ``resisted_by`` skills."""
    skill: Skill
    """The taker's roll the victim's resistance is opposed against."""
    condition: Literal["prone"]
    """What befalls a victim who fails to resist."""


class EffectParams(RuleModel):
    """The numbers an effect's consequence needs. Only the fields an effect uses are set."""

    knockback: tuple[KnockbackRate, ...] = ()
    target_limit: TargetLimit | None = None
    obstacle_checks: tuple[SkillCheck, ...] = ()
    """Checks (any one) to avoid falling when knocked into an obstacle."""
    duration: Duration | None = None
    imposes_grade: Id | None = None
    """A difficulty grade imposed on the victim (e.g. an entangled body)."""
    damage_rolls: int | None = Field(default=None, ge=1)
    """Roll weapon damage this many times and keep the best."""
    withdraw_damage: Fraction | None = None
    """Share of the weapon's damage roll dealt when an impaling weapon is pulled free
    (no damage modifier, armour does not reduce it; barbed weapons deal full damage)."""
    withdraw_skill: Skill | None = None
    """The wielder's roll to pull an impaled weapon free (opposed if the victim resists)."""
    fatigue_per_round: int | None = None
    """Fatigue levels lost at the start of each Combat Round."""
    reload_reduction: int | None = None
    chooses_location: bool = False
    """The taker names the hit location the blow lands on (within reach)."""
    location_steps: int | None = None
    """How many steps to an adjoining hit location the effect may move a hit."""
    second_target_damage: Fraction | None = None
    maximized_dice: int | None = None
    """Damage dice set to their maximum per pick."""
    ignores_armor: Literal["worn_or_natural"] | None = None
    sets_range: Literal["shorter", "longer"] | None = None
    """Engagement range set to the one favoured by the shorter or longer weapon."""
    blocks_all_damage: bool = False
    ignores_parry: bool = False
    prevents: Literal["attack_next_turn", "fire_next_turn", "proactive_next_turn"] | None = None
    flung_metres: Literal["damage_modifier_roll"] | None = None
    """Distance a disarmed weapon flies (no damage modifier: it drops at the victim's feet)."""
    extra_attack: bool = False
    """An immediate extra attack (still costs an Action Point)."""
    auto_fails_endurance: bool = False
    combines_with_opposed: bool = False
    """Force Failure: only together with another effect that needs an opposed roll."""
    unarmed_ignores_armor: bool = False
    follow_up: FollowUp | None = None
    frees: tuple[Hold, ...] = ()
    """Slip Free: the holds it frees the taker of, all at once (listed in this order)."""
    leg_falls_prone: bool = False
    """Stun Location: a stunned leg drops the victim prone (as a useless one does)."""
    senseless_locations: tuple[Id, ...] = ()
    """Stun Location: hit locations that, stunned, leave the victim insensible (incapacitated);
    another stunned location that is not a limb leaves him able only to defend."""


class SpecialEffect(Entry):
    """A special effect as the rules define it."""

    name: str
    taker: Taker
    stackable: bool = False
    """May be picked more than once in one exchange."""
    narrative: bool = False
    """Purely narrative: the engine records the choice but changes no numbers."""
    mechanic: Mechanic | None = None
    """The consequence the engine applies (see :data:`Mechanic`); a narrative effect may
    leave it out, any other effect must name one."""
    requires: EffectRequirements = EffectRequirements()
    resisted_by: Resistance | None = None
    escape: Escape | None = None
    params: EffectParams = EffectParams()
    description: str
    """What it does, in our own words."""
