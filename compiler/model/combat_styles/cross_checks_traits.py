"""Cross-checks of the rule values the engine reads by id from traits and the ``[combat]``
table: swimming's thrusting weapons, the prone situation, the default body plan, and the
parameters of weapon and style traits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from compiler.model.common import Path, Problem

if TYPE_CHECKING:
    from compiler.model.combat_styles.model import CombatStylesRules


def _ref(value: Any, known: set[str], what: str, path: Path) -> Iterator[Problem]:
    if value is not None and value not in known:
        shown = ", ".join(sorted(known))
        yield Problem(path=path, message=f"unknown {what} {value!r} (known: {shown})")


def _refs(values: Iterable[Any], known: set[str], what: str, path: Path) -> Iterator[Problem]:
    for j, value in enumerate(values):
        yield from _ref(value, known, what, (*path, j))


def traits_and_combat(rules: CombatStylesRules, ids: dict[str, set[str]]) -> Iterator[Problem]:
    """Every id these values name exists."""
    swim = rules.combat.swimming
    where = ("combat", "swimming")
    yield from _refs(
        swim.thrusting_effects,
        ids["special_effects"],
        "special effect",
        (*where, "thrusting_effects"),
    )
    yield from _refs(
        swim.thrusting_traits, ids["weapon_traits"], "weapon trait", (*where, "thrusting_traits")
    )
