"""Drawing from any rollable table of any ruleset: the ``draw`` request every engine answers.

A GM's "draw from a table" macro names a table id; the server rolls the table's die and returns
the row it lands on. Which tables exist is the rule data's business (``roll_tables()``), so one
implementation serves every ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from arbiter.bridge.engine.contract import JSON, Engine, EngineError, Resolution
from arbiter.bridge.engine.dice import Dice
from arbiter.compiler.model.common import DieTable, RulesetBase


class DrawBody(BaseModel):
    """Draw once from the table ``table`` (its id in the rule data)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: Annotated[str, Field(min_length=1, max_length=64)]


def find_table(rules: RulesetBase, table_id: str) -> DieTable:
    """The rollable table ``table_id``; EngineError naming the known ids when there is none."""
    tables = rules.roll_tables()
    for table in tables:
        if table.id == table_id:
            return table
    known = ", ".join(sorted({t.id for t in tables}))
    raise EngineError(f"no rollable table {table_id!r} in {rules.ruleset.id} (known: {known})")


def draw(rules: RulesetBase, body: DrawBody, dice: Dice) -> Resolution:
    """Roll the table's die and return the row it lands on, with the row's structured data."""
    table = find_table(rules, body.table)
    roll = dice.roll(table.die).total
    for row in table.rows:
        low, high = row.range
        if low <= roll <= high:
            data = row.model_dump(mode="json", exclude={"range", "text"})
            result: JSON = {
                "kind": "draw",
                "table": table.id,
                "name": table.name,
                "die": table.die,
                "roll": roll,
                "range": [low, high],
                "text": row.text,
                "row": data,
            }
            return Resolution(result=result)
    # The loader's coverage check makes this unreachable for validated rules.
    raise EngineError(f"table {table.id!r} has no row for {roll} on {table.die}")


@dataclass(frozen=True)
class WithTableDraws:
    """An engine that also answers ``draw`` (unless it defines its own)."""

    inner: Engine
    requests: Mapping[str, type[BaseModel]] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "requests", {"draw": DrawBody, **self.inner.requests})

    @property
    def ruleset_id(self) -> str:
        return self.inner.ruleset_id

    def resolve(
        self, rules: RulesetBase, kind: str, body: BaseModel, state: JSON | None, dice: Dice
    ) -> Resolution:
        if kind == "draw" and "draw" not in self.inner.requests:
            assert isinstance(body, DrawBody)
            return draw(rules, body, dice)
        return self.inner.resolve(rules, kind, body, state, dice)
