"""Differential rolls: how many special effects a pair of success levels awards, and to whom."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from arbiter.bridge.engine.combat_styles.core.checks import Level


@dataclass(frozen=True, slots=True)
class DifferentialTable:
    """Signed effects by (protagonist level, antagonist level): +n to the protagonist,
    −n to the antagonist. Read from the rule data; every one of the 16 pairs is present."""

    cells: Mapping[tuple[Level, Level], int]
    grid: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    """The cells as rows indexed by level values (an enum member hashes in Python, slowly)."""

    def __post_init__(self) -> None:
        levels = sorted(Level)
        grid = tuple(tuple(self.cells[(p, a)] for a in levels) for p in levels)
        object.__setattr__(self, "grid", grid)

    def effects(self, protagonist: Level, antagonist: Level) -> int:
        return self.grid[protagonist][antagonist]


# mypyc compiles a dataclass's own __init__ but not the one dataclasses generates: the
# constructor is written out (built on every exchange); eq and repr stay generated.
@dataclass(slots=True, init=False, unsafe_hash=True)
class Differential:
    """The outcome of a differential roll: who won effects (``attacker``/``defender``/None),
    how many, and the bonus part of them (surprise). Never changed once made."""

    winner: str | None
    count: int
    bonus: int

    def __init__(self, winner: str | None, count: int, bonus: int = 0) -> None:
        self.winner = winner
        self.count = count
        self.bonus = bonus

    def to_json(self) -> dict[str, object]:
        return {"winner": self.winner, "effects": self.count, "bonus_effects": self.bonus}


_NOBODY = Differential(None, 0)


def differential(
    table: DifferentialTable,
    attacker: Level,
    defender: Level,
    surprise_bonus: int = 0,
) -> Differential:
    """Effects won in an exchange. ``surprise_bonus`` effects go to a successful attacker
    striking a surprised target (counted on top of the table)."""
    n = table.grid[attacker][defender]
    bonus = surprise_bonus if n >= 0 and attacker.succeeded else 0
    if n > 0 or bonus:
        return Differential("attacker", n + bonus, bonus)
    if n < 0:
        return Differential("defender", -n, 0)
    return _NOBODY
