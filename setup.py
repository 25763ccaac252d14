"""Build hook: compiles the pure engine (``arbiter.bridge.engine``, the folder ``bridge/engine``)
and the server's pure per-request helpers (``arbiter.bridge.pure``, ``bridge/pure``) with mypyc
when Arbiter is installed.

Everything else about the package is declared in ``pyproject.toml``; the packages are listed
here (``arbiter`` and every package under it, found through the links ``arbiter/bridge`` and
``arbiter/compiler``, plus the two folders pyproject.toml maps into ``arbiter.compiler``:
``templates/`` and ``docs/schemas/``). The modules compiled are those
:func:`arbiter.bridge.native.compiled_sources` selects; after a successful build, a manifest of
their source digests goes beside them, so that a later edit to a source makes ``arbiter.bridge``
run the sources rather than stale compiled code (see ``bridge/native.py``, ``docs/engine.md``).

``ARBITER_ENGINE=interpreted pip install .`` skips the compiler. So does a machine that cannot
compile (no working C compiler or Python headers, not CPython): the install then succeeds with
the interpreted engine (same outcomes, about half as fast), says why in one line, and records
the reason in the manifest, so ``arbiter serve`` prints it too.

Speed of the build (``benchmarks/install.py``): mypyc writes one C file per module
(``multi_file``) and they are compiled in parallel, one job per core; ``-O3``, ``-g0``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from setuptools import find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "arbiter_native", ROOT / "arbiter" / "bridge" / "native.py"
)
assert _spec is not None and _spec.loader is not None
native = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = native  # dataclasses look their module up while it executes
_spec.loader.exec_module(native)

OPT_LEVEL = "3"
"""-O3, as before: -O2 compiled no quicker here (CPU 81 s against 84 s for the whole install) and
its engine measured 1-2 % slower on the combat-styles exchange (benchmarks/install.py)."""
MULTI_FILE = True
"""One C file per module instead of one for the whole engine, so they compile in parallel."""
DEBUG_LEVEL = "0"
"""No C debug information (``-g0``): it only serves a C debugger, and costs compile time."""
JOBS = max(1, os.cpu_count() or 1)


def _cannot_compile() -> str | None:
    """Why this machine cannot compile the engine, or None when it can: a CPython whose C
    compiler builds a file that includes ``Python.h`` (checked in a fraction of a second,
    before mypy's analysis, which takes far longer)."""
    if platform.python_implementation() != "CPython":
        return f"mypyc compiles for CPython only, this is {platform.python_implementation()}"
    try:
        import mypyc.build  # noqa: F401
    except ImportError as err:
        return f"mypyc is not available ({err})"
    from distutils.ccompiler import new_compiler
    from distutils.errors import CCompilerError, DistutilsError
    from distutils.sysconfig import customize_compiler, get_python_inc

    compiler: Any = new_compiler()
    try:
        customize_compiler(compiler)
        with tempfile.TemporaryDirectory(prefix="arbiter-cc-") as scratch:
            source = Path(scratch, "probe.c")
            source.write_text("#include <Python.h>\nint arbiter_probe(void) { return 0; }\n")
            compiler.compile([str(source)], output_dir=scratch, include_dirs=[get_python_inc()])
    except (CCompilerError, DistutilsError, OSError):
        # The error repeats the whole command line; the compiler's name says enough.
        command = getattr(compiler, "compiler_so", None) or ["cc"]
        return f"no working C compiler: {Path(command[0]).name!r} cannot compile against Python.h"
    return None


def _interpreted_record(reason: str) -> dict[str, object]:
    return {"compiler": None, "reason": reason, "modules": {}}


def _say_interpreted(reason: str) -> None:
    print(
        f"arbiter: engine not compiled ({reason}); installing the interpreted engine "
        "(same outcomes, about half as fast)",
        file=sys.stderr,
        flush=True,
    )


BUILD_COMMANDS = frozenset(
    ("build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop", "bdist_egg")
)
"""The setup.py commands that build extensions. pip also runs setup.py to learn the build's
requirements and metadata (``egg_info``, ``dist_info``) and ``python -m build`` for the sdist:
those need no C, and running mypyc for them tripled the install's time."""


def _compiled_engine() -> tuple[list[Any], dict[str, object] | None]:
    """The extension modules to build, and the manifest that describes them (digests taken
    before compiling, so an edit made during the build is caught as a change). No extensions
    and a record of the reason when the engine is not to be, or cannot be, compiled."""
    if not BUILD_COMMANDS.intersection(sys.argv[1:]):
        return [], None
    if os.environ.get(native.ENV_VAR) == "interpreted":
        (ROOT / native.MANIFEST).unlink(missing_ok=True)
        return [], None
    reason = _cannot_compile()
    if reason is not None:
        _say_interpreted(reason)
        return [], _interpreted_record(reason)
    from mypy.version import __version__ as mypy_version
    from mypyc.build import mypycify

    sources = native.compiled_sources(ROOT)
    record = native.manifest(ROOT, sources, f"mypyc {mypy_version}")
    paths = [source.relative_to(ROOT).as_posix() for source in sources]
    extensions = mypycify(
        paths,
        opt_level=OPT_LEVEL,
        debug_level=DEBUG_LEVEL,
        multi_file=MULTI_FILE,
        group_name=native.GROUP,
    )
    return extensions, record


EXTENSIONS, MANIFEST = _compiled_engine()


def _write_manifest(build_lib: str, in_source: bool, record: dict[str, object]) -> None:
    targets = [Path(build_lib) / native.MANIFEST]
    if in_source:
        targets.append(ROOT / native.MANIFEST)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    for target in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _parallel(compiler: Any, jobs: int) -> None:
    """Make ``compiler.compile`` compile its sources ``jobs`` at a time (distutils compiles the
    sources of one extension one after another; mypyc's multi-file group has one per module).
    Left serial if this distutils lacks the private steps it reuses."""
    if jobs < 2 or not all(hasattr(compiler, a) for a in ("_setup_compile", "_get_cc_args")):
        return

    def compile(
        sources: list[str],
        output_dir: str | None = None,
        macros: Any = None,
        include_dirs: Any = None,
        debug: bool = False,
        extra_preargs: Any = None,
        extra_postargs: Any = None,
        depends: Any = None,
    ) -> list[str]:
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj: str) -> None:
            if obj in build:
                src, ext = build[obj]
                compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        # The biggest sources first, so the longest compile does not start last.
        order = sorted(objects, key=lambda o: -os.path.getsize(build[o][0]) if o in build else 0)
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, order))
        return objects

    compiler.compile = compile


