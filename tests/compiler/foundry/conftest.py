"""The official Foundry CLI as the oracle for packs: ``fvtt package unpack`` reads what we wrote.

The ``fvtt`` fixture runs ``<repo>/node_modules/.bin/fvtt`` (installed by ``scripts/setup
--test``) and fails, never skips, when it is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
FVTT = REPO / "node_modules" / ".bin" / "fvtt"


class FoundryCli:
    """Runs the official CLI with its config file kept inside a test's temporary folder."""

    def __init__(self, home: Path) -> None:
        self.env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home), "NO_COLOR": "1"}

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run ``fvtt ARGS``; fail the test, showing its output, if it reports an error."""
        done = subprocess.run(
            [str(FVTT), *args], env=self.env, capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0 or done.stderr.strip():
            pytest.fail(
                f"fvtt {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
            )
        return done

    def unpack(self, pack: Path, work: Path) -> dict[str, dict[str, Any]]:
        """Unpack a copy of ``pack`` (LevelDB rewrites what it opens) → ``_key`` → document."""
        copy = work / "unpack-in" / pack.name
        out = work / "unpack-out" / pack.name
        shutil.rmtree(copy.parent, ignore_errors=True)
        shutil.copytree(pack, copy)
        self.run("package", "unpack", "-n", pack.name, "--in", str(copy.parent), "--out", str(out))
        docs: dict[str, dict[str, Any]] = {}
        for file in sorted(out.rglob("*.json")):
            doc = json.loads(file.read_text(encoding="utf-8"))
            docs[doc["_key"]] = doc
        return docs

    def pack(self, documents: Iterable[tuple[str, dict[str, Any]]], pack: Path) -> None:
        """Pack flat documents with ``fvtt package pack`` from JSON sources (the CLI's format:
        one file per primary document, embedded documents inline, each with its ``_key``).
        Absent embedded collections are packed as ``[]`` (see :data:`CLI_EMBEDDED`)."""
        source = pack.parent / f"{pack.name}-source"
        source.mkdir(parents=True)
        for key, doc in nested(documents).items():
            name = key.replace("!", "_") + ".json"
            (source / name).write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        self.run("package", "pack", "-n", pack.name, "--in", str(source), "--out", str(pack.parent))

    def expected(
        self, documents: Iterable[tuple[str, dict[str, Any]]]
    ) -> dict[str, dict[str, Any]]:
        """What :meth:`unpack` must return for a pack of these flat documents."""
        return nested(documents)


CLI_EMBEDDED = {
    "actors": ("items", "effects"),
    "cards": ("cards",),
    "items": ("effects",),
    "journal": ("pages", "categories"),
    "playlists": ("sounds",),
    "tables": ("results",),
}
"""Embedded collections the CLI (3.0.x) inlines on unpack; an absent one comes out as ``[]``.
Other primary collections (macros, folders…) have none. Scenes are not covered here."""


def nested(documents: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """What ``fvtt package unpack`` must give for flat pack documents: each primary document with
    ``_key`` added and its embedded id lists replaced by the embedded documents (with ``_key``)."""
    flat = dict(documents)
    out: dict[str, dict[str, Any]] = {}
    for key, doc in flat.items():
        collection, parent_id = key[1:].split("!")
        if "." in collection:
            continue
        unpacked = {**doc, "_key": key}
        for field in CLI_EMBEDDED.get(collection, ()):
            prefix = f"!{collection}.{field}!{parent_id}."
            unpacked[field] = [{**flat[prefix + i], "_key": prefix + i} for i in doc.get(field, [])]
        out[key] = unpacked
    return out


@pytest.fixture
def fvtt(tmp_path: Path) -> FoundryCli:
    """The official Foundry CLI; the test fails with a clear message if it is not installed."""
    if not FVTT.exists():
        pytest.fail(f"the official Foundry CLI is missing at {FVTT}; run scripts/setup --test")
    home = tmp_path / "fvtt-home"
    home.mkdir()
    return FoundryCli(home)
