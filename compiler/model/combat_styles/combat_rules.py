"""Other combat numbers (the ``[combat]`` table): rounds, surprise, leaping, evading, cover,
passive blocks, pulled blows, mounted and unusual conditions, reach, grapples, unfamiliar
weapons, ranged rules, encumbrance and fatigue checks. One sub-table per rule."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from arbiter.compiler.model.combat_styles.basics import (
    Band,
    DiceText,
    Fraction,
    Skill,
    implemented_only,
)
from arbiter.compiler.model.combat_styles.effects import WeaponKind
from arbiter.compiler.model.combat_styles.rounds import Brace, RegainFooting, Struggle
from arbiter.compiler.model.common import Assumable, Id, RuleModel


class Surprise(Assumable):
    """A surprised target (text "Surprise")."""

    initiative_penalty: int
    bonus_effects: int = Field(ge=0)
    """Extra special effects for the first successful attack on a surprised target."""
    can_defend_before_own_turn: Annotated[
        bool,
        implemented_only(False, "a surprised combatant cannot defend before his initiative"),
    ] = False
    offensive_actions_this_round: Annotated[
        bool,
        implemented_only(False, "a surprised combatant may not attack in the surprise Round"),
    ] = False


class LeapingAttack(Assumable):
    """Leaping attacks: the leaper's skill against the defender's; a win knocks him prone."""

    attacker_skill: Skill
    defender_skills: tuple[Skill, ...]
    max_target_siz_multiple: int = Field(gt=0)
    grade_steps_vs_quadruped: int
    """Grades harder for the leaper against a quadruped (which may use Athletics)."""
    brace_siz_multiplier: Fraction
    """A braced target's SIZ counts this much larger against the leap's SIZ limit."""
    quadruped_defender_skill: Skill | None = None
    """The skill a quadruped may use in place of Evade (the text: Athletics)."""
    leaving_actions: tuple[Id, ...] = ()
    """Combat actions (``actions`` ids) that take the leaper off his victim: taking one, he
    leaves him (as attacking someone else, withdrawing or outmanoeuvring does)."""
    victim_may_regain_footing: bool = False
    """False (the text): a victim held down cannot Regain Footing until the leaper leaves him
    or he wins an effect that lets him arise; true: he may, by beating the leaper in the
    Regain Footing test."""


class Evading(Assumable):
    """Evade: opposed against the attacker's skill; the evader usually ends prone."""

    ends_prone: bool = True
    mounted_leaves_saddle: bool = True


class Outmaneuver(Assumable):
    """Outmaneuvering several foes: a group opposed roll, every participant spends AP."""

    skill: Skill
    ap_cost_each: int = Field(ge=0)


class PassiveBlock(Assumable):
    """A weapon or shield held as cover over chosen locations."""

    weapon_locations: int = Field(gt=0)
    """Locations a weapon (not a shield) covers when held as a ward."""
    crouch_multiplier: int = Field(gt=0)
    """Crouching behind a shield multiplies the locations it covers."""
    choose_location_bypasses: bool = False
    """True: an effect that chooses the location may pick a warded one, and the ward does not
    parry the blow; false: it may not pick a warded location."""


class Cover(Assumable):
    """A blind strike at a target behind total cover."""

    blind_strike_grade_steps: int
    blind_strike_allows_choose_location: Annotated[
        bool,
        implemented_only(
            False,
            "an effect whose requires.target_conditions lists not_blind_strike (Choose Location) "
            "is refused against a blind strike; remove that condition to allow it",
        ),
    ] = False


class PulledBlow(Assumable):
    """A blow pulled (declared before the roll) to avoid maiming."""

    damage: Fraction


class Mounted(Assumable):
    """Mounted combat (text "Mounted Combat")."""

    location_die: str = Field(pattern=r"^1d\d+$")
    location_add: int
    """A rider striking a lower biped rolls ``location_die`` + this for the location."""
    skill_cap: Skill
    withdraw_freely_if_faster: bool = True
    defend_mount_ap_cost: int = Field(1, ge=0)
    """AP to defend the mount with the rider's Combat Style or Ride."""
    knockback_adds_mount_siz_on: Skill = "ride"
    """An unopposed roll of this skill lets the rider add his mount's SIZ against Knockback."""
    braced_weapon_can_parry: bool = False


