"""Keep the Foundry module in step with the rules the server decides with.

The compiler (``arbiter.compiler.foundry.build.build_module``) skips work when nothing changed, so
"build if stale" is simply "build": a fresh module costs a fraction of a second. The server calls
this at start and after every valid rule change, off the event loop.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

from arbiter.bridge.rules import RuleSource
from arbiter.compiler.paths import DEFAULT_OUT

log = logging.getLogger("arbiter.build")

MODULE_ID = "arbiter"
DEFAULT_MODULE_DIR = DEFAULT_OUT / MODULE_ID
"""Where ``arbiter build`` writes by default: the checkout's ``module_output/arbiter``, or
``./module_output/arbiter`` when installed from a wheel (``arbiter.compiler.paths``)."""


class ModuleBuildUnavailable(RuntimeError):
    """This installation has no module compiler (``arbiter.compiler.foundry.build``)."""


def build_module(module_dir: Path, source: RuleSource) -> object:
    """Build (or confirm up to date) the module folder ``module_dir``; returns the build report.

    ``module_dir`` is the folder holding module.json; its name must be the module id
    (``arbiter``), since the compiler writes ``<out>/arbiter``. Raises RuleError for bad rules
    (nothing is written), ModuleBuildUnavailable when the compiler is missing, and whatever the
    compiler raises when it must refuse (packs held open by a running Foundry world, a build
    already under way).
    """
    try:
        build = importlib.import_module("arbiter.compiler.foundry.build")
    except ModuleNotFoundError as err:
        if err.name is not None and "arbiter.compiler.foundry.build".startswith(err.name):
            raise ModuleBuildUnavailable(
                "this installation cannot build the Foundry module (arbiter.compiler.foundry.build is "
                "missing); /module.json and /module.zip serve whatever is already built"
            ) from None
        raise
    if module_dir.name != MODULE_ID:
        raise ValueError(f"the module folder must be named {MODULE_ID!r}, not {module_dir.name!r}")
    return build.build_module(module_dir.parent, source.root, source.overlay)
