"""What a stat block names that the rule data lacks: the one list of a block's rule-data problems.

A stat block names weapons, armour, hit locations, skills, style traits, its body plan, its
starting fatigue level and its hands by rule-data ids. :func:`block_problems` finds every one
the served rules lack, each at its own field and in the engine's words. Two callers: the stat
block's validation at the door (``bodies/stat_blocks.py``, under the rules of the validation
context, so ``check`` and every request refuse alike, before any die) and the engine's
:func:`~arbiter.bridge.engine.combat_styles.encounter.combatants.record` (the backstop for a
block validated without rules, as a test builds by hand).
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.combat_styles.core.hands import hand_ids, hands_needed
from arbiter.bridge.engine.combat_styles.core.view import RulesView

SKILLS = (
    "combat_style",
    "evade",
    "endurance",
    "willpower",
    "brawn",
    "athletics",
    "acrobatics",
    "unarmed",
    "ride",
    "swim",
    "fly",
)
"""The skills a stat block may give (the engine reads each by this name)."""
SKILL_SET = frozenset(SKILLS)

Problem = tuple[tuple[str | int, ...], str]
"""(field path from the stat block's root, message)."""


def block_problems(rules: RulesView, given: dict[str, Any]) -> list[Problem]:
    """Every rule-data problem of a stat block whose validated fields are ``given`` (by field
    name, as pydantic keeps them: ``StatBlock.__dict__``); empty when the engine can build its
    record. The usual block, every id known, is checked without building anything."""
    if _all_known(rules, given):
        return []
    return _found(rules, given)


def _all_known(rules: RulesView, given: dict[str, Any]) -> bool:
    """Whether every id of the block is known: plain loops that stop at the first unknown id
    (a block's lists are short, and this runs for every block of every request)."""
    if given["hands"] is not None:
        return False  # checked in full: rarely given
    arms = rules.arms
    weapons: list[str] = given["weapons"]
    for wid in weapons:
        if wid not in arms:
            return False
    if len(weapons) > 1 and len(set(weapons)) != len(weapons):
        return False
    for trait in given["traits"]:
        if trait not in rules.style_trait_ids:
            return False
    where = rules.location_by_id
    armors = rules.armors
    armor: dict[str, str] = given["armor"]
    for loc, armor_id in armor.items():
        if loc not in where or armor_id not in armors:
            return False
    hp: dict[str, int] | None = given["hit_points"]
    for loc in hp or ():
        if loc not in where:
            return False
    for loc in given["natural_armor"]:
        if loc not in where:
            return False
    if not SKILL_SET.issuperset(given["skills"]):
        return False
    plan: str | None = given["body_plan"]
    if plan is not None and plan not in rules.body_plans:
        return False
    fatigue: str | None = given["fatigue"]
    if fatigue is not None and fatigue not in [f.id for f in rules.fatigue]:
        return False
    return given["action_points"] is not None or _fixed_action_points(rules)


def _fixed_action_points(rules: RulesView) -> bool:
    """Whether the rule data gives everyone the same Action Points (memoised per view)."""
    fixed = rules.memo.get("fixed_action_points")
    if fixed is None:
        fixed = rules.memo["fixed_action_points"] = rules.model.action_points.method == "fixed"
    return bool(fixed)


def _found(rules: RulesView, given: dict[str, Any]) -> list[Problem]:
    """The problems :func:`block_problems` promises, built one by one (the unusual case)."""
    out: list[Problem] = []
    weapons: list[str] = given["weapons"]
    seen: set[str] = set()
    for i, wid in enumerate(weapons):
        if wid not in rules.arms:
            out.append((("weapons", i), f"unknown weapon {wid!r} (known: {_known(rules.arms)})"))
        elif wid in seen:
            out.append((("weapons", i), f"weapon {wid!r} is listed twice"))
        seen.add(wid)
    traits: list[str] = given["traits"]
    for i, trait in enumerate(traits):
        if trait not in rules.style_trait_ids:
            known = ", ".join(sorted(rules.style_trait_ids))
            out.append((("traits", i), f"unknown style trait {trait!r} (known: {known})"))
    armor: dict[str, str] = given["armor"]
    for loc, armor_id in armor.items():
        out.extend(_location("armor", loc, rules))
        if armor_id not in rules.armors:
            known = _known(rules.armors)
            out.append((("armor", loc), f"unknown armour {armor_id!r} (known: {known})"))
    hp: dict[str, int] | None = given["hit_points"]
    for loc in hp or {}:
        out.extend(_location("hit_points", loc, rules))
    natural: dict[str, int] = given["natural_armor"]
    for loc in natural:
        out.extend(_location("natural_armor", loc, rules))
    skills: dict[str, int] = given["skills"]
    for name in skills:
        if name not in SKILL_SET:
            known = ", ".join(SKILLS)
            out.append((("skills", name), f"unknown skill {name!r} (known: {known})"))
    plan: str | None = given["body_plan"]
    if plan is not None and plan not in rules.body_plans:
        known = ", ".join(sorted(rules.body_plans))
        out.append((("body_plan",), f"unknown body plan {plan!r} (known: {known})"))
    fatigue: str | None = given["fatigue"]
    ranks = [f.id for f in rules.fatigue]
    if fatigue is not None and fatigue not in ranks:
        known = ", ".join(ranks)
        out.append((("fatigue",), f"unknown fatigue level {fatigue!r} (known: {known})"))
    out.extend(_hands(rules, weapons, given["hands"]))
    if given["action_points"] is None:
        out.extend(_action_points(rules, given["characteristics"]))
    return out


def _known(table: Any) -> str:
    return ", ".join(str(k) for k in table)


def _location(field: str, loc: str, rules: RulesView) -> list[Problem]:
    """The problem of ``loc`` (a key of ``field``) when it is no hit location of the data."""
    if loc in rules.location_by_id:
        return []
    known = ", ".join(location.id for location in rules.locations)
    return [((field, loc), f"unknown hit location {loc!r} (known: {known})")]


def _hands(
    rules: RulesView, weapons: list[str], given: dict[str, str | None] | None
) -> list[Problem]:
    """The problems of ``hands``: known hands, listed weapons, and each weapon held in exactly as
    many hands as it needs (reported at the first hand holding it)."""
    if given is None:
        return []
    out: list[Problem] = []
    names = hand_ids(rules)
    counted: dict[str, tuple[str, int]] = {}
    for hand, held in given.items():
        if hand not in names:
            out.append((("hands", hand), f"unknown hand {hand!r} (known: {', '.join(names)})"))
            continue
        if held is None:
            continue
        if held not in weapons:
            message = f"hand {hand!r} holds {held!r}, which is not in the weapons list"
            out.append((("hands", hand), message))
        elif held in rules.arms:  # an unknown weapon is reported at ``weapons``
            first, count = counted.get(held, (hand, 0))
            counted[held] = (first, count + 1)
    for wid, (first, count) in counted.items():
        need = hands_needed(rules, wid)
        if count != need:
            message = f"{wid!r} needs {need} hand(s) but is held in {count}"
            out.append((("hands", first), message))
    return out


def _action_points(rules: RulesView, characteristics: Any) -> list[Problem]:
    """The problem of a block whose Action Points the rule data's table cannot give (a house
    table whose bands leave its INT+DEX out) and that gives none of its own."""
    formula = rules.model.action_points
    if formula.method == "fixed":
        return []
    fields: dict[str, int] = characteristics.__dict__
    stats = {key.lower(): value for key, value in fields.items()}
    try:
        formula.points(stats)
    except KeyError as err:
        said = str(err).strip("'\"")
        return [(("action_points",), f"{said}: give the block's action_points")]
    return []
