"""Foundry's document rules (shared/reference/foundry.md §4), as a validator the build runs.

``document_problems(pack_type, documents)`` checks documents in the shape the official CLI
unpacks them (embedded documents inline, each with its ``_key``) and lists every rule they
break, each problem starting with the document's key: ids, keys, required names, the V12
TableResult shape, ranges and weights, page formats, macro types and scopes, folders and
ownership levels. ``arbiter build`` refuses a module whose packs break any
(:mod:`arbiter.compiler.foundry.validate`); the tests apply it to what the official CLI unpacks too.
"""

from __future__ import annotations

import re
from typing import Any

ID = re.compile(r"^[a-zA-Z0-9]{16}$")
LEVELS = {-1, 0, 1, 2, 3}
COLLECTION = {"RollTable": "tables", "JournalEntry": "journal", "Macro": "macros"}
STATS = {
    "coreVersion",
    "systemId",
    "systemVersion",
    "createdTime",
    "modifiedTime",
    "lastModifiedBy",
    "compendiumSource",
    "duplicateSource",
    "exportSource",
}


def document_problems(pack_type: str, documents: dict[str, dict[str, Any]]) -> list[str]:
    """Every rule the unpacked ``documents`` of a ``pack_type`` pack break (empty: valid)."""
    problems: list[str] = []
    folders = {d["_id"] for d in documents.values() if d["_key"].startswith("!folders!")}
    collection = COLLECTION[pack_type]
    for key, doc in documents.items():
        where = key
        if not ID.match(str(doc.get("_id"))):
            problems.append(f"{where}: _id {doc.get('_id')!r} is not 16 alphanumerics")
        if key.startswith("!folders!"):
            problems.extend(_folder(where, doc, pack_type, folders))
            continue
        if key != f"!{collection}!{doc['_id']}":
            problems.append(f"{where}: key does not match !{collection}!<_id>")
        if not str(doc.get("name", "")).strip():
            problems.append(f"{where}: name is required")
        if doc.get("folder") is not None and doc["folder"] not in folders:
            problems.append(f"{where}: folder {doc['folder']!r} is not a folder of the pack")
        problems.extend(_ownership(where, doc.get("ownership", {})))
        problems.extend(_stats(where, doc))
        check = {"RollTable": _table, "JournalEntry": _journal, "Macro": _macro}[pack_type]
        problems.extend(check(where, doc))
    return problems


def _folder(where: str, doc: dict[str, Any], pack_type: str, folders: set[str]) -> list[str]:
    out = []
    if doc.get("type") != pack_type:
        out.append(f"{where}: folder type {doc.get('type')!r} is not the pack's {pack_type}")
    if doc.get("sorting") not in ("a", "m"):
        out.append(f"{where}: sorting must be 'a' or 'm'")
    if doc.get("folder") is not None and doc["folder"] not in folders:
        out.append(f"{where}: parent folder {doc['folder']!r} missing")
    if not str(doc.get("name", "")).strip():
        out.append(f"{where}: name is required")
    return out


def _ownership(where: str, ownership: dict[str, Any]) -> list[str]:
    return [
        f"{where}: ownership {user}: {level!r} is not a level"
        for user, level in ownership.items()
        if level not in LEVELS
    ]


def _stats(where: str, doc: dict[str, Any]) -> list[str]:
    stats = doc.get("_stats")
    if stats is None:
        return []
    unknown = set(stats) - STATS
    return [f"{where}: _stats has unknown fields {sorted(unknown)}"] if unknown else []


def _child(where: str, parent: dict[str, Any], field: str, child: dict[str, Any]) -> list[str]:
    out = []
    if not ID.match(str(child.get("_id"))):
        out.append(f"{where} {field}: _id {child.get('_id')!r} is not 16 alphanumerics")
    collection = parent["_key"].split("!")[1]
    expected = f"!{collection}.{field}!{parent['_id']}.{child.get('_id')}"
    if child.get("_key") != expected:
        out.append(f"{where} {field}: _key {child.get('_key')!r}, expected {expected!r}")
    return out


def _table(where: str, doc: dict[str, Any]) -> list[str]:
    out = []
    if not re.fullmatch(r"\d+d\d+", str(doc.get("formula", ""))):
        out.append(f"{where}: formula {doc.get('formula')!r} is not NdM")
    ids = [r.get("_id") for r in doc.get("results", [])]
    if len(set(ids)) != len(ids):
        out.append(f"{where}: two results share an id")
    if not doc.get("results"):
        out.append(f"{where}: a roll table without results")
    for result in doc.get("results", []):
        out.extend(_child(where, doc, "results", result))
        if result.get("type") != "text":
            out.append(f"{where}: result type {result.get('type')!r} is not 'text'")
        if "text" not in result or "description" in result or "name" in result:
            out.append(f"{where}: result {result.get('_id')} is not in the V12 text shape")
        lo, hi = result.get("range", [None, None])
        if not (isinstance(lo, int) and isinstance(hi, int) and lo <= hi):
            out.append(f"{where}: result range {result.get('range')!r} is not [lo, hi]")
        weight = result.get("weight")
        if not isinstance(weight, int) or weight < 1:
            out.append(f"{where}: result weight {weight!r} is not a positive integer")
        if not isinstance(result.get("drawn"), bool):
            out.append(f"{where}: result drawn must be a boolean")
    return out


def _journal(where: str, doc: dict[str, Any]) -> list[str]:
    out = []
    if not doc.get("pages"):
        out.append(f"{where}: a journal without pages")
    for page in doc.get("pages", []):
        out.extend(_child(where, doc, "pages", page))
        if page.get("type") != "text":
            out.append(f"{where}: page type {page.get('type')!r} is not 'text'")
        if not str(page.get("name", "")).strip():
            out.append(f"{where}: page name is required")
        text = page.get("text", {})
        if text.get("format") != 1 or not isinstance(text.get("content"), str):
            out.append(f"{where}: page {page.get('name')!r} is not HTML text (format 1)")
        level = page.get("title", {}).get("level")
        if level not in range(1, 7):
            out.append(f"{where}: page title level {level!r} is not 1–6")
        out.extend(_ownership(where, page.get("ownership", {})))
    return out


def _macro(where: str, doc: dict[str, Any]) -> list[str]:
    out = []
    if doc.get("type") not in ("chat", "script"):
        out.append(f"{where}: macro type {doc.get('type')!r}")
    if doc.get("scope") not in ("global", "actors", "actor"):
        out.append(f"{where}: macro scope {doc.get('scope')!r}")
    if not isinstance(doc.get("command"), str):
        out.append(f"{where}: command must be a string")
    # V13+: `author` is a DocumentAuthorField (nullable: false): a 16-character document id.
    author = doc.get("author")
    if not (isinstance(author, str) and re.fullmatch(r"[a-zA-Z0-9]{16}", author)):
        out.append(f"{where}: macro author {author!r} is not a document id")
    return out
