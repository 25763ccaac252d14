"""The engine's shortcuts (memos, indexes, the path for a situation that sets nothing) give
exactly what the general computations they stand in for give — and both give the numbers of the
rule text (``seeds/003_…`` and its tables in ``reference/styles-tables.md``), computed here by
a small model written from that text, so that a shortcut and the code it mirrors cannot agree
on a wrong rule."""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import Any

import pytest

from arbiter.bridge.engine.combat_styles.bodies.requests import ExchangeBody, Situation
from arbiter.bridge.engine.combat_styles.bodies.stat_blocks import Characteristics
from arbiter.bridge.engine.combat_styles.core.checks import _target, target
from arbiter.bridge.engine.combat_styles.core.combatant_record import CombatantRecord
from arbiter.bridge.engine.combat_styles.core.damage import (
    expr_of,
    maximize,
    modifier_expr,
    parry_block,
    step_modifier,
)
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.bridge.engine.combat_styles.encounter.blows import damage_expr
from arbiter.bridge.engine.combat_styles.encounter.combatants import (
    StatBlock,
    action_points,
    characteristics_of,
    healing_rate,
    hit_points,
    initiative_bonus,
    record,
)
from arbiter.bridge.engine.combat_styles.exchange.exchange import situation_json
from arbiter.bridge.engine.combat_styles.exchange.finishing import _parry_block
from arbiter.bridge.engine.combat_styles.grades.situations import attack_terms
from arbiter.bridge.engine.contract import JSON
from arbiter.compiler.model.common import RulesetBase
from tests.bridge.engine.combat_styles.helpers import Table, duel, fighter

CONDITIONS: list[dict[str, Any]] = [
    {},
    {"prone": {"turns": None}},
    {"blinded": {"turns": 2}},
    {"grappled": {"turns": None, "location": "chest", "by": "b"}},
    {"grappled": {"turns": None, "location": "left_arm", "by": "b"}},
    {"impaled": {"turns": None, "grades": ["hard"]}},
]


# The rule text's tables, as an independent model (never read from the rule data).
GRADE_SEVERITY = ["standard", "hard", "formidable", "herculean", "hopeless"]
GRADE_MULTIPLIER: dict[str | None, Fraction] = {
    None: Fraction(1),
    "easy": Fraction(3, 2),  # "×1.5 (add half)"
    "standard": Fraction(1),
    "formidable": Fraction(1, 2),
    "herculean": Fraction(1, 10),  # RULES-NOTES: "Herculean is ×1/10"
}
FATIGUE_GRADE = [None, "hard", "hard", "formidable"]  # Fresh, Winded, Tired, Wearied
ATTACKER_CONDITION_GRADE: list[tuple[str, str | None, str | None]] = [
    # (condition, in close combat, with a ranged weapon): "Fighting while prone" Formidable,
    # but the ranged table's "Attacker prone" Herculean; "Blinded" Herculean in close combat,
    # the ranged table's "Blinded / loss of primary sense" Hopeless (tagged uncertain there;
    # the rule data marks it assumed); a grappled torso "imposes a difficulty penalty of Hard
    # against any skill"; a grappled limb is only inoperable; an impaled weapon's grade is the
    # one the wound records.
    ("prone", "formidable", "herculean"),
    ("blinded", "herculean", "hopeless"),
    ("grappled/chest", "hard", "hard"),
    ("grappled/left_arm", None, None),
    ("impaled", "hard", "hard"),
]
WEAPON_DAMAGE = {"broadsword": ("1d8", "8"), "dagger": ("1d4+1", "5"), "unarmed": ("1d3", "3")}
WEAPON_DAMAGE["short_bow"] = ("1d6", "6")  # (damage, maximised: "1d6 → 6")
DM_BY_STEP = {-1: "-1d2", 0: None, 1: "1d2"}  # STR+SIZ 23 is +0; the ladder's neighbours


def text_target(skill: int, grade_id: str | None, augment: int, penalty: int) -> int:
    """Target from the text: the over-100 penalty off the skill, the grade's multiplier
    rounded up ("always round fractions up"), then a fifth of the augmenting skill."""
    base = max(0, skill - penalty)
    return ceil(base * GRADE_MULTIPLIER[grade_id]) + ceil(Fraction(augment, 5))


def most_severe(*grades: str | None) -> str:
    """The text: "Where two or more situations are pertinent to the character, use the most
    severe"."""
    return max((g or "standard" for g in grades), key=GRADE_SEVERITY.index)


def _condition_key(conditions: dict[str, Any]) -> str:
    if not conditions:
        return ""
    [(name, data)] = conditions.items()
    return f"{name}/{data['location']}" if "location" in data else name


