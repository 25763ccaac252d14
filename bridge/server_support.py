"""What the server of one world and a host of many both need: the heap settled once the rules
are loaded, the version they announce, and the module rebuilt for the rules served."""

from __future__ import annotations

import asyncio
import gc
import logging
from importlib.metadata import PackageNotFoundError, version

from arbiter.bridge.building import build_module
from arbiter.bridge.server_config import ServerConfig
from arbiter.compiler.errors import RuleError

log = logging.getLogger("arbiter.server")

YOUNG_THRESHOLD = 7000
"""Net allocations of container objects between two collections of the youngest generation
(:func:`settle_heap`): ten times Python's default."""


def settle_heap() -> None:
    """Collect what is garbage now, then exempt every live object from later collections.

    The rules (hundreds of thousands of objects, alive as long as they serve) would otherwise be
    walked by every full collection: a pause of tens of milliseconds on the event loop, under
    load every few thousand messages. Frozen objects are still freed when nothing refers to
    them; the collection before freezing (and after :func:`gc.unfreeze`, on a rule change)
    frees the cycles of rules that no longer serve.

    The youngest generation is then collected after :data:`YOUNG_THRESHOLD` net allocations
    of container objects rather than Python's 700: a request leaves no reference cycle (its
    objects are freed by reference counting), but the requests a group commit holds at once
    (100 connections' worth) outgrow 700, so a collection that finds nothing ran every ~50
    requests (~290k instructions each, ~6k a request at 100 connections).
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


def server_version() -> str:
    try:
        return version("vtt-arbiter")
    except PackageNotFoundError:
        return "0.0.0"


async def rebuild_module(config: ServerConfig) -> None:
    """Build ``config``'s module off the event loop (a no-op when it is up to date); raises
    RuleError for rules that do not compile, logs any other failure (the rules still serve)."""
    module_dir = config.module_dir
    if module_dir is None:
        return
    try:
        report = await asyncio.to_thread(build_module, module_dir, config.rules)
    except RuleError:
        raise
    except Exception as err:
        # Unavailable compiler, packs held open by a running world, a concurrent build: the
        # rules still serve; the module on disk stays as it was until the next change.
        log.warning("module not rebuilt: %s", err)
        return
    describe = getattr(report, "describe", None)
    log.info("module %s", describe() if callable(describe) else report)


__all__ = ["rebuild_module", "server_version", "settle_heap"]
