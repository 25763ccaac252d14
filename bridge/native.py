"""Which engine runs: the one mypyc compiled, or the Python sources it was compiled from.

``pip install`` (``setup.py``) compiles every module of ``bridge/engine`` that does not import
pydantic, and every module of ``bridge/pure`` (the server's own pure per-request helpers: the
row's hash, the outcome's texts), and writes ``bridge/engine/compiled.json``: the SHA-256 of
each compiled source. Python
imports an extension module in preference to the source beside it, so a source edited after the
build would silently run its old compiled code. :func:`select_engine` (called when ``bridge`` is
imported) prevents that: when the build is missing or incomplete, a compiled source changed, or
``ARBITER_ENGINE=interpreted``, every module of both packages (:data:`PACKAGES`) is loaded from
its ``.py`` file. It is all or nothing because compiled modules call each other directly, not
through module attributes: a fresh source beside stale neighbours would not be the code that
runs. (Both packages are one build: one manifest, one shared library, one choice.)

Both engines decide every request identically (the test suite runs the compiled one and compares
its replays with the interpreted one's); the compiled one is about twice as fast.

This module only reads files, so it lives outside ``bridge/engine``, which must stay pure.
``setup.py`` loads it by path, so it imports nothing from the project.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

ENV_VAR = "ARBITER_ENGINE"
"""``compiled`` (refuse to start without a fresh compiled engine), ``interpreted`` (always run the
sources; at build time: don't compile), or unset (compiled when fresh, else interpreted)."""
PACKAGE = "arbiter.bridge.engine"
PURE = "arbiter.bridge.pure"
"""The server's pure per-request helpers, compiled with the engine (no I/O, clock or RNG, as the
engine; not rules code, so kept out of its package)."""
PACKAGES = (PACKAGE, PURE)
"""The packages the build compiles: all of their modules run compiled, or none."""
MANIFEST = Path("arbiter", "bridge", "engine", "compiled.json")
GROUP = "arbiter_engine"
"""mypyc's shared library holding the code of every compiled module: ``arbiter_engine__mypyc``."""

_PYDANTIC_IMPORT = re.compile(r"^\s*(from|import)\s+pydantic\b", re.MULTILINE)

Mode = Literal["compiled", "interpreted"]


class StaleEngineWarning(RuntimeWarning):
    """The compiled engine is out of date with its sources; the sources run instead."""


@dataclass(frozen=True)
class EngineStatus:
    """What :func:`inspect` found: which engine can run, and why."""

    mode: Mode
    reason: str
    changed: tuple[str, ...] = ()
    """Compiled modules whose source differs from the one compiled (or is gone)."""
    not_compiled: tuple[str, ...] = ()
    """Modules the build rule selects that the build did not compile (added since)."""


def compiled_sources(root: Path) -> list[Path]:
    """Every source the build compiles, sorted: the modules of ``bridge/engine`` and
    ``bridge/pure`` that don't import pydantic (mypyc can't compile pydantic models; those
    modules stay interpreted)."""
    return sorted(
        path
        for package in PACKAGES
        for path in root.joinpath(*package.split(".")).rglob("*.py")
        if not _PYDANTIC_IMPORT.search(path.read_text(encoding="utf-8"))
    )


def _compiled_package(name: str) -> bool:
    """Whether module ``name`` belongs to a compiled package (:data:`PACKAGES`)."""
    return any(name == package or name.startswith(package + ".") for package in PACKAGES)


def module_name(root: Path, source: Path) -> str:
    """``bridge/engine/dice.py`` → ``arbiter.bridge.engine.dice``; a package's ``__init__.py`` → the
    package."""
    parts = source.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def digest(source: Path) -> str:
    """The SHA-256 of a source file's bytes, in hex."""
    return hashlib.sha256(source.read_bytes()).hexdigest()


def manifest(root: Path, sources: Sequence[Path], compiler: str) -> dict[str, object]:
    """The record a build writes: the compiler, and each compiled module's source digest."""
    return {
        "compiler": compiler,
        "python": sys.implementation.cache_tag,
        "modules": {module_name(root, source): digest(source) for source in sources},
    }


def _extension(root: Path, name: str) -> Path | None:
    base = root.joinpath(*name.split("."))
    stems = [base / "__init__", base] if (base / "__init__.py").is_file() else [base]
    for stem in stems:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            candidate = stem.with_name(stem.name + suffix)
            if candidate.is_file():
                return candidate
    return None


def _source(root: Path, name: str) -> Path:
    base = root.joinpath(*name.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def inspect(root: Path) -> EngineStatus:
    """Whether the compiled engine under ``root`` is complete and matches its sources."""
    path = root / MANIFEST
    if not path.is_file():
        return EngineStatus("interpreted", f"not compiled: no {MANIFEST.as_posix()}")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        modules = record["modules"]
    except (ValueError, KeyError, TypeError) as err:
        return EngineStatus("interpreted", f"{MANIFEST.as_posix()} is unreadable ({err})")
    if isinstance(record, dict) and record.get("compiler") is None and "reason" in record:
        # The install could not compile (no C compiler, not CPython) and said why (setup.py).
        return EngineStatus("interpreted", f"not compiled at install: {record['reason']}")
    if _extension(root, GROUP + "__mypyc") is None:
        return EngineStatus("interpreted", f"not compiled for this Python: no {GROUP}__mypyc")
    missing = tuple(name for name in modules if _extension(root, name) is None)
    if missing:
        return EngineStatus("interpreted", "compiled modules missing: " + ", ".join(missing))
    changed = tuple(
        name
        for name, expected in modules.items()
        if not _source(root, name).is_file() or digest(_source(root, name)) != expected
    )
    if changed:
        return EngineStatus(
            "interpreted",
            "sources changed since they were compiled: " + ", ".join(changed),
            changed=changed,
        )
    added = tuple(
        name
        for name in (module_name(root, source) for source in compiled_sources(root))
        if name not in modules
    )
    return EngineStatus("compiled", _compiler(path), not_compiled=added)


def _compiler(path: Path) -> str:
    return str(json.loads(path.read_text(encoding="utf-8")).get("compiler", "mypyc"))


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """Finds the modules of the compiled packages as their ``.py`` sources, ignoring extension
    modules."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not _compiled_package(fullname):
            return None
        base = self.root.joinpath(*fullname.split("."))
        package = base / "__init__.py"
        if package.is_file():
            return importlib.util.spec_from_file_location(
                fullname, package, submodule_search_locations=[str(base)]
            )
        source = base.with_suffix(".py")
        if source.is_file():
            return importlib.util.spec_from_file_location(fullname, source)
        return None


def choose(root: Path, environ: dict[str, str] | os._Environ[str]) -> EngineStatus:
    """The engine to run under ``root`` given ``ARBITER_ENGINE`` in ``environ``.

    Raises ``RuntimeError`` for an unknown ``ARBITER_ENGINE``, or when it says ``compiled`` and
    the compiled engine is missing or stale."""
    wanted = environ.get(ENV_VAR, "")
    if wanted not in ("", "compiled", "interpreted"):
        raise RuntimeError(f"{ENV_VAR}={wanted!r}: expected 'compiled' or 'interpreted'")
    if wanted == "interpreted":
        return EngineStatus("interpreted", f"{ENV_VAR}=interpreted")
    status = inspect(root)
    if status.mode != "compiled" and wanted == "compiled":
        raise RuntimeError(f"{ENV_VAR}=compiled, but the engine is {status.reason}")
    return status


ACTIVE: EngineStatus | None = None
"""The engine :func:`select_engine` chose for this process."""


def select_engine() -> EngineStatus:
    """Chooses, once per process and before any import of :data:`PACKAGES`, which code those
    imports load (see :func:`choose`); returns it. Warns (``StaleEngineWarning``) when it falls
    back to the sources because they changed since the build."""
    global ACTIVE
    if ACTIVE is not None:
        return ACTIVE
    if any(_compiled_package(name) for name in sys.modules):
        raise RuntimeError(f"select_engine() must run before {' or '.join(PACKAGES)} is imported")
    # The folder holding the package ``arbiter``: site-packages, or the checkout (whose
    # arbiter/bridge links to bridge/: not resolved, so that paths keep the package's names).
    root = Path(os.path.abspath(__file__)).parent.parent.parent
    status = choose(root, os.environ)
    if status.changed:
        warnings.warn(
            f"running the interpreted engine: {status.reason}; run scripts/setup "
            "to compile them again",
            StaleEngineWarning,
            stacklevel=2,
        )
    if status.mode == "interpreted":
        sys.meta_path.insert(0, _SourcesFirst(root))
    ACTIVE = status
    return status


def describe() -> str:
    """One line for logs and benchmark headers: which engine this process runs."""
    status = select_engine()
    return f"engine: {status.mode} ({status.reason})"
