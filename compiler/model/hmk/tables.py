"""The three d100 tables of the text: critical combat success, melee and missile fumbles."""

from __future__ import annotations

from pydantic import Field

from arbiter.compiler.model.common import DieTable, RuleModel, TableRow
from arbiter.compiler.model.hmk.effects import AnyEffect, Attribute


class AttributeLoss(RuleModel):
    """A permanent loss to one attribute (the critical table's penalty column)."""

    attribute: Attribute
    amount: int = Field(le=-1)


class CriticalRow(TableRow):
    """A row of the critical-success table: name, extra injury, permanent penalty, effects.

    ``text`` is the whole row on one line (for roll tables); ``effects_text`` the printed
    Effects column (for the journal). The engine reads only the structured fields.
    """

    name: str
    effects_text: str
    extra_injury_percent: int = Field(ge=0)
    penalty: AttributeLoss | None = None
    effects: list[AnyEffect] = Field(default_factory=list)


class CriticalTable(DieTable):
    rows: list[CriticalRow]  # type: ignore[assignment]  # pydantic validates rows as this row type; never reassigned


class FumbleRow(TableRow):
    """A row of a fumble table: the printed text and the effects the engine applies."""

    effects: list[AnyEffect] = Field(min_length=1)


class FumbleTable(DieTable):
    rows: list[FumbleRow]  # type: ignore[assignment]  # pydantic validates rows as this row type; never reassigned
