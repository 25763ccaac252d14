"""Situations of an exchange: which grade each roll is made at, caps, range bands and the
damage and size adjustments that follow (charging, long range, pulled blows, swimming).

The numbers come from the rule data (:class:`~arbiter.bridge.engine.combat_styles.core.view.RulesView`);
this module decides which of them apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from arbiter.bridge.engine.combat_styles.bodies.requests import Situation
from arbiter.bridge.engine.combat_styles.core import encumbrance, familiarity
from arbiter.bridge.engine.combat_styles.core.checks import Grade
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import step_modifier
from arbiter.bridge.engine.combat_styles.core.traits import (
    charge_grade_steps,
    eased_grade,
    lifts_cap,
)
from arbiter.bridge.engine.combat_styles.core.view import Arm, Fatigue, RulesView
from arbiter.bridge.engine.combat_styles.encounter.saddle import is_mounted, rider_cap
from arbiter.bridge.engine.contract import EngineError

ONE = Fraction(1)


# A dataclass compiled by mypyc into a native class (a named tuple's constructor is a Python
# function, its fields are read through descriptors); mypyc compiles a dataclass's own
# __init__ but not the one dataclasses generates, so the constructor is written out.
@dataclass(slots=True, init=False, unsafe_hash=True)
class AttackTerms:
    """What the situation does to an attack (never changed once made)."""

    grade: Grade
    grade_without_crowd: Grade
    skill: int
    band: str | None
    """Range band of a ranged attack: close, effective or long."""
    size_steps: int
    """Steps added to the attacking weapon's size (charging +1, Long range Force −1)."""
    dm_steps: int
    damage_modifier: str
    """The damage modifier the blow uses (the attacker's, or a charger's against a set weapon)."""
    damage_factor: Fraction
    notes: tuple[str, ...]

    def __init__(
        self,
        grade: Grade,
        grade_without_crowd: Grade,
        skill: int,
        band: str | None,
        size_steps: int,
        dm_steps: int,
        damage_modifier: str,
        damage_factor: Fraction,
        notes: tuple[str, ...],
    ) -> None:
        self.grade = grade
        self.grade_without_crowd = grade_without_crowd
        self.skill = skill
        self.band = band
        self.size_steps = size_steps
        self.dm_steps = dm_steps
        self.damage_modifier = damage_modifier
        self.damage_factor = damage_factor
        self.notes = notes


def _grade_ids(rules: RulesView, ids: list[str], c: CombatantRecord) -> list[str]:
    out = []
    for sid in ids:
        if sid in rules.situations:
            out.append(eased_grade(rules, c, sid, rules.situations[sid]))
        elif sid in {g.id for g in rules.checks.grades}:
            out.append(sid)
        else:
            raise EngineError(f"unknown situational modifier or grade {sid!r}")
    return out


ROLE_OF_LIST = {"attacker_situations": "attack", "defender_situations": "defence"}


def check_situations(rules: RulesView, situation: Situation, context: str) -> None:
    """Refuse a situational modifier whose ``context`` (close or ranged) does not fit the
    attack, or whose ``applies_to`` (attack, defence, all) does not fit the list naming it."""
    scopes = rules.memo.get("situation_scopes")
    if scopes is None:
        scopes = {s.id: (s.context, s.applies_to) for s in rules.model.situational_modifiers}
        rules.memo["situation_scopes"] = scopes
    for field, role in ROLE_OF_LIST.items():
        for sid in getattr(situation, field):
            if sid not in scopes:
                continue  # a plain grade id, or unknown (refused when the grade is read)
            where, applies_to = scopes[sid]
            if where != context:
                raise EngineError(
                    f"situational modifier {sid!r} is for {where} combat, not a {context} attack"
                )
            if applies_to not in ("all", role):
                raise EngineError(
                    f"situational modifier {sid!r} applies to the {applies_to} roll; "
                    f"it cannot be one of the {field}"
                )


