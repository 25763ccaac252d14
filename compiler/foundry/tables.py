"""Lower a ruleset's rollable tables to RollTable documents.

Results use the V12 shape (``type: "text"``, ``text``, ``range``, ``weight``, ``drawn``, ``img``),
which V13 and V14 migrate forward on load; V12 would drop the V13 shape's ``description``.
"""

from __future__ import annotations

from typing import Any

from arbiter.compiler.errors import RuleError, RuleProblem
from arbiter.compiler.foundry.ids import document_id
from arbiter.compiler.foundry.layout import MODULE_ID, SORT_STEP, TABLES, stats
from arbiter.compiler.foundry.render import Renderer, rule_text
from arbiter.compiler.model.common import DieTable, RulesetBase, TableRow, die_span
from arbiter.compiler.model.loader import Ruleset

TABLE_IMG = "icons/svg/d20-grey.svg"
RESULT_IMG = "icons/svg/d20-black.svg"
_ROW_BASICS = ("range", "text", "assumed", "note")


def table_id(ruleset_id: str, table_id_: str) -> str:
    """The document id of a ruleset's roll table."""
    return document_id("RollTable", ruleset_id, table_id_)


def row_key(row: TableRow) -> str:
    """A row's stable name: its range. Editing the text keeps the id; re-ranging changes it."""
    lo, hi = row.range
    return f"{lo}-{hi}"


def formula(die: str) -> str:
    """Foundry's roll formula for a table die: ``d100`` → ``1d100``."""
    count, top = die_span(die)
    return f"{count}d{top // count}"


def rollable_tables(model: RulesetBase) -> list[DieTable]:
    """The ruleset's roll tables, each once.

    ``roll_tables()`` walks the model, and a model may reach one table twice (a cached index
    is iterated like a field): the same object is kept once.
    """
    seen: set[int] = set()
    out = []
    for table in model.roll_tables():
        if id(table) not in seen:
            seen.add(id(table))
            out.append(table)
    return out


def lower_tables(ruleset: Ruleset, folder: str, renderer: Renderer) -> list[dict[str, Any]]:
    """One RollTable document (results embedded) per rollable table, in source order.

    Raises RuleError when two rollable tables of the ruleset share an id: their documents
    would share an id too.
    """
    tables = rollable_tables(ruleset.model)
    seen: set[str] = set()
    for table in tables:
        if table.id in seen:
            raise RuleError(
                [
                    RuleProblem(
                        f"{ruleset.id}/",
                        f"table '{table.id}'",
                        "id",
                        "two rollable tables share this id; roll table ids must be unique "
                        "across the whole ruleset",
                    )
                ]
            )
        seen.add(table.id)
    return [
        _table(ruleset.id, table, folder, (i + 1) * SORT_STEP, renderer)
        for i, table in enumerate(tables)
    ]


def _table(
    ruleset_id: str, table: DieTable, folder: str, sort: int, renderer: Renderer
) -> dict[str, Any]:
    tid = table_id(ruleset_id, table.id)
    return {
        "_id": tid,
        "_key": f"!{TABLES.collection}!{tid}",
        "name": table.name,
        "img": TABLE_IMG,
        "description": renderer.render_document("table-description.html", table=table),
        "results": [_result(ruleset_id, table, tid, row, renderer) for row in table.rows],
        "formula": formula(table.die),
        "replacement": True,
        "displayRoll": True,
        "folder": folder,
        "sort": sort,
        "ownership": {"default": 0},
        "flags": {MODULE_ID: {"ruleset": ruleset_id, "table": table.id}},
        "_stats": stats(),
    }


def _result(
    ruleset_id: str, table: DieTable, tid: str, row: TableRow, renderer: Renderer
) -> dict[str, Any]:
    rid = document_id("TableResult", ruleset_id, table.id, row_key(row))
    lo, hi = row.range
    return {
        "_id": rid,
        "_key": f"!{TABLES.collection}.results!{tid}.{rid}",
        "type": "text",
        "text": result_text(row, renderer),
        "img": RESULT_IMG,
        "range": [lo, hi],
        "weight": hi - lo + 1,
        "drawn": False,
        "flags": {},
    }


def result_text(row: TableRow, renderer: Renderer) -> str:
    """A row's result as inert HTML: its text, then the further plain fields of a richer row.

    Only fields a reader needs are added: numbers, flags and short texts the row's text does
    not already say. Structured data (effects as objects, for the engine) stays out; the
    row's text describes it, and ``data/rules.json`` carries it.
    """
    parts = [str(rule_text(row.text))]
    for name, info in type(row).model_fields.items():
        value = getattr(row, name)
        if name in _ROW_BASICS or not _shown(value, row.text):
            continue
        label = info.title or name.replace("_", " ")
        parts.append(f"<strong>{rule_text(label)}</strong>: {rule_text(_plain(value, renderer))}")
    if getattr(row, "assumed", False):
        assumed = renderer.label("ARBITER.Journal.AssumedLabel")
        parts.append(f"<em>{rule_text(assumed)}</em>: {rule_text(getattr(row, 'note', ''))}")
    return "<br>".join(parts)


def _shown(value: object, text: str) -> bool:
    if value is None or value in ("", [], ()):
        return False
    if isinstance(value, str):
        # An id such as "right_leg" repeats "Right Leg": say it once.
        return value.replace("_", " ").lower() not in text.lower()
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, (str, int, float)) for v in value)
    return isinstance(value, (int, float))


def _plain(value: object, renderer: Renderer) -> str:
    if isinstance(value, bool):
        return renderer.label("ARBITER.Yes" if value else "ARBITER.No")
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v, renderer) for v in value)
    return str(value)
