"""Building blocks shared by every ruleset's rule-data model.

Conventions every ruleset follows:

* A ruleset is a folder ``compiler/rules/<ruleset-id>/`` of TOML files, one concern per file.
  ``ruleset.toml`` holds the ``[ruleset]`` table (id, title, version, source). Every other file
  contributes top-level keys; by convention the key ``weapons`` lives in ``weapons.toml``.
* Collections are arrays of tables whose entries have a unique ``id`` (lower-case, digits,
  ``-`` and ``_``). House-rule overlays replace or add entries by that id.
* Rollable tables are :class:`DieTable` (or subclasses with richer rows); the loader checks
  that their rows cover the die exactly.
* A value that is our assumption rather than the rule text carries ``assumed = true`` and a
  one-line ``note`` (see :class:`Assumable`).
* Models are frozen and forbid unknown fields, and validation is strict: a string where a
  number belongs is an error, not a silent conversion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

Id = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", max_length=64)]

_DIE_RE = re.compile(r"^(\d*)d(\d+)$")


class RuleModel(BaseModel):
    """Base of every rule-data model: frozen, strict, unknown fields rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Assumable(RuleModel):
    """Mixin for data that may be our assumption; an assumed value must say why."""

    assumed: bool = False
    note: str = ""

    @model_validator(mode="after")
    def _assumed_needs_note(self) -> Assumable:
        if self.assumed and not self.note.strip():
            raise ValueError("an entry marked assumed = true needs a one-line note saying why")
        return self


class Entry(Assumable):
    """An entry of a collection, addressed by its id."""

    id: Id


class TableRow(RuleModel):
    """One row of a rollable table: the inclusive die range and the result text."""

    range: tuple[int, int]
    text: str

    @model_validator(mode="after")
    def _range_ordered(self) -> TableRow:
        lo, hi = self.range
        if lo > hi:
            raise ValueError(f"range [{lo}, {hi}] is reversed: the low end must come first")
        return self


CEILING = 10**9
"""The greatest ``max`` a stat-block bound may have: the most the engines' arithmetic is meant
for (not a rule: it keeps a block's numbers, and what is computed from them, plain machine-sized
integers)."""


class Bound(RuleModel):
    """Inclusive bounds of a number a stat block gives (``{ min = 0, max = 500 }``): the door
    refuses a block whose value lies outside them, at that value's field. Both ends are
    required, ``max`` at most :data:`CEILING`: a bound without a ceiling would let a block carry
    a number of thousands of digits into every computation made of it."""

    min: int
    max: int | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Bound:
        if self.max is None:
            raise ValueError(
                f"no max: every bound needs one, at most {CEILING} "
                f"(e.g. {{ min = {self.min}, max = {max(self.min, 100)} }})"
            )
        if self.max > CEILING:
            raise ValueError(
                f"max {self.max} is over {CEILING}, the most the engine's arithmetic is meant for"
            )
        if self.min > self.max:
            raise ValueError(f"min {self.min} is over max {self.max}: no value would do")
        return self


class StatBlockLimits(RuleModel):
    """Base of a ruleset's ``stat_block_limits`` table: one :class:`Bound` per stat-block field
    it holds (a mapping's or a nested model's bound holds each of its values), read by the door
    under the served rules. ``FLOORS``: the least ``min`` of each bound the engine's arithmetic
    can use (not a rule: a negative penalty would be a bonus)."""

    FLOORS: ClassVar[dict[str, int]] = {}

    @field_validator("*")
    @classmethod
    def _floor(cls, bound: Bound, info: ValidationInfo) -> Bound:
        floor = cls.FLOORS.get(info.field_name or "")
        if isinstance(bound, Bound) and floor is not None and bound.min < floor:
            raise ValueError(f"min {bound.min} is under {floor}, the least the engine can use")
        return bound


