"""The build checks its own output before it swaps it in.

:func:`module_problems` reads a built module folder back from disk — the packs through our
LevelDB reader, ``module.json``, the language file and the shipped scripts and templates — and
lists every problem, each naming what is wrong: a pack document that breaks Foundry's document
rules (:mod:`arbiter.compiler.foundry.document_rules`, by its key), a manifest that breaks Foundry's
manifest rules (:mod:`arbiter.compiler.foundry.manifest_rules`), a translation key a shipped file uses
that the language file lacks (by file and key). ``build_module`` raises :class:`ModuleInvalid`
with that list and leaves the previous module as it was.

The tests keep an independent oracle beside these checks: the official Foundry CLI unpacking
every pack (tests/compiler/foundry/test_build_oracle.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from arbiter.compiler.foundry.document_rules import document_problems
from arbiter.compiler.foundry.layout import EMBEDDED, MODULE_ID, PACKS
from arbiter.compiler.foundry.manifest_rules import manifest_problems
from arbiter.compiler.foundry.packs import PackError, read_pack
from arbiter.compiler.foundry.render import LANG_FILE

LABEL = re.compile(r'"(ARBITER\.[\w.]+)"')
"""A translation key as the module's files write it: ``localize "KEY"`` in Handlebars,
``i18n("KEY")`` or a quoted key in the scripts."""
LABELLED_SUFFIXES = (".mjs", ".js", ".hbs", ".html")
"""Shipped files whose translation keys must be in the language file."""


class ModuleInvalid(Exception):
    """The built module breaks Foundry's rules or uses a translation key it does not ship;
    ``problems`` lists each, naming the document, file or key. Nothing was swapped in."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.report())

    def report(self) -> str:
        """One problem a line, under a head that says the previous module stays."""
        n = len(self.problems)
        head = (
            f"the built module fails {n} check{'s' if n != 1 else ''}; "
            "the previous module stays as it was:"
        )
        return "\n".join([head, *(f"  {p}" for p in self.problems)])


def module_problems(module_dir: Path, folder_name: str = MODULE_ID) -> list[str]:
    """Every problem of the module in ``module_dir`` (empty: Foundry V12–V14 can load it).

    ``folder_name`` is the folder's name once installed (the build checks a staging folder).
    Problems name the pack and document key, ``module.json`` and its field, or the file and
    translation key.
    """
    problems: list[str] = []
    for pack in PACKS:
        try:
            stored = read_pack(module_dir / pack.path)
        except (OSError, PackError) as err:
            problems.append(f"{pack.path}: unreadable: {err}")
            continue
        documents = unpacked(stored.items())
        problems.extend(f"{pack.path} {p}" for p in document_problems(pack.type, documents))
    problems.extend(f"module.json: {p}" for p in manifest_problems(module_dir, folder_name))
    problems.extend(label_problems(module_dir))
    return problems


def unpacked(entries: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Key → primary document with ``_key`` and its embedded documents inline (each with its
    ``_key``), the shape :func:`document_problems` checks, from a pack's stored entries.

    An embedded id with no stored document comes back as ``{"_id": id}`` with its expected key,
    so the document rules report it rather than this function failing.
    """
    flat = dict(entries)
    out: dict[str, dict[str, Any]] = {}
    for key, doc in flat.items():
        collection, parent_id = key[1:].split("!", 1)
        if "." in collection:
            continue
        document = {**doc, "_key": key}
        for field in EMBEDDED.get(collection, {}):
            children = []
            for child_id in doc.get(field) or []:
                child_key = f"!{collection}.{field}!{parent_id}.{child_id}"
                children.append({**flat.get(child_key, {"_id": child_id}), "_key": child_key})
            document[field] = children
        out[key] = document
    return out


def label_problems(module_dir: Path) -> list[str]:
    """Every translation key a shipped script or template uses that ``lang/en.json`` lacks,
    by file; and the language file itself when it is not a JSON object of strings."""
    try:
        labels = json.loads((module_dir / LANG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return [f"{LANG_FILE}: unreadable: {err}"]
    if not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values()):
        return [f"{LANG_FILE}: not a JSON object of strings"]
    # Foundry expands the file with `expandObject`: a key that also prefixes others is both a
    # string and an object, and one of them is lost (docs/client.md, Language).
    problems = [
        f"{LANG_FILE}: key {key!r} is both a string and an object ({other!r})"
        for key in sorted(labels)
        for other in sorted(labels)
        if other.startswith(f"{key}.")
    ][:20]
    for path in sorted(module_dir.rglob("*")):
        if not path.is_file() or path.suffix not in LABELLED_SUFFIXES:
            continue
        used = set(LABEL.findall(path.read_text(encoding="utf-8")))
        rel = path.relative_to(module_dir).as_posix()
        # A key ending in a dot is a family a card completes from the result
        # (`concat "ARBITER.Event." kind`): it must name at least one label.
        families = {key for key in used if key.endswith(".")}
        problems.extend(
            f"{rel}: translation key family {key!r} has no label in {LANG_FILE}"
            for key in sorted(families)
            if not any(label.startswith(key) for label in labels)
        )
        problems.extend(
            f"{rel}: translation key {key!r} is not in {LANG_FILE}"
            for key in sorted(used - families - set(labels))
        )
    return problems
