"""``build_module``: rule sources in, an installable Foundry module out.

1. Fingerprint the inputs (rule files, house-rule files, templates, the compiler's own code).
   When the fingerprint matches the last successful build and the module is still there,
   nothing is rebuilt — a no-change rebuild costs a few file reads.
2. Load and validate every ruleset; any problem raises :class:`RuleError` before anything is
   written, so bad rules never produce a partial module.
3. Refuse (:class:`PacksLocked`) when a running Foundry world holds the current packs open.
4. Lower to documents, write the packs, render the templates, write ``data/rules.json``, the
   protocol's JSON Schemas (``docs/schemas`` → ``schemas/``) and ``module.json`` into a
   temporary folder next to the target.
5. Read that folder back and check it (:mod:`arbiter.compiler.foundry.validate`: Foundry's document and
   manifest rules, every translation key in the language file); any problem raises
   :class:`ModuleInvalid` naming the document, file or key, the folder is deleted and the
   previous module stays as it was. Otherwise swap it in.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arbiter.compiler.errors import RuleError, RuleProblem
from arbiter.compiler.foundry.card_faces import card_faces
from arbiter.compiler.foundry.layout import MODULE_ID, PACKS
from arbiter.compiler.foundry.lower import lower, pack_entries
from arbiter.compiler.foundry.manifest import manifest, manifest_json, project_version
from arbiter.compiler.foundry.packs import write_pack
from arbiter.compiler.foundry.publish import (
    PacksLocked,
    exclusive_build,
    locked_packs,
    replace_file,
    staging_dir,
    swap_in,
    write_file,
    zip_module,
)
from arbiter.compiler.foundry.render import TEMPLATES_ROOT, Renderer
from arbiter.compiler.foundry.rules_data import RULES_DATA_PATH, rules_json
from arbiter.compiler.foundry.validate import ModuleInvalid, module_problems
from arbiter.compiler.foundry.versions import (
    PreviousBuild,
    content_key,
    next_version,
    previous_build,
)
from arbiter.compiler.model.loader import RULES_ROOT, Ruleset, load_all
from arbiter.compiler.paths import DEFAULT_OUT, PACKAGE_ROOT
from arbiter.compiler.paths import SCHEMAS_ROOT as PACKAGED_SCHEMAS

STAMP = f".{MODULE_ID}-build.json"
"""Written next to the module after a successful build: the inputs' fingerprint."""
CODE_ROOT = PACKAGE_ROOT
"""The ``compiler`` package: its code is an input too (a fix to lowering must rebuild)."""
SCHEMAS_ROOT = PACKAGED_SCHEMAS
"""The server protocol's JSON Schemas (written by ``python -m arbiter.bridge.protocol``), shipped as
they are under ``schemas/`` for the client. Copied, not generated: the compiler never imports
the server."""


@dataclass(frozen=True)
class RulesetSummary:
    id: str
    title: str
    version: str
    content_hash: str


@dataclass(frozen=True)
class BuildReport:
    """What a build produced (or found already built)."""

    module_dir: Path
    version: str
    rulesets: tuple[RulesetSummary, ...]
    documents: Mapping[str, int]
    """Pack name → number of stored entries (documents and embedded documents)."""
    files: int
    """Files in the module besides the packs."""
    skipped: bool
    """True when nothing changed since the last build, so nothing was written."""
    zip_path: Path | None = None

    def describe(self) -> str:
        """A few lines for the command line."""
        head = "up to date" if self.skipped else "built"
        lines = [f"{head}: {self.module_dir} (module arbiter {self.version})"]
        for r in self.rulesets:
            lines.append(f"  {r.id} {r.version}  {r.title}  [{r.content_hash[:12]}]")
        if self.documents:
            packs = ", ".join(f"{name} {n}" for name, n in self.documents.items())
            lines.append(f"  packs: {packs} entries; {self.files} other files")
        if self.zip_path is not None:
            lines.append(f"  zip: {self.zip_path}")
        return "\n".join(lines)