class Swimming(Assumable):
    """Fighting in water: only thrusting weapons work, at reduced damage; the kinds in
    ``unaffected_kinds`` (biting, strangling, ramming) work as on land."""

    thrusting_damage: Fraction
    thrusting_effects: tuple[Id, ...] = ()
    """A weapon that lists any of these special effects counts as thrusting."""
    thrusting_traits: tuple[Id, ...] = ()
    """A weapon with any of these weapon traits counts as thrusting."""
    unaffected_kinds: tuple[WeaponKind, ...] = ()
    """Weapon kinds the water neither forbids nor weakens."""


class SweepAttack(Assumable):
    """One attack roll applied to every foe in the path; each defends separately."""

    one_roll_for_all_targets: bool = True


class ReachRules(Assumable):
    """Optional 'closing and opening range' rules."""

    inside_reach_can_parry: bool = False
    inside_reach_damage_cap: DiceText
    inside_reach_size_drop_per_step: int = Field(ge=0)
    natural_weapons_exempt: Annotated[
        bool,
        implemented_only(True, "only melee weapons suffer inside their reach; natural ones never"),
    ] = True


class ChangeRange(Assumable):
    """The Change Range action under the optional reach rules."""

    skill: Skill
    defender_may_attack_instead: bool = True


class Grapple(Assumable):
    """Grappling with the Unarmed skill (text "Grappling")."""

    attack_skill: Skill
    body_grade: Id
    """Grade imposed on every skill of a victim grappled by the head or torso."""
    damage: Literal["damage_modifier"] = "damage_modifier"
    """Damage on later Turns: the grappler's Damage Modifier roll."""
    damage_resisted_by: tuple[Skill, ...]
    escape_skills: tuple[Skill, ...]
    escape_chooser: Literal["victim", "holder"] = "holder"


class EffectConditions(RuleModel):
    """The special effect whose rule data governs each lasting condition effects leave on a
    victim: a hold's ``escape`` (Struggle and winning an escaping effect), the grade of an
    entangled head or torso, the situation a blinded fighter fights in, the roll and share of
    pulling an impaled weapon free. Each names an effect with the matching ``mechanic``; an
    effect cloned under a new id leaves the same condition, governed by the effect named here."""

    gripped: Id
    entangled: Id
    pinned: Id
    blinded: Id
    impaled: Id


CONDITION_MECHANICS = {
    "gripped": "grip",
    "entangled": "entangle",
    "pinned": "pin_weapon",
    "blinded": "blind_opponent",
    "impaled": "impale",
}
"""The mechanic that leaves each of :class:`EffectConditions`' conditions."""


class AerialCombat(Assumable):
    """Fliers jockey for position: an opposed roll each Round decides who may attack."""

    skills: tuple[Skill, ...]


class Familiarity(Assumable):
    """Unfamiliar weapons: grade steps by how different the weapon is."""

    similar: int
    broadly_similar: int
    reasonably_different: int
    substantially_different: Literal["base_skill"] = "base_skill"
    with_trained_weapon: int
    floor: Literal["str_plus_dex"] = "str_plus_dex"


class RangedRules(Assumable):
    """Ranged-combat numbers: long range, aiming, firing into a crowd."""

    long_range_damage: Fraction
    long_range_force_steps: int
    aim_rounds: int = Field(gt=0)
    """Full rounds of aiming that earn ``aim_grade_steps`` (further rounds give nothing)."""
    aim_grade_steps: int
    aim_easiest_grade: Id
    """Aiming never eases a roll past this grade (Very Easy: never to Automatic)."""
    crowd_edge_grade: Id
    crowd_through_grade: Id
    only_shields_parry: bool = True
    """True: only arms whose data says ``parries_ranged`` (shields) parry missiles; false: any
    weapon may."""


class EncumbranceBand(RuleModel):
    """Carrying more than ``over_str_multiple`` × STR in ENC."""

    over_str_multiple: int = Field(gt=0)
    grade_steps: int = Field(ge=0)
    """Grades harder for STR- and DEX-based skills."""
    movement: str
    can_move: bool = True


class Encumbrance(Assumable):
    """Encumbrance bands by ENC carried against STR; the most severe band exceeded applies
    its grade steps to ``skills`` (the STR- and DEX-based ones)."""

    skills: tuple[Skill, ...] = ()
    bands: tuple[EncumbranceBand, ...]


class FatigueCheckBand(RuleModel):
    """For CON in ``con``, an Endurance roll against fatigue is due every ``every_rounds``."""

    con: Band
    every_rounds: int = Field(gt=0)