def _pair(model: RulesetBase, weapon: str) -> tuple[JSON, JSON]:
    table = Table(model)
    duel(table, fighter("a", weapons=[weapon]), fighter("b"))
    return table.who("a"), table.who("b")


@pytest.mark.parametrize("weapon", ["broadsword", "short_bow", "unarmed"])
@pytest.mark.parametrize("conditions", CONDITIONS)
@pytest.mark.parametrize("fatigue", [0, 2])
def test_a_situation_that_sets_nothing_gives_the_terms_the_full_computation_gives(
    model: RulesetBase,
    view: RulesView,
    weapon: str,
    conditions: dict[str, Any],
    fatigue: int,
) -> None:
    attacker, defender = _pair(model, weapon)
    attacker = {**attacker, "conditions": conditions, "fatigue_levels": fatigue}
    arm = view.arm(weapon)
    att, dfd = CombatantRecord.of(attacker), CombatantRecord.of(defender)
    quick = attack_terms(view, att, dfd, arm, Situation())
    # A field given explicitly (even at its default) takes the general path.
    full = attack_terms(view, att, dfd, arm, Situation(charging=False))
    assert Situation().model_fields_set == set()
    assert quick == full
    by_condition = {c: (close, ranged) for c, close, ranged in ATTACKER_CONDITION_GRADE}
    close, ranged = by_condition.get(_condition_key(conditions), (None, None))
    from_condition = ranged if arm.is_ranged else close
    assert quick.grade.id == most_severe(from_condition, FATIGUE_GRADE[fatigue])


def test_the_default_situation_is_recorded_as_its_dump_with_containers_of_its_own() -> None:
    first, second = situation_json(Situation()), situation_json(Situation())
    # prepared_position is recorded only when true (records stay what they were before it).
    assert first == Situation().model_dump(exclude={"prepared_position"})
    assert first["cover"] is not second["cover"]
    assert first["attacker_situations"] is not second["attacker_situations"]
    given = Situation(charging=True, cover={"head": 2})
    assert situation_json(given) == given.model_dump(exclude={"prepared_position"})
    prepared = Situation(prepared_position=True)
    assert situation_json(prepared) == prepared.model_dump()


@pytest.mark.parametrize("skill", [0, 35, 60, 101, 150])
@pytest.mark.parametrize("grade_id", [None, "easy", "standard", "formidable", "herculean"])
@pytest.mark.parametrize("augment", [0, 45])
@pytest.mark.parametrize("penalty", [0, 20])
def test_the_remembered_target_is_the_computed_one(
    view: RulesView, skill: int, grade_id: str | None, augment: int, penalty: int
) -> None:
    checks = view.checks
    grade = checks.grade(grade_id) if grade_id is not None else None
    first = target(checks, skill, grade, augment, penalty)
    again = target(checks, skill, grade, augment, penalty)
    assert first == again == _target(checks, skill, grade, augment, penalty)
    assert first.skill == text_target(skill, grade_id, augment, penalty)


def test_targets_match_the_grade_table_on_worked_numbers(view: RulesView) -> None:
    checks = view.checks
    hard, herculean = checks.grade("hard"), checks.grade("herculean")
    assert target(checks, 60, hard, 0, 0).skill == 40  # ×2/3
    assert target(checks, 35, hard, 0, 0).skill == 24  # 23.3 rounds up
    assert target(checks, 35, herculean, 0, 0).skill == 4  # ×1/10, 3.5 rounds up
    assert target(checks, 120, None, 0, 20).skill == 100  # over 100: the excess off
    assert target(checks, 50, None, 45, 0).skill == 59  # a fifth of 45, rounded up


def test_the_view_indexes_agree_with_searching_the_ladders_and_tables(view: RulesView) -> None:
    for reach in view.reaches:
        assert view.reach_index[reach] == view.reaches.index(reach)
    for size in view.sizes:
        assert view.size_index[size] == view.sizes.index(size)
    for loc in view.locations:
        assert view.location(loc.id) == next(x for x in view.locations if x.id == loc.id)
    for plan in view.body_plans.values():
        for total in range(-5, 40):
            covering = [loc for loc in plan.locations if loc.low <= total <= loc.high]
            assert plan.location_at.get(total) == (covering[0] if covering else None)
    searched = [*view.locations, *(x for p in view.body_plans.values() for x in p.locations)]
    for loc in searched:
        assert view.location(loc.id) == next(x for x in searched if x.id == loc.id)
    assert {w.id: w.rank for w in view.wounds} == view.wound_rank
    with pytest.raises(LookupError, match="unknown hit location 'tail'"):
        view.location("tail")