def build_module(
    out_dir: Path = DEFAULT_OUT,
    rules_root: Path = RULES_ROOT,
    overlay: Path | None = None,
    *,
    zip_: bool = False,
    templates: Path = TEMPLATES_ROOT,
    public_url: str | None = None,
) -> BuildReport:
    """Build ``out_dir/arbiter`` from the rules under ``rules_root`` (plus ``overlay``).

    Raises RuleError (nothing written) for bad rule sources, ModuleInvalid (nothing swapped in)
    when the compiled module fails its own checks, PacksLocked when a running Foundry world
    holds the existing module's packs, and BuildBusy when another build is writing into
    ``out_dir``. ``public_url``: where the zip will be published (its ``module.json`` then
    names ``<url>/module.json`` and ``<url>/module.zip`` as ``manifest`` and ``download``).
    """
    with exclusive_build(out_dir, MODULE_ID):
        return _build(out_dir, rules_root, overlay, zip_, templates, public_url)


def _build(
    out_dir: Path,
    rules_root: Path,
    overlay: Path | None,
    zip_: bool,
    templates: Path,
    public_url: str | None = None,
) -> BuildReport:
    module_dir = out_dir / MODULE_ID
    stamp_path = out_dir / STAMP
    fingerprint = _fingerprint(rules_root, overlay, templates)
    previous = _up_to_date(stamp_path, module_dir, fingerprint)
    if previous is not None:
        zip_path = _zip(module_dir, out_dir, zip_, refresh=bool(public_url), url=public_url)
        return _report_from_stamp(module_dir, previous, zip_path)

    rulesets = load_all(rules_root, overlay)
    if not rulesets:
        raise RuleError(
            [
                RuleProblem(
                    str(rules_root), None, None, "no rulesets found (folders with a ruleset.toml)"
                )
            ]
        )
    locked = locked_packs(module_dir)
    if locked:
        raise PacksLocked(locked)
    module = compile_module(rulesets, templates, previous_build(stamp_path, module_dir))
    _publish(module, out_dir, module_dir)
    summaries = tuple(_summary(rulesets[rid]) for rid in sorted(rulesets))
    counts = {name: len(e) for name, e in module.entries.items()}
    stamp = {
        "fingerprint": fingerprint,
        "version": module.version,
        "content": module.content,
        "manifest_sha256": hashlib.sha256(module.files["module.json"]).hexdigest(),
        "rulesets": [asdict(s) for s in summaries],
        "documents": counts,
        "files": len(module.files),
    }
    replace_file(stamp_path, json.dumps(stamp, indent=1).encode())
    zip_path = _zip(module_dir, out_dir, zip_, refresh=True, url=public_url)
    return BuildReport(
        module_dir, module.version, summaries, counts, len(module.files), False, zip_path
    )


@dataclass(frozen=True)
class CompiledModule:
    """Everything the module holds, in memory: pack entries and the other files' bytes."""

    version: str
    content: str
    """Key of the module's content (``versions.content_key``): the version changes with it."""
    entries: Mapping[str, list[tuple[str, dict[str, Any]]]]
    """Pack name → its LevelDB key/value pairs."""
    files: Mapping[str, bytes]
    """Path inside the module → bytes, for every file besides the packs."""


def compile_module(
    rulesets: Mapping[str, Ruleset],
    templates: Path = TEMPLATES_ROOT,
    previous: PreviousBuild | None = None,
) -> CompiledModule:
    """Lower, render and version the module from validated rulesets; writes nothing.

    ``previous``: the last build in the same output folder; its version is kept when the
    content is the same and the next build number taken when it is not (``versions.py``).
    """
    renderer = Renderer(templates)
    documents = lower(rulesets, renderer)
    entries = {name: list(pack_entries(docs)) for name, docs in documents.items()}
    rules_bytes = rules_json(rulesets)
    schemas = {f"schemas/{rel}": data for rel, data in _tree(SCHEMAS_ROOT, "*.json")}
    faces = card_faces(rulesets)
    digest = _content_digest(entries, rules_bytes, templates, {**schemas, **faces})
    content = content_key(rulesets, digest)
    version = next_version(project_version(), content, previous)
    files = renderer.render_module(_context(version, renderer))
    files[RULES_DATA_PATH] = rules_bytes
    files.update(schemas)
    files.update(faces)
    files["module.json"] = manifest_json(manifest(rulesets, version, renderer, content))
    return CompiledModule(version, content, entries, files)


