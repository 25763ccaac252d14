"""Foundry VTT compendium packs: documents in, a LevelDB pack directory out (and back).

A pack stores each document under its Foundry key: ``!tables!<id>`` for a primary document,
``!tables.results!<table id>.<result id>`` for an embedded one (the parent keeps only the ids
of its embedded documents, in order). Values are JSON, serialised compactly with sorted keys,
so the same documents always give byte-identical pack files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .leveldb import DatabaseLockedError, LevelDBError, read_database, write_database

KEY_PATTERN = re.compile(
    r"!(?P<collection>[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)*)!(?P<ids>[A-Za-z0-9]{16}(?:\.[A-Za-z0-9]{16})*)"
)
"""``!collection[.embedded…]!id[.id…]`` with Foundry's 16-character alphanumeric ids."""

EMBEDDED_COLLECTIONS: dict[str, tuple[str, ...]] = {
    "actors": ("items", "effects"),
    "items": ("effects",),
    "journal": ("pages", "categories"),
    "tables": ("results",),
    "cards": ("cards",),
    "playlists": ("sounds",),
}
"""Fields of primary documents that hold embedded-document ids in a pack (Foundry's model)."""

_ENCODER = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
)


class PackError(Exception):
    """The documents cannot be written as a pack, or a pack cannot be read; says which and why."""


class PackLockedError(PackError):
    """The pack directory's LevelDB ``LOCK`` is held by another process (a running Foundry)."""


def write_pack(directory: Path, documents: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Write ``documents`` (Foundry key, document) as a LevelDB pack in ``directory``.

    Promises: the same documents, in any order, give byte-identical files; Foundry and its
    official CLI read the pack back as these documents. Checks first and writes nothing if a key
    is malformed or repeated, a document's ``_id`` differs from its key, an embedded document and
    its parent's id list disagree, a ``folder`` names no folder of the pack, or a value is not
    JSON-serialisable (:class:`PackError` naming the key and field). Refuses with
    :class:`PackLockedError`, naming the directory, when another process holds its LevelDB lock.
    """
    docs: dict[str, dict[str, Any]] = {}
    parsed: dict[str, tuple[str, str]] = {}
    for key, document in documents:
        parsed[key] = _check_key(key, document)
        if key in docs:
            raise PackError(f"{key}: two documents have this key")
        docs[key] = document
    _check_references(docs, parsed)
    entries: dict[bytes, bytes] = {}
    for key, document in docs.items():
        try:
            entries[key.encode()] = _ENCODER.encode(document).encode()
        except (TypeError, ValueError) as exc:
            raise PackError(f"{key}: not serialisable as JSON: {exc}") from exc
    try:
        write_database(directory, entries)
    except DatabaseLockedError as exc:
        raise PackLockedError(str(exc)) from exc
    except LevelDBError as exc:
        raise PackError(str(exc)) from exc


def read_pack(directory: Path) -> dict[str, dict[str, Any]]:
    """Read a pack: Foundry key → document, as LevelDB (and so Foundry) sees it.

    Reads what :func:`write_pack` writes and also packs LevelDB has since compacted into table
    files (after Foundry or the official CLI opened them). Raises :class:`PackError` naming the
    file for a missing or damaged pack.
    """
    try:
        entries = read_database(directory)
    except LevelDBError as exc:
        raise PackError(str(exc)) from exc
    out: dict[str, dict[str, Any]] = {}
    for raw_key, raw_value in entries.items():
        key = raw_key.decode("utf-8", "replace")
        try:
            out[key] = json.loads(raw_value)
        except ValueError as exc:
            raise PackError(f"{directory}: {key}: value is not JSON: {exc}") from exc
    return out


def _check_key(key: object, document: object) -> tuple[str, str]:
    """Check one key and its document; return (collection, ids) from the key."""
    if not isinstance(key, str) or not (match := KEY_PATTERN.fullmatch(key)):
        raise PackError(
            f"{key!r}: not a Foundry pack key; expected '!collection!<16-character id>' "
            "or '!collection.embedded!<parent id>.<id>'"
        )
    collection, ids = match.group("collection", "ids")
    if collection.count(".") != ids.count("."):
        raise PackError(
            f"{key}: {collection.count('.') + 1} collection names but {ids.count('.') + 1} ids"
        )
    if not isinstance(document, dict):
        raise PackError(f"{key}: document must be a dict, got {type(document).__name__}")
    if document.get("_id") != ids[-16:]:
        raise PackError(
            f"{key}: field '_id' is {document.get('_id')!r}, the key says {ids[-16:]!r}"
        )
    return collection, ids


def _check_references(docs: dict[str, dict[str, Any]], parsed: dict[str, tuple[str, str]]) -> None:
    """Embedded documents match their parents' id lists; folders exist."""
    embedded_fields = {c: set(fields) for c, fields in EMBEDDED_COLLECTIONS.items()}
    for key, (collection, ids) in parsed.items():
        if "." not in collection:
            continue
        parent_collection, field = collection.rsplit(".", 1)
        parent_ids, own_id = ids.rsplit(".", 1)
        parent_key = f"!{parent_collection}!{parent_ids}"
        parent = docs.get(parent_key)
        if parent is None:
            raise PackError(f"{key}: embedded document without its parent {parent_key}")
        listed = _embedded_ids(
            parent.get(field), single=field not in _list_fields(parent_collection)
        )
        if listed is None or own_id not in listed:
            raise PackError(f"{parent_key}: field '{field}' does not list the embedded {key}")
        embedded_fields.setdefault(parent_collection, set()).add(field)
    for key, (collection, ids) in parsed.items():
        document = docs[key]
        for field in embedded_fields.get(collection, ()):
            listed = _embedded_ids(
                document.get(field, []), single=field not in _list_fields(collection)
            )
            children = [child for child in listed if isinstance(child, str)] if listed else []
            if listed is None or len(children) != len(listed):
                raise PackError(
                    f"{key}: field '{field}' must be a list of embedded ids (each embedded "
                    "document is stored under its own key)"
                )
            if len(set(children)) != len(children):
                raise PackError(f"{key}: field '{field}' lists an id twice")
            prefix = f"!{collection}.{field}!{ids}."
            for child in children:
                if prefix + child not in docs:
                    raise PackError(
                        f"{key}: field '{field}' lists {child!r} but the pack has no {prefix}{child}"
                    )
        folder = document.get("folder")
        if folder is not None and "." not in collection and f"!folders!{folder}" not in docs:
            raise PackError(f"{key}: field 'folder' names {folder!r}, which is not a folder here")


def _list_fields(collection: str) -> tuple[str, ...]:
    return EMBEDDED_COLLECTIONS.get(collection, ())


def _embedded_ids(value: object, single: bool) -> list[object] | None:
    """The ids an embedded field holds: a list of ids, or (if ``single``) one id for a single
    embedded document such as a token's ``delta``; None for anything else."""
    if isinstance(value, list):
        return value
    if single and isinstance(value, str):
        return [value]
    return None