@pytest.mark.parametrize("weapon", ["broadsword", "dagger", "unarmed", "short_bow"])
@pytest.mark.parametrize("maximized", [0, 1])
@pytest.mark.parametrize("dm_steps", [0, 1, -1])
def test_remembered_damage_expressions_are_the_computed_ones(
    model: RulesetBase, view: RulesView, weapon: str, maximized: int, dm_steps: int
) -> None:
    attacker = CombatantRecord.of(_pair(model, "broadsword")[0])
    arm = view.arm(weapon)
    for base in (None, "+1d4", "-1d2"):
        got = damage_expr(view, arm, attacker, maximized, dm_steps, dm_base=base)
        again = damage_expr(view, arm, attacker, maximized, dm_steps, dm_base=base)
        assert arm.damage is not None
        text = base or attacker.damage_modifier
        if dm_steps:
            text = step_modifier(view.dm_ladder, text, dm_steps)
        want = (
            maximize(expr_of(arm.damage), maximized),
            modifier_expr(text) if arm.damage_modifier else None,
        )
        assert got == again == want
    plain, maximised = WEAPON_DAMAGE[weapon]
    weapon_expr, dm = damage_expr(view, arm, attacker, maximized, dm_steps)
    assert str(weapon_expr) == (maximised if maximized else plain)
    assert (str(dm) if dm is not None else None) == DM_BY_STEP[dm_steps]


def test_remembered_parry_blocks_are_the_computed_ones(view: RulesView) -> None:
    for attacking in view.sizes:
        for parrying in view.sizes:
            block, text = _parry_block(view, attacking, parrying)
            assert _parry_block(view, attacking, parrying) == (block, text)
            computed = parry_block(view.sizes, view.parry_reductions, attacking, parrying)
            assert block == computed
            assert text == str(computed.fraction)
            # "Equal or larger: all; one step smaller: half; two or more steps smaller: none."
            smaller = view.sizes.index(attacking) - view.sizes.index(parrying)
            blocked = Fraction(1) if smaller <= 0 else Fraction(1, 2) if smaller == 1 else 0
            assert block.fraction == blocked


def test_records_built_again_from_the_same_characteristics_are_equal_and_unshared(
    view: RulesView,
) -> None:
    block = StatBlock.model_validate(fighter("a"))
    first, second = record(view, block), record(view, block)
    assert first == second
    first["hit_points"]["chest"] -= 3
    first["hit_points_max"]["chest"] -= 3
    first["characteristics"]["siz"] = 1
    third = record(view, block)
    assert third == second
    stats = block.characteristics.model_dump(by_alias=True)
    assert third["hit_points_max"] == hit_points(view, stats)
    assert third["action_points_max"] == action_points(view, stats)
    assert third["initiative_bonus"] == initiative_bonus(view, stats)
    assert third["healing_rate"] == healing_rate(view, stats)
    # From the text's tables: CON+SIZ 23 → i = ceil(23/5) = 5 (head i, chest i+2, abdomen
    # i+1, arms i−1, legs i); Action Points default 2; Initiative Bonus ceil((DEX+INT)/2);
    # Healing Rate CON 7-12 → 2; Luck Points POW ÷ 6 rounded up.
    assert third["hit_points_max"] == {
        "right_leg": 5,
        "left_leg": 5,
        "abdomen": 6,
        "chest": 7,
        "right_arm": 4,
        "left_arm": 4,
        "head": 5,
    }
    assert (third["action_points_max"], third["initiative_bonus"]) == (2, 12)
    assert (third["healing_rate"], third["luck_points"], third["damage_modifier"]) == (2, 2, "+0")


@pytest.mark.parametrize(
    "given",
    [
        {"str": 13, "con": 12, "siz": 13, "dex": 12, "int": 12},
        {"int": 9, "dex": 18, "siz": 7, "con": 11, "str": 8, "cha": 15, "pow": 16},
    ],
)
def test_the_characteristics_read_directly_are_the_pydantic_dump_in_its_order(
    given: dict[str, int],
) -> None:
    ch = Characteristics.model_validate(given)
    assert list(characteristics_of(ch).items()) == list(ch.model_dump(by_alias=True).items())


def test_an_exchange_naming_no_situation_has_the_default_one_whatever_others_named() -> None:
    # Every exchange without a situation shares one default (frozen, only read): a situation
    # another request named does not reach it.
    named = ExchangeBody.model_validate_json(
        '{"attacker": "a", "defender": "b", "situation": {"charging": true, "cover": {"head": 2}}}',
        strict=True,
    )
    plain = ExchangeBody.model_validate_json('{"attacker": "a", "defender": "b"}', strict=True)
    assert named.situation.charging and named.situation.cover == {"head": 2}
    assert plain.situation == Situation()
    assert plain.situation.model_fields_set == set()
    assert "situation" not in plain.model_fields_set
    assert plain.model_dump()["situation"] == Situation().model_dump()
