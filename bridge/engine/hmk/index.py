"""Fast look-ups into the hmk rule data, built once per ruleset object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.hmk import HmkRules
from arbiter.compiler.model.hmk.combat import InitiativeModifier, MovementPenalty
from arbiter.compiler.model.hmk.gear import Armor, ReloadRule, Weapon
from arbiter.compiler.model.hmk.tables import CriticalRow, FumbleRow

R = TypeVar("R", CriticalRow, FumbleRow)


@dataclass(frozen=True, slots=True)
class Index:
    """The rules with every table turned into a dict or a roll → row array."""

    rules: HmkRules
    weapons: dict[str, Weapon]
    armor: dict[str, Armor]
    range_penalty: dict[str, int]
    movement: dict[str, MovementPenalty]
    reload: dict[str, ReloadRule]
    initiative: dict[str, InitiativeModifier]
    critical_rows: Mapping[int, CriticalRow]
    """``critical_rows[roll]`` for a roll of the critical table's own die."""
    melee_rows: Mapping[int, FumbleRow]
    missile_rows: Mapping[int, FumbleRow]

    def weapon(self, weapon_id: str) -> Weapon:
        found = self.weapons.get(weapon_id)
        if found is None:
            raise EngineError(f"unknown weapon {weapon_id!r} (known: {', '.join(self.weapons)})")
        return found

    def armor_pv(self, armor_id: str | None) -> int:
        if armor_id is None:
            return 0
        found = self.armor.get(armor_id)
        if found is None:
            raise EngineError(f"unknown armor {armor_id!r} (known: {', '.join(self.armor)})")
        return found.pv

    def movement_of(self, speed: str) -> MovementPenalty:
        found = self.movement.get(speed)
        if found is None:
            raise EngineError(f"unknown movement {speed!r} (known: {', '.join(self.movement)})")
        return found


_CACHE: dict[int, Index] = {}
_CACHE_SIZE = 8


def index(rules: RulesetBase) -> Index:
    """The index of ``rules`` (memoised by identity: rule models are immutable)."""
    found = _CACHE.get(id(rules))
    if found is not None and found.rules is rules:
        return found
    if not isinstance(rules, HmkRules):
        raise EngineError(f"the hmk engine was given {type(rules).__name__}, not hmk rules")
    built = _build(rules)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[id(rules)] = built
    return built


def _by_roll(rows: Sequence[R]) -> dict[int, R]:
    """Rows by die result, for whatever die the table names (its ranges cover the die's span:
    the loader's coverage check)."""
    return {roll: row for row in rows for roll in range(row.range[0], row.range[1] + 1)}


def _build(rules: HmkRules) -> Index:
    return Index(
        rules=rules,
        weapons={w.id: w for w in rules.weapons},
        armor={a.id: a for a in rules.armor},
        range_penalty={r.id: r.penalty for r in rules.range_penalties},
        movement={m.id: m for m in rules.movement_penalties},
        reload={r.id: r for r in rules.reload_actions},
        initiative={m.id: m for m in rules.initiative.modifiers},
        critical_rows=_by_roll(rules.critical_hits.rows),
        melee_rows=_by_roll(rules.melee_fumbles.rows),
        missile_rows=_by_roll(rules.missile_fumbles.rows),
    )
