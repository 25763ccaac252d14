"""Build hook: compiles the pure engine (``bridge/engine``) with mypyc when Arbiter is installed.

Everything else about the package is declared in ``pyproject.toml``. The modules compiled are
those :func:`bridge.native.compiled_sources` selects; after a successful build, a manifest of their
source digests goes beside them, so that a later edit to a source makes ``bridge`` run the sources
rather than stale compiled code (see ``bridge/native.py`` and ``docs/engine.md``).

``ARBITER_ENGINE=interpreted pip install -e .`` skips the compiler (no C compiler needed); the
engine then runs from its sources, about half as fast, with identical outcomes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("arbiter_native", ROOT / "bridge" / "native.py")
assert _spec is not None and _spec.loader is not None
native = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = native  # dataclasses look their module up while it executes
_spec.loader.exec_module(native)


def _compiled_engine() -> tuple[list[object], dict[str, object] | None]:
    """The extension modules to build, and the manifest that describes them (digests taken
    before compiling, so an edit made during the build is caught as a change)."""
    if os.environ.get(native.ENV_VAR) == "interpreted":
        (ROOT / native.MANIFEST).unlink(missing_ok=True)
        return [], None
    from mypy.version import __version__ as mypy_version
    from mypyc.build import mypycify

    sources = native.compiled_sources(ROOT)
    record = native.manifest(ROOT, sources, f"mypyc {mypy_version}")
    paths = [source.relative_to(ROOT).as_posix() for source in sources]
    return mypycify(paths, opt_level="3", group_name=native.GROUP), record


EXTENSIONS, MANIFEST = _compiled_engine()


class BuildEngine(build_ext):
    """``build_ext`` that writes the compiled engine's manifest once every extension is built:
    into the build tree (for wheels) and, for in-place and editable builds, beside the sources."""

    def run(self) -> None:
        # A stale manifest must never vouch for a half-finished build.
        (ROOT / native.MANIFEST).unlink(missing_ok=True)
        super().run()
        if MANIFEST is None:
            return
        targets = [Path(self.build_lib) / native.MANIFEST]
        if self.inplace or getattr(self, "editable_mode", False):
            targets.append(ROOT / native.MANIFEST)
        text = json.dumps(MANIFEST, indent=1, sort_keys=True) + "\n"
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")


setup(ext_modules=EXTENSIONS, cmdclass={"build_ext": BuildEngine})
