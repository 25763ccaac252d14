"""Cross-checks of the combat-styles rule data: every reference resolves, ladders are
ordered without ties, banded tables have no gap or overlap, the differential table is
complete."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from arbiter.compiler.model.combat_styles.basics import Band
from arbiter.compiler.model.combat_styles.cross_checks_effects import (
    effect_links,
    spirit_effect_links,
)
from arbiter.compiler.model.combat_styles.cross_checks_traits import ref, refs, traits_and_combat
from arbiter.compiler.model.common import Problem

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules

REFERENCED = (
    "grades",
    "success_levels",
    "special_effects",
    "sizes",
    "reaches",
    "weapon_traits",
    "weapons",
    "shields",
    "ranged_weapons",
    "hit_locations",
    "situational_modifiers",
    "style_traits",
)
REQUIRED_LEVELS = ("critical", "success", "failure", "fumble")
IMPALE_RESULTS = ("no_effect", "incapacitated")


def cross_check(rules: CombatStylesRules) -> Iterator[Problem]:
    """Every problem that field validation cannot see."""
    ids = {key: {e.id for e in getattr(rules, key)} for key in REFERENCED}
    yield from _checks_and_grades(rules, ids)
    yield from _effects(rules, ids)
    yield from _equipment(rules, ids)
    yield from _body(rules, ids)
    yield from _situations(rules, ids)
    yield from _rounds(rules, ids)
    yield from traits_and_combat(rules, ids)
    yield from effect_links(rules, ids["hit_locations"])
    yield from spirit_effect_links(rules)


def _unique_ranks(items: list[Any], key: str, attr: str) -> Iterator[Problem]:
    seen: dict[int, str] = {}
    for i, item in enumerate(items):
        value = getattr(item, attr)
        if value in seen:
            yield Problem(
                path=(key, i, attr),
                message=f"{attr} {value} is also used by {seen[value]!r}; the ladder needs distinct {attr}s",
            )
        else:
            seen[value] = item.id


def _contiguous(
    bands: list[tuple[int, Band]], path_of: Any, *, in_order: bool = False
) -> Iterator[Problem]:
    """Bands (with their positions) must meet without gap or overlap. Collections, which
    house rules may extend at the end, are sorted first; fixed arrays (``in_order``) must
    already be in ascending order, since lookups read their first and last rows."""
    ordered = bands if in_order else sorted(bands, key=lambda ib: ib[1].min)
    for (_, prev), (j, cur) in itertools.pairwise(ordered):
        for message in band_problem(prev, cur):
            yield Problem(path=path_of(j), message=message)


def band_problem(prev: Band, cur: Band) -> list[str]:
    if prev.max is None:
        return [f"band {cur} starts after the open-ended band {prev}; nothing may follow it"]
    if cur.min > prev.max + 1:
        return [f"gap: nothing covers {prev.max + 1}–{cur.min - 1} (between {prev} and {cur})"]
    if cur.min <= prev.max:
        return [f"overlap: {cur.min}–{min(prev.max, cur.max or prev.max)} is also in {prev}"]
    return []


def _checks_and_grades(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    yield from _unique_ranks(rules.grades, "grades", "step")
    if "standard" not in ids["grades"]:
        yield Problem(path=("grades",), message="a grade with id 'standard' is required")
    yield from _unique_ranks(rules.success_levels, "success_levels", "rank")
    for level in REQUIRED_LEVELS:
        if level not in ids["success_levels"]:
            yield Problem(
                path=("success_levels",), message=f"a success level with id {level!r} is required"
            )
    diff = rules.differential
    seen: dict[tuple[str, str], int] = {}
    for i, cell in enumerate(diff.cells):
        where = ("differential", "cells", i)
        yield from ref(
            cell.protagonist, ids["success_levels"], "success level", (*where, "protagonist")
        )
        yield from ref(
            cell.antagonist, ids["success_levels"], "success level", (*where, "antagonist")
        )
        pair = (cell.protagonist, cell.antagonist)
        if pair in seen:
            yield Problem(
                path=(*where, "antagonist"),
                message=f"the pair {pair[0]}/{pair[1]} is already given by cell #{seen[pair] + 1}",
            )
        seen[pair] = i
    for a in sorted(ids["success_levels"]):
        for b in sorted(ids["success_levels"]):
            if (a, b) not in seen:
                yield Problem(
                    path=("differential", "cells"),
                    message=f"no cell for protagonist {a!r} against antagonist {b!r}",
                )
    yield from ref(
        diff.no_defence_level,
        ids["success_levels"],
        "success level",
        ("differential", "no_defence_level"),
    )


def _effects(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    for i, effect in enumerate(rules.special_effects):
        where = ("special_effects", i)
        req = effect.requires
        yield from ref(
            req.max_weapon_size, ids["sizes"], "size", (*where, "requires", "max_weapon_size")
        )
        yield from ref(
            req.style_trait, ids["style_traits"], "style trait", (*where, "requires", "style_trait")
        )
        params = effect.params
        yield from ref(
            params.imposes_grade, ids["grades"], "grade", (*where, "params", "imposes_grade")
        )
        for j, check in enumerate(params.obstacle_checks):
            yield from ref(
                check.grade,
                ids["grades"],
                "grade",
                (*where, "params", "obstacle_checks", j, "grade"),
            )
        if effect.escape is not None:
            yield from refs(
                effect.escape.also_by_effects,
                ids["special_effects"],
                "special effect",
                (*where, "escape", "also_by_effects"),
            )


def _equipment(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    yield from _unique_ranks(rules.sizes, "sizes", "rank")
    yield from _unique_ranks(rules.reaches, "reaches", "rank")
    yield from _parry_rows(rules)
    owners: dict[str, str] = {}
    for key in ("weapons", "shields", "ranged_weapons"):
        for i, item in enumerate(getattr(rules, key)):
            where = (key, i)
            if item.id in owners and owners[item.id] != key:
                yield Problem(
                    path=(*where, "id"),
                    message=f"id {item.id!r} is also used in {owners[item.id]}; weapon ids must be unique across weapons, shields and ranged weapons",
                )
            owners.setdefault(item.id, key)
            yield from refs(
                item.effects, ids["special_effects"], "special effect", (*where, "effects")
            )
            if key == "ranged_weapons":
                yield from ref(item.force, ids["sizes"], "size", (*where, "force"))
                yield from ref(item.impale_size, ids["sizes"], "size", (*where, "impale_size"))
            else:
                yield from ref(item.size, ids["sizes"], "size", (*where, "size"))
                yield from ref(item.reach, ids["reaches"], "reach", (*where, "reach"))
            if key == "weapons":
                yield from refs(
                    item.traits, ids["weapon_traits"], "weapon trait", (*where, "traits")
                )
                yield from ref(
                    item.thrown_as, ids["ranged_weapons"], "ranged weapon", (*where, "thrown_as")
                )


def _parry_rows(rules: CombatStylesRules) -> Iterator[Problem]:
    rows = rules.parry_reduction
    if not rows:
        yield Problem(path=("parry_reduction",), message="at least one row is required")
        return

    def low(i: int) -> int:
        smallest = rows[i].steps_smaller_min
        return -(10**9) if smallest is None else smallest

    lows = sorted(range(len(rows)), key=low)
    first = rows[lows[0]]
    if first.steps_smaller_min is not None:
        yield Problem(
            path=("parry_reduction", lows[0], "steps_smaller_min"),
            message="the lowest row must leave steps_smaller_min out (no lower bound), so every size difference is covered",
        )
    for a, b in itertools.pairwise(lows):
        prev, cur = rows[a], rows[b]
        if prev.steps_smaller_max is None or cur.steps_smaller_min is None:
            yield Problem(
                path=("parry_reduction", b, "steps_smaller_min"),
                message="rows overlap: only the first row may lack a minimum and only the last a maximum",
            )
        elif cur.steps_smaller_min != prev.steps_smaller_max + 1:
            kind = "gap" if cur.steps_smaller_min > prev.steps_smaller_max + 1 else "overlap"
            yield Problem(
                path=("parry_reduction", b, "steps_smaller_min"),
                message=f"{kind} after {prev.steps_smaller_max} steps smaller (row {prev.id!r})",
            )
    last = rows[lows[-1]]
    if last.steps_smaller_max is not None:
        yield Problem(
            path=("parry_reduction", lows[-1], "steps_smaller_max"),
            message="the highest row must leave steps_smaller_max out (no upper bound)",
        )


def _body(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    for i, loc in enumerate(rules.hit_locations):
        yield from refs(
            loc.adjacent, ids["hit_locations"], "hit location", ("hit_locations", i, "adjacent")
        )
    for i, table in enumerate(rules.hit_location_tables):
        for j, row in enumerate(table.rows):
            yield from ref(
                row.location,
                ids["hit_locations"],
                "hit location",
                ("hit_location_tables", i, "rows", j, "location"),
            )
    yield from _unique_ranks(rules.wound_levels, "wound_levels", "rank")
    yield from _contiguous(
        [(i, s.band) for i, s in enumerate(rules.damage_modifiers)],
        lambda j: ("damage_modifiers", j, "band"),
    )
    yield from _contiguous(
        [(i, s.skill) for i, s in enumerate(rules.spirit_damage)],
        lambda j: ("spirit_damage", j, "skill"),
    )
    for i, hand in enumerate(rules.combat.hands.hands):
        yield from ref(
            hand.location,
            ids["hit_locations"],
            "hit location",
            ("combat", "hands", "hands", i, "location"),
        )


def _situations(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    for i, mod in enumerate(rules.situational_modifiers):
        yield from ref(mod.grade, ids["grades"], "grade", ("situational_modifiers", i, "grade"))
    results = ids["grades"] | set(IMPALE_RESULTS)
    for i, row in enumerate(rules.impale_effects):
        where = ("impale_effects", i, "by_weapon_size")
        for size, result in row.by_weapon_size.items():
            yield from ref(size, ids["sizes"], "size", (*where, size))
            yield from ref(result, results, "impale result", (*where, size))
        for size in sorted(ids["sizes"] - set(row.by_weapon_size)):
            yield Problem(path=where, message=f"no result for weapon size {size!r}")
    yield from _contiguous(
        [(i, r.siz) for i, r in enumerate(rules.impale_effects)],
        lambda j: ("impale_effects", j, "siz"),
    )
    dist = rules.distance_penalties
    yield from _contiguous(
        list(enumerate(dist.siz_columns)),
        lambda j: ("distance_penalties", "siz_columns", j),
        in_order=True,
    )
    yield from _contiguous(
        [(i, r.metres) for i, r in enumerate(dist.rows)],
        lambda j: ("distance_penalties", "rows", j, "metres"),
        in_order=True,
    )
    for j, fall in enumerate(rules.knockback.avoid_fall):
        yield from ref(fall.grade, ids["grades"], "grade", ("knockback", "avoid_fall", j, "grade"))
    yield from _unique_ranks(rules.fatigue_levels, "fatigue_levels", "rank")
    for i, level in enumerate(rules.fatigue_levels):
        yield from ref(
            level.skill_grade, ids["grades"], "grade", ("fatigue_levels", i, "skill_grade")
        )
    ranged = rules.combat.ranged
    yield from ref(
        ranged.crowd_edge_grade, ids["grades"], "grade", ("combat", "ranged", "crowd_edge_grade")
    )
    yield from ref(
        ranged.aim_easiest_grade, ids["grades"], "grade", ("combat", "ranged", "aim_easiest_grade")
    )
    yield from ref(
        ranged.crowd_through_grade,
        ids["grades"],
        "grade",
        ("combat", "ranged", "crowd_through_grade"),
    )
    yield from ref(
        rules.combat.unarmed_weapon, ids["weapons"], "weapon", ("combat", "unarmed_weapon")
    )
    actions = {a.id for a in rules.actions}
    yield from ref(rules.combat.default_action, actions, "action", ("combat", "default_action"))
    yield from refs(
        rules.combat.leaping_attack.leaving_actions,
        actions,
        "action",
        ("combat", "leaping_attack", "leaving_actions"),
    )
    brace = rules.combat.brace
    yield from ref(brace.action, actions, "action", ("combat", "brace", "action"))
    yield from refs(
        brace.lost_on_actions, actions, "action", ("combat", "brace", "lost_on_actions")
    )


def _rounds(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    yield from _contiguous(
        [(i, b.band) for i, b in enumerate(rules.action_points.table)],
        lambda j: ("action_points", "table", j, "band"),
        in_order=True,
    )
    every_weapon = ids["weapons"] | ids["shields"] | ids["ranged_weapons"]
    for i, style in enumerate(rules.combat_styles):
        for j, weapon in enumerate(style.weapons):
            yield from refs(
                weapon.covers, every_weapon, "weapon", ("combat_styles", i, "weapons", j, "covers")
            )
        yield from refs(
            style.traits, ids["style_traits"], "style trait", ("combat_styles", i, "traits")
        )
