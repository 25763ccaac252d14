"""``module.json``: the manifest Foundry reads to install and load the module.

Follows Foundry's manifest rules (shared/reference/foundry.md §2): id ``arbiter`` (the folder
name), compatibility minimum "12" and verified "14" with no maximum (a maximum makes the module
unavailable the day a new generation goes stable), pack names without periods, every pack
with its ``ownership``, ``socket: true`` for the relay between GM and players.

The version is ``<project version>.<build number>`` (``versions.py``): the number grows with
every build whose content changed, so Foundry's ``isNewerVersion`` sees each as an update, and
stays when nothing changed. ``flags.arbiter.content`` keys the content it was given for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from arbiter.compiler.foundry.layout import CORE_GENERATION, DEFAULT_OWNERSHIP, MODULE_ID, PACKS
from arbiter.compiler.foundry.render import LANG_FILE, Renderer
from arbiter.compiler.model.loader import Ruleset

VERIFIED_GENERATION = "14"
SCRIPT = "scripts/arbiter.mjs"
STYLE = "styles/arbiter.css"


def project_version() -> str:
    """The installed ``vtt-arbiter`` version (``0.0.0`` when run from an uninstalled tree)."""
    try:
        return metadata.version("vtt-arbiter")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def manifest(
    rulesets: Mapping[str, Ruleset], version: str, renderer: Renderer, content: str = ""
) -> dict[str, Any]:
    """The manifest as a dict (see the module docstring for the rules it follows); ``content``
    is the content key the next build compares its own with (``versions.py``)."""
    return {
        "id": MODULE_ID,
        "title": renderer.label("ARBITER.Module.Title"),
        "description": renderer.label("ARBITER.Module.Description"),
        "version": version,
        "authors": [{"name": "Arbiter"}],
        "compatibility": {"minimum": CORE_GENERATION, "verified": VERIFIED_GENERATION},
        "esmodules": [SCRIPT],
        "styles": [STYLE],
        "languages": [{"lang": "en", "name": "English", "path": LANG_FILE}],
        "packs": [
            {
                "name": pack.name,
                "label": renderer.label(pack.label_key),
                "path": pack.path,
                "type": pack.type,
                "ownership": dict(DEFAULT_OWNERSHIP),
            }
            for pack in PACKS
        ],
        "packFolders": [
            {
                "name": renderer.label("ARBITER.Pack.Folder"),
                "sorting": "m",
                "packs": [pack.name for pack in PACKS],
            }
        ],
        "socket": True,
        "flags": {
            MODULE_ID: {
                "rules": {
                    rid: {
                        "title": rulesets[rid].model.ruleset.title,
                        "version": rulesets[rid].model.ruleset.version,
                        "hash": rulesets[rid].content_hash,
                    }
                    for rid in sorted(rulesets)
                },
                "data": "data/rules.json",
                "content": content,
            }
        },
    }


def manifest_json(data: Mapping[str, Any]) -> bytes:
    """The manifest's bytes: two-space indented JSON, UTF-8, trailing newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