def capped(
    rules: RulesView, c: CombatantRecord, skill: int, situation: Situation, combat: bool = True
) -> int:
    """A combat skill capped by the skill the situation's ``skill_caps`` entry names
    (climbing: Athletics, swimming: Swim, mounted: Ride in the bundled data), and, for a
    ``combat`` skill of a rider, by ``combat.mounted.skill_cap``."""
    if combat and c.conditions:
        skill = rider_cap(rules, c, skill)
    if situation.cap is None:
        return skill
    caps = {cap.id: cap.capped_by for cap in rules.model.skill_caps}
    if situation.cap not in caps:
        known = ", ".join(sorted(caps))
        raise EngineError(f"unknown skill cap {situation.cap!r} (known: {known})")
    by = caps[situation.cap]
    if lifts_cap(rules, c, situation.cap) is not None:
        return skill
    if by not in c.skills:
        raise EngineError(f"skill cap {situation.cap!r} names {by!r}, a skill combatants lack")
    return min(skill, c.skills[by])


def band_of(arm: Arm, distance: int | None) -> str | None:
    """The range band of a ranged weapon at ``distance`` metres (None for melee)."""
    if not arm.is_ranged or arm.ranges is None:
        return None
    if distance is None:
        return "effective"
    close, effective, long = arm.ranges
    if distance <= close:
        return "close"
    if distance <= effective:
        return "effective"
    if distance <= long:
        return "long"
    raise EngineError(f"{arm.name} cannot reach {distance} m: its Long range is {long} m")


def distance_steps(rules: RulesView, distance: int | None, target_siz: int) -> int:
    """Grade steps from the distance-penalty table (distance × target SIZ)."""
    if distance is None:
        return 0
    try:
        return int(rules.model.distance_penalties.steps(distance, target_siz))
    except KeyError as err:
        raise EngineError(str(err).strip("'\"")) from None


def aimed(rules: RulesView, grade: Grade) -> Grade:
    """``grade`` eased by a round of aiming (``combat.ranged.aim_grade_steps``), never past
    ``combat.ranged.aim_easiest_grade``; a grade already easier than that is left alone."""
    ranged = rules.model.combat.ranged
    easiest = rules.checks.grade(ranged.aim_easiest_grade)
    if grade.rank <= easiest.rank:
        return grade
    return max(rules.checks.shifted(grade, ranged.aim_grade_steps), easiest, key=lambda g: g.rank)


