"""Lower a ruleset's reference tables to one JournalEntry with one text page per table.

The entry opens with an "About" page (source, version, content hash, files read) and closes
with a page listing every value the rule data marks as assumed, so a GM sees at a glance what
is the text's and what is ours. Every page is escaped HTML rendered from ``templates/documents``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from arbiter.compiler.errors import RuleError, RuleProblem
from arbiter.compiler.foundry.ids import document_id
from arbiter.compiler.foundry.layout import MODULE_ID, REFERENCE, SORT_STEP, stats
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.model.common import Assumable, DieTable, ReferenceTable, RulesetBase
from arbiter.compiler.model.loader import Ruleset

HTML_FORMAT = 1
"""``CONST.JOURNAL_ENTRY_PAGE_FORMATS.HTML``."""


def journal_id(ruleset_id: str) -> str:
    """The document id of a ruleset's reference journal."""
    return document_id("JournalEntry", ruleset_id, "reference")


def page_id(ruleset_id: str, page: str) -> str:
    """The document id of one page (a reference table id, or ``about`` / ``assumed``)."""
    return document_id("JournalEntryPage", ruleset_id, page)


def lower_journal(ruleset: Ruleset, folder: str, renderer: Renderer) -> dict[str, Any]:
    """The ruleset's reference JournalEntry (pages embedded)."""
    meta = ruleset.model.ruleset
    jid = journal_id(ruleset.id)
    pages: list[tuple[str, str, str]] = [
        (
            "about",
            renderer.label("ARBITER.Journal.About"),
            renderer.render_document("about-page.html", ruleset=ruleset, meta=meta),
        )
    ]
    for key, table in reading_tables(ruleset.model):
        pages.append(
            (key, table.name, renderer.render_document("reference-page.html", table=table))
        )
    pages.append(
        (
            "assumed",
            renderer.label("ARBITER.Journal.Assumed"),
            renderer.render_document(
                "assumed-page.html", assumptions=list(assumptions(ruleset.model))
            ),
        )
    )
    _check_unique_pages(ruleset.id, [key for key, _, _ in pages])
    return {
        "_id": jid,
        "_key": f"!{REFERENCE.collection}!{jid}",
        "name": renderer.label("ARBITER.Journal.Name", title=meta.title),
        "pages": [
            _page(ruleset.id, jid, key, name, content, (i + 1) * SORT_STEP)
            for i, (key, name, content) in enumerate(pages)
        ],
        "folder": folder,
        "sort": SORT_STEP,
        "ownership": {"default": 0},
        "flags": {MODULE_ID: {"ruleset": ruleset.id}},
        "_stats": stats(),
    }


def _page(
    ruleset_id: str, jid: str, key: str, name: str, content: str, sort: int
) -> dict[str, Any]:
    pid = page_id(ruleset_id, key)
    return {
        "_id": pid,
        "_key": f"!{REFERENCE.collection}.pages!{jid}.{pid}",
        "name": name,
        "type": "text",
        "title": {"show": True, "level": 1},
        "text": {"content": content, "format": HTML_FORMAT},
        "sort": sort,
        "ownership": {"default": -1},
        "flags": {MODULE_ID: {"page": key}},
        "_stats": stats(),
    }


def reading_tables(model: RulesetBase) -> list[tuple[str, ReferenceTable]]:
    """The reference tables the journal shows, keyed by page name, in order.

    Collections of roll tables are left out: they are the pack's RollTables already, and a
    generic rendering would cram each whole table into one cell.
    """
    roll_collections = {
        name
        for name, value in model
        if isinstance(value, list) and value and all(isinstance(v, DieTable) for v in value)
    }
    return [(f"table-{t.id}", t) for t in model.reference_tables() if t.id not in roll_collections]


def _check_unique_pages(ruleset_id: str, keys: list[str]) -> None:
    # The "table-" prefix keeps reference tables apart from "about" and "assumed"; two
    # reference tables with one id would give two pages one id.
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise RuleError(
            [
                RuleProblem(
                    f"{ruleset_id}/",
                    f"reference table '{key.removeprefix('table-')}'",
                    "id",
                    "two reference tables share this id; their journal pages would too",
                )
                for key in duplicates
            ]
        )


def assumptions(model: BaseModel) -> Iterator[tuple[str, str]]:
    """Every value marked ``assumed = true`` anywhere in ``model``: (where, note), in order."""
    yield from _assumptions(model, ())


def _assumptions(value: Any, where: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    if isinstance(value, Assumable) and value.assumed:
        yield " › ".join(where) or "ruleset", value.note
    if isinstance(value, BaseModel):
        for name, child in value:
            yield from _assumptions(child, (*where, name))
    elif isinstance(value, (list, tuple)):
        head, owner = where[:-1], where[-1] if where else ""
        for i, child in enumerate(value):
            if isinstance(child, BaseModel):
                label = getattr(child, "id", None) or f"#{i + 1}"
                yield from _assumptions(child, (*head, f"{owner} {label}".strip()))
