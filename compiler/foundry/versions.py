"""Module versions that Foundry orders: ``<project version>.<build number>``.

Foundry decides whether an installed module has an update with ``foundry.utils.isNewerVersion``:
it splits both versions at the dots and compares part by part, numerically when both parts are
numbers and as strings otherwise. A ``0.1.0-<hex digest>`` version compares its last part as a
string, so half of all rebuilds looked older than the installed one. A build number compares
numerically and only grows.

Where the number lives: beside the output. Each build records its version and a key of the
module's content in the build stamp (``<out>/.arbiter-build.json``) and in ``module.json``
(``flags.arbiter.content``). A rebuild reads the previous build from there: unchanged content
keeps the previous version (so the module stays byte-identical); changed content takes the
next number. The output folder is the right place because it is what Foundry installs from
(``arbiter serve`` serves it): its history is the history Foundry has seen. A build into a fresh
folder starts at 1, so two fresh builds of the same sources are identical (reproducible); a GM
who deletes the output folder of a module he already installed must raise the number himself
(``arbiter build`` reads it back from a ``module.json`` left there, the stamp or the manifest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arbiter.compiler.model.loader import Ruleset


@dataclass(frozen=True)
class PreviousBuild:
    """What the last build in an output folder produced."""

    version: str
    content: str


def content_key(rulesets: Mapping[str, Ruleset], content_digest: str) -> str:
    """A hex digest of the module's content: ruleset ids, versions and hashes, every document
    and shipped file (``content_digest``). Same content → same key."""
    h = hashlib.sha256()
    for rid in sorted(rulesets):
        ruleset = rulesets[rid]
        h.update(f"{rid}\0{ruleset.model.ruleset.version}\0{ruleset.content_hash}\n".encode())
    h.update(content_digest.encode())
    return h.hexdigest()


def build_number(version: str) -> int:
    """The build number of a version this module wrote (its last dotted part), else 0."""
    last = version.rsplit(".", 1)[-1]
    return int(last) if last.isdigit() else 0


def next_version(project: str, content: str, previous: PreviousBuild | None) -> str:
    """The version of a build of ``content``: the previous one when nothing changed, else the
    project version with the next build number (1 in a fresh output folder)."""
    if previous is not None and previous.content == content:
        return previous.version
    number = build_number(previous.version) + 1 if previous is not None else 1
    return f"{project}.{number}"


def previous_build(stamp_path: Path, module_dir: Path) -> PreviousBuild | None:
    """The last build's version and content key: from the build stamp, else from the module's
    own ``module.json``; None for a fresh output folder (or unreadable leftovers)."""
    for path, read in (
        (stamp_path, lambda d: (d.get("version"), d.get("content"))),
        (module_dir / "module.json", _from_manifest),
    ):
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        version, content = read(data)
        if isinstance(version, str) and isinstance(content, str):
            return PreviousBuild(version, content)
        if isinstance(version, str):
            # A module written before content keys: its number still counts.
            return PreviousBuild(version, "")
    return None


def _from_manifest(data: dict[str, object]) -> tuple[object, object]:
    flags = data.get("flags")
    ours = flags.get("arbiter") if isinstance(flags, dict) else None
    content = ours.get("content") if isinstance(ours, dict) else None
    return data.get("version"), content
