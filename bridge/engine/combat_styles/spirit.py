"""Spirit combat: an opposed, differential roll of spirit-combat skills whose winner rolls the
Spirit Damage table (by his skill band) against the loser's Magic Points.

What the defender opposes with, whether a winning defender hits back, whether damage needs a
success and what befalls a combatant whose Magic Points run out are rule data
(``combat.spirit_combat``); the damage dice are the ``spirit_damage`` rows.
"""

from __future__ import annotations

from bridge.engine.combat_styles import rounds
from bridge.engine.combat_styles.checks import (
    CheckResult,
    Grade,
    Level,
    contest_penalty,
    roll_check,
    target,
)
from bridge.engine.combat_styles.combatants import add_condition, combatant, has_condition, writable
from bridge.engine.combat_styles.differential import differential
from bridge.engine.combat_styles.exchange import fresh_state
from bridge.engine.combat_styles.requests import SpiritCombatBody
from bridge.engine.combat_styles.situations import fatigue_of
from bridge.engine.combat_styles.view import RulesView
from bridge.engine.contract import JSON, EngineError, Resolution
from bridge.engine.dice import Dice

SPIRIT_SKILL = "spirit_combat"
"""The stat-block field (and ``resist_with`` entry) naming the spirit-combat skill."""


def _grade(rules: RulesView, c: JSON, grades: list[str], steps: int, notes: list[str]) -> Grade:
    """The side's grade: the request's grades, floored by his fatigue level, then shifted."""
    ids = list(grades)
    level = fatigue_of(rules, c)
    if level is not None and level.grade is not None:
        ids.append(level.grade)
        notes.append(f"{c['name']}: {level.id}")
    try:
        return rules.checks.shifted(rules.checks.most_severe(ids), steps)
    except ValueError as err:
        raise EngineError(str(err)) from None


def _resistance(rules: RulesView, c: JSON) -> tuple[str, int]:
    """The skill the defender opposes with: the first of ``resist_with`` he has."""
    for name in rules.model.combat.spirit_combat.resist_with:
        value = c.get(SPIRIT_SKILL) if name == SPIRIT_SKILL else c["skills"].get(name)
        if value is not None:
            return name, value
    wanted = ", ".join(rules.model.combat.spirit_combat.resist_with)
    raise EngineError(f"{c['name']} has none of the skills that resist spirit combat ({wanted})")


def _magic_points(c: JSON) -> int:
    mp = c.get("magic_points")
    if mp is None:
        raise EngineError(
            f"{c['name']} has no Magic Points: give magic_points in the stat block "
            "(the rule data has no formula for them)"
        )
    return int(mp)


def _roll(
    rules: RulesView,
    dice: Dice,
    c: JSON,
    skill: int,
    grade: Grade,
    augment: int,
    penalty: int,
    luck: str | None,
    label: str,
) -> CheckResult:
    tgt = target(rules.checks, skill, grade, augment, penalty)
    if tgt.impossible:
        raise EngineError(f"{c['name']}'s roll is {grade.name}: no attempt is possible")
    policy = Level.named(luck) if luck and c["luck_points"] > 0 else None
    result = roll_check(rules.checks, dice, tgt, f"1d100 {label}", policy)
    if result.rerolled_from is not None:
        c["luck_points"] -= 1
    return result


def spirit_combat(
    rules: RulesView, body: SpiritCombatBody, state: JSON | None, dice: Dice
) -> Resolution:
    """Resolve one exchange of spirit combat (see the module docstring)."""
    data = rules.model.combat.spirit_combat
    if state is None:
        state = fresh_state(rules, body)
    if body.attacker == body.defender:
        raise EngineError("a combatant cannot engage himself in spirit combat")
    state = writable(state, body.attacker, body.defender)
    att = combatant(state, body.attacker)
    dfd = combatant(state, body.defender)
    for c in (att, dfd):
        if has_condition(c, "dead") or has_condition(c, data.defeated_condition):
            raise EngineError(f"{c['name']} is out of the fight ({data.defeated_condition})")
    att_skill = att.get(SPIRIT_SKILL)
    if att_skill is None:
        raise EngineError(
            f"{att['name']} has no spirit-combat skill: give spirit_combat in the stat block"
        )
    resist_name, dfd_skill = _resistance(rules, dfd)
    mp = {c["id"]: _magic_points(c) for c in (att, dfd)}
    if has_condition(att, "surprised"):
        raise EngineError(f"{att['name']} was surprised and may not act offensively this round")
    rounds.spend_proactive(state, att, "engage in spirit combat", rules)

    notes: list[str] = []
    att_grade = _grade(rules, att, body.attacker_grades, body.attacker_grade_steps, notes)
    dfd_grade = _grade(rules, dfd, body.defender_grades, body.defender_grade_steps, notes)
    penalty = contest_penalty([att_skill, dfd_skill])
    if penalty:
        notes.append(f"skills over 100: −{penalty} to both")
    a = _roll(
        rules,
        dice,
        att,
        att_skill,
        att_grade,
        body.attacker_augment,
        penalty,
        body.attacker_luck,
        SPIRIT_SKILL,
    )
    d = _roll(
        rules,
        dice,
        dfd,
        dfd_skill,
        dfd_grade,
        body.defender_augment,
        penalty,
        body.defender_luck,
        resist_name,
    )
    diff = differential(rules.differential, a.level, d.level)
    result: JSON = {
        "kind": "spirit_combat",
        "attacker": att["id"],
        "defender": dfd["id"],
        "attack": {
            **a.to_json(),
            "skill_name": SPIRIT_SKILL,
            "skill": att_skill,
            "grade": att_grade.id,
        },
        "resistance": {
            **d.to_json(),
            "skill_name": resist_name,
            "skill": dfd_skill,
            "grade": dfd_grade.id,
        },
        "penalty_over_100": penalty,
        "differential": {"winner": diff.winner, "effects": diff.count},
        "spirit_damage": None,
        "defeated": None,
        "notes": notes,
    }
    if diff.count:
        notes.append("spirit-combat special effects are not in the rule data: apply them by hand")
    winner, loser, roll = (att, dfd, a) if diff.winner == "attacker" else (dfd, att, d)
    if diff.winner is None:
        notes.append("neither side wins: no Spirit Damage")
    elif diff.winner == "defender" and not (
        data.defender_deals_damage and resist_name == SPIRIT_SKILL
    ):
        notes.append(f"{dfd['name']} fends the attack off but cannot strike back")
    elif data.damage_needs_success and not roll.level.succeeded:
        notes.append(f"{winner['name']} wins without a success: no Spirit Damage")
    else:
        skill = int(winner[SPIRIT_SKILL])
        expr = rules.model.spirit_damage_for(skill)
        rolled = dice.roll(expr).total
        left = mp[loser["id"]] - rolled
        loser["magic_points"] = left
        result["spirit_damage"] = {
            "to": loser["id"],
            "skill": skill,
            "dice": expr,
            "rolled": rolled,
            "magic_points": {"before": mp[loser["id"]], "after": left},
        }
        if left <= data.defeated_at:
            add_condition(loser, data.defeated_condition)
            result["defeated"] = loser["id"]
            notes.append(f"{loser['name']} is out of Magic Points: {data.defeated_condition}")
    if state.get("phase") == "turns":
        result.update(rounds.snapshot(state))
    return Resolution(result, state)