def attack_terms(
    rules: RulesView,
    attacker: CombatantRecord,
    defender: CombatantRecord,
    arm: Arm,
    situation: Situation,
) -> AttackTerms:
    """Grade, capped skill, band and damage factors of an attack."""
    checks = rules.checks
    notes: list[str] = []
    if not situation.__pydantic_fields_set__:  # model_fields_set, without a property call
        # A situation that sets nothing changes nothing: only the attacker's own conditions
        # and load count (the common case, spared the dozen situation reads below).
        grades = condition_grades(rules, attacker, notes, arm if arm.is_ranged else None)
        skill_name = "unarmed" if arm.kind == "unarmed" else "combat_style"
        steps = encumbrance.grade_steps(rules, attacker, skill_name, notes)
        grade = checks.shifted(checks.most_severe(grades), steps)
        skill = attacker.skills[skill_name]
        if attacker.conditions:
            skill = rider_cap(rules, attacker, skill)  # a rider's skill, capped by his Ride
        dm = attacker.damage_modifier
        band = band_of(arm, None)
        return AttackTerms(grade, grade, skill, band, 0, 0, dm, ONE, tuple(notes))
    if situation.attacker_situations or situation.defender_situations:
        check_situations(rules, situation, "ranged" if arm.is_ranged else "close")
    if situation.prepared_position and not arm.is_ranged:
        raise EngineError("a prepared position is for firing a ranged weapon, not a melee blow")
    ids = _grade_ids(rules, situation.attacker_situations, attacker) + condition_grades(
        rules,
        attacker,
        notes,
        arm if arm.is_ranged else None,
        situation.prepared_position,
    )
    skill_name = "unarmed" if arm.kind == "unarmed" else "combat_style"
    steps = encumbrance.grade_steps(rules, attacker, skill_name, notes)
    skill = attacker.skills[skill_name]
    fam_steps = 0
    if situation.familiarity is not None:
        skill, fam_steps = familiarity.skill_and_steps(
            rules, attacker, skill, situation.familiarity, notes
        )
        steps += fam_steps
    skill = capped(rules, attacker, skill, situation)
    size_steps = 0
    dm_steps = 0
    factor = ONE
    if situation.cap == "swimming" and arm.kind not in rules.swim_unaffected_kinds:
        if not (
            arm.effects & rules.swim_thrusting_effects or arm.traits & rules.swim_thrusting_traits
        ):
            raise EngineError(f"under water only thrusting weapons work, not {arm.name}")
        factor *= rules.swimming_damage
        notes.append("under water: thrusting damage reduced")
    if situation.charging:
        if arm.is_ranged:
            raise EngineError("a charge is a close-combat attack, not a ranged one")
        from_a_mount = situation.mounted or situation.cap == "mounted" or is_mounted(attacker)
        charge_steps, trait = charge_grade_steps(rules, attacker, from_a_mount)
        steps += charge_steps
        if trait is not None:
            notes.append(f"{trait}: charge grade steps {charge_steps}")
        size_steps += rules.charge.size_steps
        dm_steps += (
            rules.charge.dm_steps_quadruped if attacker.quadruped else rules.charge.dm_steps_biped
        )
        if dm_steps:
            # Stepped only should the blow land: checked here, before any die is rolled, so
            # whether a charge is refused never depends on the dice.
            step_modifier(rules.dm_ladder, attacker.damage_modifier, dm_steps)
        notes.append("charging")
    if situation.blind_strike:
        steps += rules.blind_strike_grade_steps
        notes.append("blind strike through total cover")
    band = band_of(arm, situation.distance)
    if arm.is_ranged:
        steps += distance_steps(rules, situation.distance, defender.characteristics["siz"])
        if band == "long":
            factor *= rules.long_range_damage
            # The data's steps are signed like charging's (+1 larger): Long range's −1 is one
            # step *smaller* ("Force is reduced by one step").
            size_steps += rules.long_range_force_steps
            notes.append("long range: damage halved, Force one step smaller")
    if situation.pulled_blow:
        factor *= rules.pulled_blow_damage
        notes.append("pulled blow")
    worst = checks.most_severe(ids)
    if fam_steps:
        grade, skill = familiarity.floored(
            rules, attacker, skill, checks.shifted(worst, steps - fam_steps), fam_steps, notes
        )
    else:
        grade = checks.shifted(worst, steps)
    if situation.aiming:
        grade = aimed(rules, grade)
    grade_without_crowd = grade
    if situation.crowd != "none":
        if not arm.is_ranged:
            raise EngineError("firing into a crowd applies to ranged attacks only")
        crowd_grade = rules.crowd_grades[situation.crowd]
        grade = max(grade, checks.grade(crowd_grade), key=lambda g: g.rank)
    dm = attacker.damage_modifier
    if situation.set_against_charge:
        if not arm.traits & rules.charge_receiving_traits:
            raise EngineError(f"{arm.name} cannot be set against a charge")
        steps_of_charger = (
            rules.charge.dm_steps_quadruped if defender.quadruped else rules.charge.dm_steps_biped
        )
        dm = step_modifier(rules.dm_ladder, defender.damage_modifier, steps_of_charger)
        dm_steps = 0
        notes.append(f"set against the charge: the charger's damage modifier {dm}")
    return AttackTerms(
        grade, grade_without_crowd, skill, band, size_steps, dm_steps, dm, factor, tuple(notes)
    )


