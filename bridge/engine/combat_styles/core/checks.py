"""d100 checks: difficulty grades, success levels, opposed rolls, augments and luck re-rolls.

Every number that is rule data (grade multipliers, the critical divisor, the automatic success
and failure bands, the fumble rolls) arrives in a :class:`CheckRules` built from the rule files;
this module only knows the procedure. All fractions round up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction

from arbiter.bridge.engine.combat_styles.core.memo import Memo
from arbiter.bridge.engine.dice import Dice


class Level(IntEnum):
    """Success levels, ordered so that a larger value is a better result."""

    FUMBLE = 0
    FAILURE = 1
    SUCCESS = 2
    CRITICAL = 3

    @property
    def label(self) -> str:
        # A tuple indexed by value: an enum member is hashed in Python, an index is read in C.
        return _LABEL_OF[self]

    @property
    def succeeded(self) -> bool:
        return self >= 2  # Level.SUCCESS, without the (slow) enum class attribute lookup

    @classmethod
    def named(cls, name: str) -> Level:
        found = _BY_LABEL.get(name)  # the usual spelling, without an enum lookup
        if found is not None:
            return found
        try:
            return cls[name.upper()]
        except KeyError:
            raise ValueError(f"unknown success level {name!r}") from None


_LABELS = {level: level.name.lower() for level in Level}
_BY_LABEL = {label: level for level, label in _LABELS.items()}
_LABEL_OF = tuple(_LABELS[level] for level in sorted(Level))
# Module constants for the hot paths: reading ``Level.X`` goes through the enum metaclass.
_FUMBLE, _FAILURE, _SUCCESS, _CRITICAL = sorted(Level)


@dataclass(frozen=True, slots=True)
class Grade:
    """A difficulty grade: skill × numerator / denominator, rounded up.

    ``rank`` orders grades from easiest (lowest) to most severe; ``automatic`` grades need no
    roll and ``impossible`` ones allow no attempt.
    """

    id: str
    name: str
    numerator: int
    denominator: int
    rank: int
    automatic: bool = False
    impossible: bool = False

    def apply(self, skill: int) -> int:
        """The skill at this grade, fractions rounded up."""
        return ceil_div(skill * self.numerator, self.denominator)


@dataclass(frozen=True, slots=True)
class CheckRules:
    """The numbers that decide a d100 check, read from the rule data."""

    grades: tuple[Grade, ...]
    """All grades, ordered by rank (easiest first); the ladder that grade steps move along."""
    standard: str
    """Id of the grade that leaves a skill unchanged."""
    critical_divisor: int
    """Critical when roll ≤ ceil(skill / critical_divisor)."""
    auto_success_max: int
    """Rolls 1..auto_success_max always succeed."""
    auto_failure_min: int
    """Rolls auto_failure_min..100 always fail."""
    fumble_rolls: tuple[int, ...]
    """Rolls that fumble while the skill is at most 100."""
    fumble_rolls_over_100: tuple[int, ...]
    """Rolls that fumble when the skill exceeds 100."""
    augment_share: Fraction
    """An augment adds this share of the augmenting skill (rounded up)."""
    by_id: Mapping[str, Grade] = field(init=False, repr=False, compare=False)
    """Grades by id (the first of the ladder wins, as a search along it would)."""
    targets: Memo[tuple[int, int, int, int], tuple[Grade | None, Target]] = field(
        init=False, repr=False, compare=False
    )
    """Memo of :func:`target` (a pure function of these rules and its arguments), keyed by the
    grade's identity; each entry holds its grade, so no other object can take that identity."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {g.id: g for g in reversed(self.grades)})
        object.__setattr__(self, "targets", Memo())

    def grade(self, grade_id: str) -> Grade:
        found = self.by_id.get(grade_id)
        if found is not None:
            return found
        known = ", ".join(g.id for g in self.grades)
        raise ValueError(f"unknown difficulty grade {grade_id!r} (known: {known})")

    def most_severe(self, grade_ids: list[str] | tuple[str, ...]) -> Grade:
        """Grades do not stack: the most severe of those given applies (Standard if none)."""
        if not grade_ids:
            return self.grade(self.standard)
        return max((self.grade(g) for g in grade_ids), key=lambda g: g.rank)

    def shifted(self, grade: Grade, steps: int) -> Grade:
        """The grade ``steps`` rows harder (negative: easier), clamped to the ladder."""
        if not steps:
            return grade
        index = self.grades.index(grade) + steps
        return self.grades[max(0, min(len(self.grades) - 1, index))]


