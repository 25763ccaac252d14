"""Struggling free of holds (Grip, Entangle, Pin Weapon, grapples) and pulling an impaled
weapon free.

The skills come from the rule data: each holding effect's ``escape`` block (or the grapple
rules); the victim uses his best allowed skill, the holder his preferred (best) one, in an
opposed roll. Winning frees the victim.
"""

from __future__ import annotations

from fractions import Fraction

from arbiter.bridge.engine.combat_styles.core import encumbrance
from arbiter.bridge.engine.combat_styles.core.checks import (
    contest_penalty,
    opposed_winner,
    roll_check,
    target,
)
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import expr_of
from arbiter.bridge.engine.combat_styles.core.encounter_state import EncounterState
from arbiter.bridge.engine.combat_styles.core.traits import withdraw_share
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.combatants import combatant, records_of
from arbiter.bridge.engine.combat_styles.encounter.wounds import apply_wound
from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import Dice


def held_by(rules: RulesView, victim: CombatantRecord) -> list[str]:
    """The holds on ``victim``, in the order a struggle tries them (``combat.struggle``)."""
    conditions = victim.conditions
    return [h for h in rules.model.combat.struggle.holds if h in conditions]


def _skills(rules: RulesView, condition: str) -> tuple[tuple[str, ...], str]:
    if condition == "grappled":
        grapple = rules.model.combat.grapple
        return tuple(grapple.escape_skills), grapple.escape_chooser
    effect_id = rules.effect_conditions[condition]
    escape = rules.effects[effect_id].escape
    if escape is None:
        raise EngineError(f"the rule data gives no way to escape {effect_id}")
    return tuple(escape.skills), escape.chooser


def struggle(rules: RulesView, state: EncounterState, victim: CombatantRecord, dice: Dice) -> JSON:
    """Try to break the first hold on ``victim`` in the order of ``combat.struggle`` (a
    grapple's escape is the grapple rules'; each other hold's is the ``escape`` of the effect
    ``combat.effect_conditions`` names for it); returns the roll and whether it broke."""
    for condition in held_by(rules, victim):
        hold = victim.conditions[condition]
        skills, chooser = _skills(rules, condition)
        by = hold.get("by", "")
        holder = combatant(state, by) if by in records_of(state) else None
        mine_skill = max(skills, key=lambda s: victim.skills.get(s, 0))
        checks = rules.checks
        if holder is None:
            # The holder is gone: the hold falls away without a roll.
            del victim.conditions[condition]
            return {"hold": condition, "freed": True, "note": "the holder is no longer here"}
        theirs_skill = max(skills, key=lambda s: holder.skills.get(s, 0))
        if chooser == "victim":
            theirs_skill = mine_skill
        mine_value = victim.skills.get(mine_skill, 0)
        theirs_value = holder.skills.get(theirs_skill, 0)
        penalty = contest_penalty([mine_value, theirs_value])
        # A load makes either side's STR/DEX skill harder (encumbrance).
        mine_grade = encumbrance.grade_for(rules, victim, mine_skill)
        theirs_grade = encumbrance.grade_for(rules, holder, theirs_skill)
        mine = roll_check(
            checks, dice, target(checks, mine_value, mine_grade, 0, penalty), f"1d100 {mine_skill}"
        )
        theirs = roll_check(
            checks,
            dice,
            target(checks, theirs_value, theirs_grade, 0, penalty),
            f"1d100 {theirs_skill}",
        )
        freed = opposed_winner(mine, theirs) == 1
        if freed:
            del victim.conditions[condition]
        return {
            "hold": condition,
            "by": holder.id,
            "victim_roll": {"skill": mine_skill, **mine.to_json()},
            "holder_roll": {"skill": theirs_skill, **theirs.to_json()},
            "freed": freed,
        }
    raise EngineError(f"{victim.name} is not held by anything")


def pull_free(
    rules: RulesView, state: EncounterState, wielder: CombatantRecord, weapon: str, dice: Dice
) -> JSON:
    """Ready Weapon on a weapon left impaled in a foe: an unopposed roll of the impale effect's
    ``withdraw_skill`` (Brawn); success pulls it out for the rule data's share of a weapon damage
    roll (no damage modifier, no armour; barbed weapons deal full damage) to the same location."""
    stuck = wielder.conditions.get("impaled_in", {})
    if weapon not in stuck.get("weapons", []):
        raise EngineError(f"{wielder.name}'s {weapon} is not stuck in anyone")
    victim_id = stuck["victims"][weapon]
    victim = combatant(state, victim_id)
    checks = rules.checks
    impale = rules.effects[rules.effect_conditions["impaled"]].params
    skill = impale.withdraw_skill
    if skill is None or skill not in wielder.skills:
        raise EngineError(f"the impale effect's withdraw_skill {skill!r} is not a combat skill")
    roll = roll_check(checks, dice, target(checks, wielder.skills[skill]), f"1d100 {skill}")
    out: JSON = {
        "weapon": weapon,
        "victim": victim_id,
        "roll": {"skill": skill, **roll.to_json()},
    }
    if not roll.level.succeeded:
        out["freed"] = False
        return out
    arm = rules.arm(weapon)
    wound = next(w for w in victim.conditions["impaled"]["wounds"] if w["weapon"] == weapon)
    rolled = dice.roll(expr_of(arm.damage or "0")).total
    default = impale.withdraw_damage
    share = withdraw_share(
        rules, arm, Fraction(default.numerator, default.denominator) if default else None
    )
    damage = rolled
    if share is not None:
        damage = -(-rolled * share.numerator // share.denominator)
    stuck["weapons"].remove(weapon)
    del stuck["victims"][weapon]
    impaled = victim.conditions["impaled"]
    index = impaled["wounds"].index(wound)
    for key in ("wounds", "grades", "by"):
        del impaled[key][index]
    if not impaled["wounds"]:
        del victim.conditions["impaled"]
    location = rules.location(wound["location"])
    attack = {
        "skill": wielder.skills[skill],
        "target": roll.target.skill,
        "roll": roll.roll,
        "level": roll.level.label,
    }
    out["freed"] = True
    out["damage"] = damage
    out["wound"] = apply_wound(rules, dice, victim, location, damage, attack) if damage else None
    return out
