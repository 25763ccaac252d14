"""Keep the Foundry module in step with the rules the server decides with.

The compiler (``compiler.foundry.build.build_module``) skips work when nothing changed, so
"build if stale" is simply "build": a fresh module costs a fraction of a second. The server calls
this at start and after every valid rule change, off the event loop.
"""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

from bridge.rules import RuleSource

log = logging.getLogger("arbiter.build")


class ModuleBuildUnavailable(RuntimeError):
    """This installation has no module compiler (``compiler.foundry.build``)."""


def build_module(out_dir: Path, source: RuleSource) -> object:
    """Build (or confirm up to date) the module in ``out_dir``; returns the compiler's report.

    Raises RuleError for bad rules (nothing is written) and ModuleBuildUnavailable when the
    compiler is missing.
    """
    try:
        build = importlib.import_module("compiler.foundry.build")
    except ModuleNotFoundError as err:
        if err.name is not None and "compiler.foundry.build".startswith(err.name):
            raise ModuleBuildUnavailable(
                "this installation cannot build the Foundry module (compiler.foundry.build is "
                "missing); /module.json and /module.zip serve whatever is already built"
            ) from None
        raise
    return build.build_module(out_dir, source.root, source.overlay)
