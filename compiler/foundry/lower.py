"""Lower validated rulesets to the documents of the module's packs.

``lower(rulesets, renderer)`` gives, per pack, the full documents (embedded documents inline,
every one carrying its ``_key``) — the shape of the official CLI's JSON sources — and
:func:`pack_entries` flattens them to the key/value pairs a LevelDB pack stores. Every id is
derived from stable names (:mod:`arbiter.compiler.foundry.ids`), so the same sources give the same
documents and an edit touches only the documents it concerns.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from arbiter.compiler.foundry.ids import document_id
from arbiter.compiler.foundry.journals import lower_journal
from arbiter.compiler.foundry.layout import (
    EMBEDDED,
    MACROS,
    PACKS,
    REFERENCE,
    SORT_STEP,
    TABLES,
    PackSpec,
    stats,
)
from arbiter.compiler.foundry.macros import lower_macros, lower_module_macros
from arbiter.compiler.foundry.render import Renderer
from arbiter.compiler.foundry.tables import lower_tables
from arbiter.compiler.model.loader import Ruleset

Document = dict[str, Any]


def folder_id(pack: PackSpec, ruleset_id: str) -> str:
    """The id of a ruleset's folder inside ``pack``."""
    return document_id("Folder", pack.name, ruleset_id)


def lower(rulesets: Mapping[str, Ruleset], renderer: Renderer) -> dict[str, list[Document]]:
    """Pack name → its documents (folders first, then per ruleset in id order)."""
    out: dict[str, list[Document]] = {pack.name: [] for pack in PACKS}
    out[MACROS.name].extend(lower_module_macros(renderer))
    for i, rid in enumerate(sorted(rulesets)):
        ruleset = rulesets[rid]
        title = ruleset.model.ruleset.title
        sort = (i + 1) * SORT_STEP
        folders = {pack.name: _folder(pack, rid, title, sort) for pack in PACKS}
        for pack in PACKS:
            out[pack.name].append(folders[pack.name])
        out[TABLES.name].extend(lower_tables(ruleset, folders[TABLES.name]["_id"], renderer))
        out[REFERENCE.name].append(lower_journal(ruleset, folders[REFERENCE.name]["_id"], renderer))
        out[MACROS.name].extend(lower_macros(ruleset, folders[MACROS.name]["_id"], renderer))
    return out


def _folder(pack: PackSpec, ruleset_id: str, title: str, sort: int) -> Document:
    fid = folder_id(pack, ruleset_id)
    return {
        "_id": fid,
        "_key": f"!folders!{fid}",
        "name": title,
        "type": pack.type,
        "description": "",
        "folder": None,
        "sorting": "a",
        "sort": sort,
        "color": None,
        "flags": {},
        "_stats": stats(),
    }


def pack_entries(documents: list[Document]) -> Iterator[tuple[str, Document]]:
    """The LevelDB key/value pairs of ``documents``, as the official CLI's ``pack`` stores them.

    Each document and each embedded document is stored under its own ``_key`` (removed from
    the value); in a parent, every embedded collection becomes the list of its children's ids.
    """
    for doc in documents:
        yield from _entries(doc, doc["_key"].split("!")[1])


def _entries(doc: Document, collection: str) -> Iterator[tuple[str, Document]]:
    value = copy.deepcopy(doc)
    key = value.pop("_key")
    children: list[tuple[Document, str]] = []
    for field, child_collection in EMBEDDED.get(collection, {}).items():
        embedded = value.get(field) or []
        children.extend((child, child_collection) for child in embedded)
        value[field] = [child["_id"] for child in embedded]
    yield key, value
    for child, child_collection in children:
        yield from _entries(child, child_collection)
