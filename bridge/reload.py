"""Hot rules: poll the rule sources, and on a change reload, rebuild the module and swap.

No new dependency: the watcher compares each file's (mtime, size) every ``interval`` seconds.
A change is loaded off the event loop. A valid change rebuilds the module and replaces the
server's :class:`~arbiter.bridge.rules.RulesSnapshot` in one assignment (requests already deciding hold
the old snapshot and finish on it), then every client subscribed to ``rules`` hears
``rules_updated``. An invalid change keeps the old rules and GM clients hear ``rules_error``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.compiler.errors import RuleError

log = logging.getLogger("arbiter.reload")

Signature = tuple[tuple[str, int, int], ...]


def signature(files: list[Path]) -> Signature:
    """What the watcher compares: every file with its modification time and size."""
    out = []
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        out.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


class RulesWatcher:
    """Polls ``source`` and calls back with a new snapshot or with the problems of a bad change."""

    def __init__(
        self,
        source: RuleSource,
        interval: float,
        on_rules: Callable[[RulesSnapshot], Awaitable[None]],
        on_error: Callable[[list[str]], Awaitable[None]],
    ) -> None:
        self.source = source
        self.interval = interval
        self.on_rules = on_rules
        self.on_error = on_error
        self.last = signature(source.files())

    async def run(self) -> None:
        """Poll forever (until cancelled)."""
        while True:
            await asyncio.sleep(self.interval)
            await self.check()

    async def check(self) -> bool:
        """Reload if the sources changed since the last check; True when something changed."""
        current = await asyncio.to_thread(lambda: signature(self.source.files()))
        if current == self.last:
            return False
        self.last = current
        try:
            rulesets = await asyncio.to_thread(self.source.load)
        except RuleError as err:
            problems = [str(p) for p in err.problems]
            log.warning("rule change refused, the previous rules keep serving:\n%s", err.report())
            await self.on_error(problems)
            return True
        except Exception as err:  # a crash in a model's own checks must not stop serving
            log.exception("rule change could not be loaded")
            await self.on_error([f"the rules could not be loaded: {err}"])
            return True
        await self.on_rules(snapshot(rulesets))
        return True