class DieTable(Entry):
    """A table rolled on a die (``1d100``, ``1d20``, ``2d6``…); rows must cover it exactly.

    Subclasses narrow ``rows`` to a richer row type (``rows: list[CriticalRow]``).
    """

    name: str
    die: str
    description: str = ""
    rows: list[TableRow]

    @model_validator(mode="after")
    def _die_known(self) -> DieTable:
        die_span(self.die)
        return self


def die_span(die: str) -> tuple[int, int]:
    """The lowest and highest total of a die expression such as ``1d100`` or ``2d6``."""
    m = _DIE_RE.match(die.strip())
    if not m:
        raise ValueError(f"die {die!r} is not of the form NdM, e.g. '1d100' or '1d20'")
    count = int(m.group(1) or 1)
    faces = int(m.group(2))
    if count < 1 or faces < 2:
        raise ValueError(f"die {die!r} needs at least one die of at least two faces")
    return count, count * faces


class ReferenceTable(BaseModel):
    """A table rendered for reading (a journal page): column headings and rows of text."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    description: str = ""
    notes: tuple[str, ...] = ()


Path = tuple[str | int, ...]


class Problem(BaseModel):
    """A cross-check failure at ``path`` (keys and list indexes into the rule data)."""

    model_config = ConfigDict(frozen=True)

    path: Path
    message: str


class RulesetMeta(RuleModel):
    """The ``[ruleset]`` table of ``ruleset.toml``."""

    id: Id
    title: str
    version: str = Field(pattern=r"^\d+(\.\d+)*$")
    source: str = ""
    description: str = ""


class ReadyCombatant(Entry):
    """A combatant to start from (``combatants.toml``): the stat-block editor's "start from"
    list. ``stat_block`` is the JSON a request carries for him (the server's stat-block model
    validates its shape: tests/compiler/model/test_combatants.py checks every shipped one);
    the loader checks that its id is the entry's and that the gear it names is in the rules.
    ``kind``: ``named`` (a fighter of the docs' examples) or ``foe`` (a typical opponent)."""

    name: str = Field(min_length=1, max_length=100)
    kind: Literal["named", "foe"]
    source: str = ""
    """Where he comes from (a docs example, a page of the rule text)."""
    stat_block: dict[str, Any]


class RulesetBase(RuleModel):
    """A whole validated ruleset. Each ruleset's model subclasses this.

    The loader calls :meth:`cross_check` after field validation; subclasses extend it for
    references (``yield from super().cross_check()`` first).
    """

    ruleset: RulesetMeta
    combatants: list[ReadyCombatant] = Field(default_factory=list)

    ruleset_id: ClassVar[str] = ""
    combatant_gear: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Stat-block field → the collections its ids come from (a string, a list of strings or
    a mapping's values), checked for every ready combatant."""

    def cross_check(self) -> Iterator[Problem]:
        """Problems that field validation cannot see: coverage, unique ids, references."""
        yield from _generic_checks(self, ())
        yield from self._combatant_checks()

    def _combatant_checks(self) -> Iterator[Problem]:
        for i, entry in enumerate(self.combatants):
            block = entry.stat_block
            if block.get("id") != entry.id:
                yield Problem(
                    path=("combatants", i, "stat_block", "id"),
                    message=f"the stat block's id must be the entry's ({entry.id!r})",
                )
            for field, collections in self.combatant_gear.items():
                value = block.get(field)
                named = (
                    [value] if isinstance(value, str)
                    else list(value.values()) if isinstance(value, dict)
                    else list(value) if isinstance(value, list)
                    else []
                )  # fmt: skip
                known = {e.id for c in collections for e in getattr(self, c)}
                for name in named:
                    if name is not None and name not in known:
                        yield Problem(
                            path=("combatants", i, "stat_block", field),
                            message=f"unknown {'/'.join(collections)} id {name!r}",
                        )

    def roll_tables(self) -> list[DieTable]:
        """Every rollable table of the ruleset, in source order (default: all DieTables found)."""
        return [t for _, t in walk(self, DieTable)]

    def reference_tables(self) -> list[ReferenceTable]:
        """Tables for reading in journals. Default: every collection rendered generically."""
        tables: list[ReferenceTable] = []
        for name, value in self:
            if isinstance(value, list) and value and isinstance(value[0], RuleModel):
                tables.append(collection_reference(name, value))
        return tables

    def entries(self, key: str) -> dict[str, Entry]:
        """The entries of collection ``key`` by id."""
        return {e.id: e for e in getattr(self, key)}


def collection_reference(name: str, items: list[Any], title: str | None = None) -> ReferenceTable:
    """A generic ReferenceTable of a list of models: one column per field."""
    fields = [f for f in type(items[0]).model_fields if f not in ("assumed", "note")]
    rows = []
    notes = []
    for item in items:
        rows.append(tuple(_cell(getattr(item, f)) for f in fields))
        if getattr(item, "assumed", False):
            label = getattr(item, "id", None) or getattr(item, "name", "")
            notes.append(f"{label}: assumed — {item.note}")
    return ReferenceTable(
        id=name,
        name=title or name.replace("_", " ").title(),
        columns=tuple(f.replace("_", " ") for f in fields),
        rows=tuple(rows),
        notes=tuple(notes),
    )


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, BaseModel):
        return "; ".join(f"{k}: {_cell(v)}" for k, v in value if v not in (None, "", [], ()))
    if value is None:
        return ""
    return str(value)


def walk(model: Any, kind: type, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every instance of ``kind`` inside ``model`` (depth first) with its path."""
    if isinstance(model, kind):
        yield path, model
        return
    if isinstance(model, BaseModel):
        for name, value in model:
            yield from walk(value, kind, (*path, name))
    elif isinstance(model, (list, tuple)):
        for i, value in enumerate(model):
            yield from walk(value, kind, (*path, i))
    elif isinstance(model, dict):
        for k, value in model.items():
            yield from walk(value, kind, (*path, k))


def _generic_checks(model: Any, path: Path) -> Iterator[Problem]:
    for table_path, table in walk(model, DieTable, path):
        yield from table_coverage(table, table_path)
    yield from _unique_ids(model, path)


def _unique_ids(model: Any, path: Path) -> Iterator[Problem]:
    if isinstance(model, BaseModel):
        for name, value in model:
            yield from _unique_ids(value, (*path, name))
    elif isinstance(model, (list, tuple)):
        seen: dict[str, int] = {}
        for i, value in enumerate(model):
            ident = getattr(value, "id", None) if isinstance(value, Entry) else None
            if ident is not None:
                if ident in seen:
                    yield Problem(
                        path=(*path, i, "id"),
                        message=f"duplicate id {ident!r} (first used by entry #{seen[ident] + 1})",
                    )
                else:
                    seen[ident] = i
            yield from _unique_ids(value, (*path, i))


def table_coverage(table: DieTable, path: Path) -> Iterator[Problem]:
    """Rows must cover every total of the table's die exactly once, in ascending order."""
    lo, hi = die_span(table.die)
    expected = lo
    for i, row in enumerate(table.rows):
        start, end = row.range
        where = (*path, "rows", i, "range")
        if start < lo or end > hi:
            yield Problem(
                path=where, message=f"range {start}–{end} is outside {table.die} ({lo}–{hi})"
            )
            return
        if start > expected:
            yield Problem(
                path=where,
                message=f"gap: no row covers {expected}–{start - 1} on {table.die}",
            )
            return
        if start < expected:
            yield Problem(
                path=where,
                message=f"overlap: {start}–{min(end, expected - 1)} is already covered by an earlier row",
            )
            return
        expected = end + 1
    if expected <= hi:
        yield Problem(
            path=(*path, "rows"),
            message=f"gap: no row covers {expected}–{hi} on {table.die}",
        )
