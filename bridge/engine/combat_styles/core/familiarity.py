"""Unfamiliar weapons (text "Use of Weapons Not Covered by a Combat Style"): the grade steps or
base skill an unfamiliar weapon costs, for the attacker's blow and the defender's parry alike
("offensive and defensive actions"), and the floor no such penalty goes below: "The penalty
imposed by use of an unfamiliar weapon cannot reduce the user's skill below the default level
of STR+DEX" (``combat.familiarity.floor``)."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core.checks import Grade
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.contract import EngineError

TRAINED_ALONGSIDE = "with_trained_weapon"
"""The familiarity id of an unfamiliar weapon used with a trained one (a grade step of its own)."""


FLOOR_ATTRIBUTES = {"str_plus_dex": ("str", "dex")}
"""The characteristics each ``combat.familiarity.floor`` value adds up (the model admits only
these)."""


def base_skill(rules: RulesView, c: CombatantRecord) -> int:
    """The default Combat Style the rule data's ``combat.familiarity.floor`` names (STR+DEX):
    the base skill of a substantially different weapon and the floor of every other penalty."""
    stats = c.characteristics
    total = 0
    for attribute in FLOOR_ATTRIBUTES[rules.model.combat.familiarity.floor]:
        total += int(stats[attribute])
    return total


def skill_and_steps(
    rules: RulesView,
    c: CombatantRecord,
    skill: int,
    familiarity: str,
    notes: list[str],
    who: str = "",
) -> tuple[int, int]:
    """(skill, grade steps) of ``c`` fighting at ``skill`` with a weapon of ``familiarity`` (a
    ``combat.familiarity`` id): substantially different falls back to the base skill (no
    steps), the others cost their steps. Notes start with ``who``. EngineError for an
    unknown id."""
    if familiarity == TRAINED_ALONGSIDE:
        return skill, rules.with_trained_weapon_steps
    if familiarity not in rules.familiarity:
        raise EngineError(f"unknown weapon familiarity {familiarity!r}")
    steps = rules.familiarity[familiarity]
    if steps is None:
        notes.append(f"{who}unfamiliar weapon: base Combat Style (STR+DEX)")
        return min(skill, base_skill(rules, c)), 0
    return skill, steps


def _worth(grade: Grade, skill: int) -> int:
    """What a roll at ``grade`` is worth, to compare two ways of making it."""
    if grade.impossible:
        return -1
    if grade.automatic:
        return 1 << 30
    return grade.apply(skill)


def floored(
    rules: RulesView,
    c: CombatantRecord,
    skill: int,
    before: Grade,
    steps: int,
    notes: list[str],
    who: str = "",
) -> tuple[Grade, int]:
    """(grade, skill) of a roll at ``before`` made ``steps`` grades harder by an unfamiliar
    weapon, held at the floor: never worse than the same roll at the base skill (STR+DEX, or
    his own skill if lower) without those steps. The other grades and steps of the roll
    (``before``) apply either way, so the floor bounds the familiarity penalty alone."""
    graded = rules.checks.shifted(before, steps)
    floor = min(skill, base_skill(rules, c))
    if steps <= 0 or _worth(graded, skill) >= _worth(before, floor):
        return graded, skill
    notes.append(f"{who}unfamiliar weapon: the penalty stops at the floor (STR+DEX {floor})")
    return before, floor


def for_parry(
    rules: RulesView,
    familiarity: str,
    asked: str,
    defence: str,
    parrier: CombatantRecord,
    skill: int,
    notes: list[str],
) -> tuple[int, int]:
    """(skill, grade steps) of a parry with an unfamiliar weapon (``situation.
    defender_familiarity``): nothing when the defender, who asked to ``asked``, ends up not
    parrying (surprised, helpless, out of points); refused for an evade, which uses no
    weapon."""
    if asked == "evade":
        raise EngineError("defender_familiarity is for a parry: an evade uses no weapon")
    if defence != "parry":
        return skill, 0
    return skill_and_steps(rules, parrier, skill, familiarity, notes, f"{parrier.name}'s parry: ")