def _publish(module: CompiledModule, out_dir: Path, module_dir: Path) -> None:
    """Write ``module`` into a staging folder next to ``module_dir``, check what was written,
    then swap it in; raises ModuleInvalid (and removes the staging folder) when a check fails."""
    (out_dir / STAMP).unlink(missing_ok=True)  # a crash from here on must not look up to date
    staged = staging_dir(out_dir, MODULE_ID)
    try:
        for pack in PACKS:
            write_pack(staged / pack.path, module.entries[pack.name])
        for path, data in sorted(module.files.items()):
            write_file(staged / path, data)
        # Checked as written (read back from disk), under the name it will have once swapped in.
        problems = module_problems(staged, module_dir.name)
        if problems:
            raise ModuleInvalid(problems)
        swap_in(staged, module_dir)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise


def _context(version: str, renderer: Renderer) -> dict[str, object]:
    cards = {
        path.removeprefix("templates/cards/").removesuffix(".hbs"): path
        for path in renderer.module_files()
        if path.startswith("templates/cards/") and path.endswith(".hbs")
    }
    return {"module": {"id": MODULE_ID, "version": version}, "cards": cards}


def _summary(ruleset: Ruleset) -> RulesetSummary:
    meta = ruleset.model.ruleset
    return RulesetSummary(ruleset.id, meta.title, meta.version, ruleset.content_hash)


def _zip(
    module_dir: Path, out_dir: Path, wanted: bool, *, refresh: bool, url: str | None = None
) -> Path | None:
    if not wanted:
        return None
    zip_path = out_dir / f"{MODULE_ID}.zip"
    if refresh or not zip_path.is_file():
        zip_module(module_dir, zip_path, url)
    return zip_path


def _content_digest(
    entries: Mapping[str, list[tuple[str, dict[str, Any]]]],
    rules: bytes,
    templates: Path,
    shipped: Mapping[str, bytes],
) -> str:
    h = hashlib.sha256()
    for name in sorted(entries):
        for key, value in entries[name]:
            h.update(key.encode())
            h.update(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())
    h.update(rules)
    for rel, data in _tree(templates, "*"):
        h.update(rel.encode())
        h.update(hashlib.sha256(data).digest())
    for rel, data in sorted(shipped.items()):
        h.update(rel.encode())
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def _fingerprint(rules_root: Path, overlay: Path | None, templates: Path) -> str:
    """A digest of every input of the build: any edit anywhere gives a new fingerprint."""
    h = hashlib.sha256(f"vtt-arbiter {project_version()}\n".encode())
    sources = [
        ("rules", rules_root, "*.toml"),
        ("templates", templates, "*"),
        ("code", CODE_ROOT, "*.py"),
        ("schemas", SCHEMAS_ROOT, "*.json"),
    ]
    if overlay is not None:
        sources.append((f"overlay:{overlay.name}", overlay, "*.toml"))
    for label, root, pattern in sources:
        for rel, data in _tree(root, pattern):
            h.update(f"{label}/{rel}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def _tree(root: Path, pattern: str) -> Iterator[tuple[str, bytes]]:
    if not root.is_dir():
        return
    for path in sorted(root.rglob(pattern)):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path.relative_to(root).as_posix(), path.read_bytes()


def _up_to_date(stamp_path: Path, module_dir: Path, fingerprint: str) -> dict[str, Any] | None:
    try:
        stamp = json.loads(stamp_path.read_bytes())
        manifest_bytes = (module_dir / "module.json").read_bytes()
    except (OSError, ValueError):
        return None
    if stamp.get("fingerprint") != fingerprint:
        return None
    if stamp.get("manifest_sha256") != hashlib.sha256(manifest_bytes).hexdigest():
        return None
    if not all((module_dir / pack.path).is_dir() for pack in PACKS):
        return None
    return stamp


def _report_from_stamp(
    module_dir: Path, stamp: dict[str, Any], zip_path: Path | None
) -> BuildReport:
    summaries = tuple(RulesetSummary(**r) for r in stamp["rulesets"])
    return BuildReport(
        module_dir, stamp["version"], summaries, stamp["documents"], stamp["files"], True, zip_path
    )