def ceil_div(a: int, b: int) -> int:
    """a / b rounded up (b > 0), exact for negative a as well."""
    return -((-a) // b)


# Target and CheckResult are dataclasses compiled by mypyc into native classes, read directly
# (a named tuple's fields are read through descriptors). mypyc compiles a dataclass's own
# __init__ but not the one dataclasses generates: the constructors are written out.
@dataclass(slots=True, init=False, unsafe_hash=True)
class Target:
    """What a d100 roll is compared against: the skill after grade and augment.

    ``critical_skill`` is the value the critical range is computed from (an augment does not
    widen it), ``automatic`` means the check needs no roll, ``impossible`` that it cannot succeed.
    """

    skill: int
    critical_skill: int
    automatic: bool
    impossible: bool

    def __init__(
        self, skill: int, critical_skill: int, automatic: bool = False, impossible: bool = False
    ) -> None:
        self.skill = skill
        self.critical_skill = critical_skill
        self.automatic = automatic
        self.impossible = impossible


def target(
    rules: CheckRules,
    skill: int,
    grade: Grade | None = None,
    augment: int = 0,
    penalty: int = 0,
) -> Target:
    """The target of a check: ``skill`` − ``penalty`` (skills over 100 in a contest), at
    ``grade``, plus the augment bonus from an augmenting skill of ``augment``."""
    key = (skill, id(grade), augment, penalty)
    found = rules.targets.found.get(key)  # Memo.get without its call: several times a request
    if found is None:
        found = rules.targets.put(key, (grade, _target(rules, skill, grade, augment, penalty)))
    return found[1]


def _target(
    rules: CheckRules, skill: int, grade: Grade | None, augment: int, penalty: int
) -> Target:
    base = max(0, skill - penalty)
    graded = grade.apply(base) if grade is not None else base
    bonus = 0
    if augment > 0:
        share = augment * rules.augment_share
        bonus = ceil_div(share.numerator, share.denominator)
    return Target(
        skill=graded + bonus,
        critical_skill=graded,
        automatic=bool(grade and grade.automatic),
        impossible=bool(grade and grade.impossible),
    )


def level_of(rules: CheckRules, roll: int, tgt: Target) -> Level:
    """The success level of a d100 ``roll`` (1..100, where 100 is "00") against ``tgt``."""
    if tgt.automatic:
        return _SUCCESS
    fumbles = rules.fumble_rolls_over_100 if tgt.skill > 100 else rules.fumble_rolls
    if roll in fumbles:
        return _FUMBLE
    if tgt.impossible or roll >= rules.auto_failure_min:
        return _FAILURE
    if tgt.critical_skill > 0 and roll <= ceil_div(tgt.critical_skill, rules.critical_divisor):
        return _CRITICAL
    if roll <= rules.auto_success_max or roll <= tgt.skill:
        return _SUCCESS
    return _FAILURE


@dataclass(slots=True, init=False, unsafe_hash=True)
class CheckResult:
    """A resolved check: the roll that counts, its level, and any roll a luck point replaced
    (never changed once made)."""

    target: Target
    roll: int
    level: Level
    rerolled_from: int | None

    def __init__(
        self, target: Target, roll: int, level: Level, rerolled_from: int | None = None
    ) -> None:
        self.target = target
        self.roll = roll
        self.level = level
        self.rerolled_from = rerolled_from

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "target": self.target.skill,
            "roll": self.roll,
            "level": self.level.label,
        }
        if self.target.critical_skill != self.target.skill:
            out["critical_target"] = self.target.critical_skill
        if self.target.automatic:
            out["automatic"] = True
        if self.rerolled_from is not None:
            out["luck_rerolled_from"] = self.rerolled_from
        return out


def roll_check(
    rules: CheckRules,
    dice: Dice,
    tgt: Target,
    label: str = "1d100",
    luck_below: Level | None = None,
) -> CheckResult:
    """Roll a check. With ``luck_below``, a result worse than that level is re-rolled once
    (a luck point spent on Cheat Fate) and the new roll stands, whatever it is.

    An automatic check rolls no die."""
    if tgt.automatic:
        return CheckResult(tgt, 0, _SUCCESS)
    roll = dice.die(100, label)
    level = level_of(rules, roll, tgt)
    if luck_below is not None and level < luck_below:
        second = dice.die(100, label + " (luck)")
        return CheckResult(tgt, second, level_of(rules, second, tgt), rerolled_from=roll)
    return CheckResult(tgt, roll, level)


def contest_penalty(skills: list[int] | tuple[int, ...]) -> int:
    """Skills over 100 in a contest: every participant loses (highest − 100), if positive."""
    highest = 0
    for skill in skills:  # a loop: max() with a default is a generic call when compiled
        if skill > highest:
            highest = skill
    return max(0, highest - 100)


def opposed_winner(a: CheckResult, b: CheckResult) -> int:
    """Who wins an opposed roll: 1 for ``a``, -1 for ``b``, 0 for nobody.

    The better level wins; on equal successful levels the higher roll wins; when both fail
    (or the rolls tie) nobody wins.
    """
    if a.level != b.level:
        if not a.level.succeeded and not b.level.succeeded:
            return 0
        return 1 if a.level > b.level else -1
    if not a.level.succeeded or a.roll == b.roll:
        return 0
    return 1 if a.roll > b.roll else -1