def defence_grade(
    rules: RulesView,
    situation: Situation,
    defender: CombatantRecord,
    notes: list[str],
    skill: str = "",
) -> Grade:
    """The grade of the defender's parry or evade with ``skill`` (situations, his own
    conditions, and his load)."""
    listed = situation.defender_situations
    ids = _grade_ids(rules, listed, defender) if listed else []
    grade = rules.checks.most_severe(ids + condition_grades(rules, defender, notes))
    steps = encumbrance.grade_steps(rules, defender, skill, notes)
    return rules.checks.shifted(grade, steps) if steps else grade


def fatigue_of(rules: RulesView, c: CombatantRecord) -> Fatigue | None:
    """The combatant's fatigue level (None when fresh or when the data has no ladder)."""
    lost = c.fatigue_levels or 0
    if not lost or not rules.fatigue:
        return None
    return rules.fatigue[min(lost, len(rules.fatigue) - 1)]


def condition_grades(
    rules: RulesView,
    c: CombatantRecord,
    notes: list[str],
    ranged: Arm | None = None,
    prepared: bool = False,
) -> list[str]:
    """Grades a combatant's own conditions impose on his rolls, read from the rule data: an
    entangled or grappled head or torso, a weapon impaled in him (the impale table), and each
    situation the data ties to a condition he bears (``while_condition``: fighting while prone,
    blinded), in the order the data lists those situations.

    For his attack with the ``ranged`` weapon, a ranged situation tied to a condition (attacker
    prone, blinded) stands in for the close-combat one — unless the data frees that weapon
    fired from a ``prepared`` position from it (a prone crossbowman)."""
    if not c.conditions and not c.fatigue_levels:
        return []  # fresh and unhindered: the usual case
    grades: list[str] = []
    why: list[str] = []
    level = fatigue_of(rules, c)
    if level is not None and level.grade is not None:
        grades.append(level.grade)
        why.append(level.id)
    conditions = c.conditions
    if not conditions:
        if why:
            notes.append(f"{c.name}: {', '.join(why)}")
        return grades
    ranged_rows = rules.ranged_condition_situations if ranged is not None else ()
    by_ranged_row = {condition for condition, _ in ranged_rows}
    for hold, grade in (
        ("entangled", rules.effects[rules.effect_conditions["entangled"]].params.imposes_grade),
        ("grappled", rules.grapple_body_grade),
    ):
        held = conditions.get(hold)
        if held and grade and not rules.location(held["location"]).limb:
            grades.append(grade)
            why.append(f"{hold} by the {held['location']}")
    for grade in conditions.get("impaled", {}).get("grades", []):
        if grade in rules.checks_ids:
            grades.append(grade)
            why.append("impaled")
        elif grade == "incapacitated":
            grades.append(rules.checks.grades[-1].id)
            why.append("incapacitated by an impaled weapon")
    for condition, situation in rules.condition_situations:
        if condition in conditions and condition not in by_ranged_row:
            grades.append(eased_grade(rules, c, situation, rules.situations[situation]))
            why.append(condition)
    for condition, situation in ranged_rows:
        if condition not in conditions:
            continue
        if ranged is not None and prepared and _freed_by_position(rules, situation, ranged):
            why.append(f"{condition}, firing from a prepared position")
            continue
        grades.append(eased_grade(rules, c, situation, rules.situations[situation]))
        why.append(condition)
    if why:
        notes.append(f"{c.name}: {', '.join(why)}")
    return grades


def _freed_by_position(rules: RulesView, situation: str, arm: Arm) -> bool:
    """Whether ``arm`` fired from a prepared position escapes ``situation`` (the data's
    ``negated_from_prepared_position``)."""
    freed = rules.prepared_position.get(situation)
    return freed is not None and (arm.id in freed[0] or arm.kind in freed[1])