class BuildEngine(build_ext):
    """``build_ext`` that compiles in parallel and writes the compiled engine's manifest once
    every extension is built: into the build tree (for wheels) and, for in-place and editable
    builds, beside the sources."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = JOBS

    def build_extensions(self) -> None:
        _parallel(self.compiler, JOBS)
        super().build_extensions()

    def run(self) -> None:
        # A stale manifest must never vouch for a half-finished build.
        (ROOT / native.MANIFEST).unlink(missing_ok=True)
        super().run()
        if MANIFEST is None:
            return
        in_source = bool(self.inplace or getattr(self, "editable_mode", False))
        _write_manifest(self.build_lib, in_source, MANIFEST)


class BuildPy(build_py):
    """``build_py`` that records why the engine was not compiled, when it was not (``build_ext``
    does not run when there is nothing to compile)."""

    def run(self) -> None:
        super().run()
        if EXTENSIONS:
            return
        # A build folder reused from a compiled build still holds its extension modules: an
        # interpreted wheel must not pick them up.
        for stale in Path(self.build_lib).glob(f"{native.GROUP}__mypyc*"):
            stale.unlink()
        for pattern in ("*.so", "*.pyd"):
            for stale in Path(self.build_lib, "arbiter").rglob(pattern):
                stale.unlink()
        if MANIFEST is not None:
            _write_manifest(self.build_lib, bool(getattr(self, "editable_mode", False)), MANIFEST)


PACKAGES = [
    *find_packages(include=["arbiter", "arbiter.*"]),
    "arbiter.compiler.templates",
    "arbiter.compiler.schemas",
]

setup(
    packages=PACKAGES,
    ext_modules=EXTENSIONS,
    cmdclass={"build_ext": BuildEngine, "build_py": BuildPy},
)
