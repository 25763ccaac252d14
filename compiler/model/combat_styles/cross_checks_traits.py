"""Cross-checks of the rule values the engine reads by id from traits and the ``[combat]``
table: swimming's thrusting weapons, the prone situation, the default body plan, the
parameters of style traits, and whether each weapon trait's ``effect`` matches what the engine
reads of it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from arbiter.compiler.model.common import Path, Problem

if TYPE_CHECKING:
    from arbiter.compiler.model.combat_styles.model import CombatStylesRules


def ref(value: Any, known: set[str], what: str, path: Path) -> Iterator[Problem]:
    """A problem at ``path`` if ``value`` is given and is not one of the ``known`` ids."""
    if value is not None and value not in known:
        shown = ", ".join(sorted(known))
        yield Problem(path=path, message=f"unknown {what} {value!r} (known: {shown})")


def refs(values: Iterable[Any], known: set[str], what: str, path: Path) -> Iterator[Problem]:
    """:func:`ref` for each of ``values``, at its index under ``path``."""
    for j, value in enumerate(values):
        yield from ref(value, known, what, (*path, j))


def traits_and_combat(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    """Every id these values name exists."""
    swim = rules.combat.swimming
    where = ("combat", "swimming")
    yield from refs(
        swim.thrusting_effects,
        ids["special_effects"],
        "special effect",
        (*where, "thrusting_effects"),
    )
    yield from refs(
        swim.thrusting_traits, ids["weapon_traits"], "weapon trait", (*where, "thrusting_traits")
    )
    yield from ref(
        rules.combat.body_plan,
        {t.id for t in rules.hit_location_tables},
        "hit-location table",
        ("combat", "body_plan"),
    )
    levels = {w.id: w.rank for w in rules.wound_levels}
    luck = rules.combat.luck
    for field in ("mitigate_from", "mitigate_to"):
        yield from ref(getattr(luck, field), set(levels), "wound level", ("combat", "luck", field))
    both_known = luck.mitigate_from in levels and luck.mitigate_to in levels
    if both_known and levels[luck.mitigate_to] >= levels[luck.mitigate_from]:
        yield Problem(
            path=("combat", "luck", "mitigate_to"),
            message=f"{luck.mitigate_to!r} is not a lesser wound than {luck.mitigate_from!r}",
        )
    actions = {a.id for a in rules.actions}
    for i, effect in enumerate(rules.special_effects):
        follow = effect.params.follow_up
        if follow is None:
            continue
        at = ("special_effects", i, "params", "follow_up")
        yield from ref(follow.action, actions, "action", (*at, "action"))
        yield from ref(follow.effect, ids["special_effects"], "special effect", (*at, "effect"))
        known = {e.id: e for e in rules.special_effects}
        if follow.effect in known and known[follow.effect].resisted_by is None:
            yield Problem(
                path=(*at, "effect"),
                message=f"{follow.effect!r} has no resisted_by, so the victim has nothing to resist with",
            )
    yield from _style_traits(rules, ids)
    yield from _weapon_traits(rules)


def _weapon_traits(rules: CombatStylesRules) -> Iterator[Problem]:
    thrusting = set(rules.combat.swimming.thrusting_traits)
    for i, trait in enumerate(rules.weapon_traits):
        where = ("weapon_traits", i, "effect")
        if (
            trait.effect == "rules"
            and not trait.rules.sets_anything()
            and trait.id not in thrusting
        ):
            yield Problem(
                path=where,
                message="effect = 'rules' needs a [weapon_traits.rules] value the engine applies "
                "(or combat.swimming.thrusting_traits naming the trait); mark a trait the GM "
                "judges effect = 'narrative'",
            )
        if trait.effect == "narrative" and trait.id in thrusting:
            yield Problem(
                path=where,
                message="combat.swimming.thrusting_traits names this trait, so the engine reads "
                "it: mark it effect = 'rules'",
            )


def _style_traits(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    unlocking = {e.requires.style_trait for e in rules.special_effects if e.requires.style_trait}
    caps = {c.id for c in rules.skill_caps}
    for i, trait in enumerate(rules.style_traits):
        where = ("style_traits", i)
        # An effect naming an unknown trait is reported already; do not cascade from it.
        cascading = bool(unlocking - ids["style_traits"])
        if trait.effect == "unlocks_effects" and trait.id not in unlocking and not cascading:
            yield Problem(
                path=(*where, "effect"),
                message="no special effect requires this trait (requires.style_trait), so it "
                "unlocks nothing; mark it 'narrative' or 'rules'",
            )
        if trait.effect == "narrative" and trait.id in unlocking:
            yield Problem(
                path=(*where, "effect"),
                message="a special effect requires this trait, so it is not purely narrative; "
                "mark it 'unlocks_effects'",
            )
        r = trait.rules
        yield from ref(
            r.unarmed_parry_size, ids["sizes"], "size", (*where, "rules", "unarmed_parry_size")
        )
        yield from refs(
            r.eases_situations,
            ids["situational_modifiers"],
            "situational modifier",
            (*where, "rules", "eases_situations"),
        )
        yield from refs(
            r.lifts_skill_caps, caps, "skill cap", (*where, "rules", "lifts_skill_caps")
        )