class FatigueChecks(Assumable):
    """How often an Endurance roll against fatigue is due in combat, by CON; a failed roll
    costs ``levels_lost_on_failure`` fatigue levels. A CON no band covers makes no checks."""

    skill: Skill = "endurance"
    levels_lost_on_failure: int = Field(1, ge=0)
    bands: tuple[FatigueCheckBand, ...]


class SpiritCombat(Assumable):
    """Spirit combat: opposed spirit-combat skills as a differential roll; the winner's skill
    band on the Spirit Damage table is rolled against the loser's Magic Points."""

    resist_with: tuple[Literal["spirit_combat", Skill], ...] = Field(min_length=1)
    """What the defender opposes with: the first of these he has (``spirit_combat`` is the
    stat block's spirit-combat skill, the others are ordinary skills)."""
    damage_needs_success: bool = True
    defender_deals_damage: bool = True
    """Whether a defender who wins the differential (with a spirit-combat skill) hits back."""
    defeated_at: int = 0
    """Magic Points at or below this value defeat the combatant."""
    defeated_condition: Literal["unconscious", "incapacitated", "dead"] = "incapacitated"


class Hand(RuleModel):
    """A hand and the hit location of its arm (a useless arm drops what its hand holds)."""

    id: Id
    location: Id


class StunnedArm(Assumable):
    """An arm Stun Location incapacitates for some Turns: its hand can neither strike nor
    parry with what it holds, nor grip anything, until the stun wears off."""

    drops: bool = True
    """True: the hand lets go, and what it held lies dropped at his feet (picked up again
    with Ready Weapon); false: it keeps hold, unusable while the stun lasts."""
    keeps_shields: bool = True
    """A shield is strapped on: it is not dropped (only unusable) even when ``drops``."""


class Hands(Assumable):
    """Which hands hold what: weapons need their ``hands`` count of free hands."""

    hands: tuple[Hand, ...] = Field(min_length=1)
    """A combatant's hands; the first is the weapon hand."""
    shield_hands: int = Field(1, ge=0)
    ranged_hands: int = Field(2, ge=0)
    """Hands for a missile weapon that names none of its own."""
    grapple_needs_free_hand: bool = True
    pick_up_turns: int = Field(2, gt=0)
    """Ready Weapon actions it takes to pick up a dropped or disarmed weapon."""
    stunned_arm: StunnedArm = StunnedArm()
    """What Stun Location does to an arm's hand (house rules written without it: the
    bundled choice)."""


class Luck(Assumable):
    """Mitigate Damage: spending Luck Points turns a wound of one level into a lesser one, the
    location left one hit point short of the worse level."""

    mitigate_from: Id
    """The wound level (``wound_levels`` id) a Luck Point may mitigate."""
    mitigate_to: Id
    """The wound level it becomes."""
    points_per_use: int = Field(1, gt=0)


class CombatRules(RuleModel):
    """The ``[combat]`` table: assorted numbers, one sub-table each."""

    round_seconds: int = Field(gt=0)
    proactive_per_cycle: Annotated[
        int,
        implemented_only(1, "a combatant's one proactive action in a Cycle ends his Turn"),
    ]
    """Proactive actions a combatant may take in one Cycle (on his own Turn)."""
    reactions_per_threat: Annotated[
        int, implemented_only(1, "a defender parries or evades an attack once")
    ]
    default_action: Id
    """The action a combatant is taken to have chosen when he chooses no proactive action."""
    unarmed_weapon: Id
    """The weapons entry used for unarmed attacks and parries."""
    body_plan: Id
    """The ``hit_location_tables`` entry a combatant's hit locations are rolled on unless his
    stat block names another."""
    surprise: Surprise
    leaping_attack: LeapingAttack
    brace: Brace
    evading: Evading
    outmaneuver: Outmaneuver
    passive_block: PassiveBlock
    cover: Cover
    pulled_blow: PulledBlow
    mounted: Mounted
    swimming: Swimming
    reach: ReachRules
    change_range: ChangeRange
    grapple: Grapple
    regain_footing: RegainFooting
    struggle: Struggle
    effect_conditions: EffectConditions
    aerial: AerialCombat
    sweep_attack: SweepAttack
    familiarity: Familiarity
    ranged: RangedRules
    encumbrance: Encumbrance
    fatigue_checks: FatigueChecks
    spirit_combat: SpiritCombat
    hands: Hands
    luck: Luck
