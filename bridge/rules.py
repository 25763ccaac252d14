"""The rules the server decides with: loaded from the rule sources, paired with their engines.

A :class:`RulesSnapshot` is immutable. The server holds one and replaces it whole when the rule
sources change (``reload.py``), so a request that picked up a snapshot finishes on it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from arbiter.bridge.engine import registry
from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.bridge.protocol import RulesetInfo
from arbiter.bridge.reading import FrameReader
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import (
    RULES_ROOT,
    Ruleset,
    available_rulesets,
    load_all,
    load_ruleset,
)

log = logging.getLogger("arbiter.rules")


@dataclass(frozen=True)
class RuleSource:
    """Where the rules come from: the bundled root and an optional house-rule overlay folder.

    ``models`` overrides the model class of a ruleset id (tests serve small rulesets); without it
    the loader's convention applies.
    """

    root: Path = RULES_ROOT
    overlay: Path | None = None
    models: Mapping[str, type[RulesetBase]] = field(default_factory=dict)

    def load(self) -> dict[str, Ruleset]:
        """Every ruleset, validated; raises RuleError listing every problem."""
        if not self.models:
            return load_all(self.root, self.overlay)
        return {
            rid: load_ruleset(rid, root=self.root, overlay=self.overlay, model=self.models.get(rid))
            for rid in available_rulesets(self.root)
        }

    def files(self) -> list[Path]:
        """Every rule source file (what the watcher polls)."""
        found = sorted(self.root.glob("*/*.toml"))
        if self.overlay is not None and self.overlay.is_dir():
            found += sorted(self.overlay.glob("*/*.toml"))
        return found


@dataclass(frozen=True)
class Served:
    """A ruleset the server decides requests for."""

    ruleset: Ruleset
    engine: Engine

    def info(self) -> RulesetInfo:
        meta = self.ruleset.model.ruleset
        return RulesetInfo(
            title=meta.title,
            version=meta.version,
            hash=self.ruleset.content_hash,
            requests=sorted(self.engine.requests),
        )


@dataclass(frozen=True)
class RulesSnapshot:
    """An immutable set of served rulesets, by id."""

    served: Mapping[str, Served]
    skipped: tuple[str, ...] = ()
    """Rulesets whose data loaded but that have no engine yet."""

    def info(self) -> dict[str, RulesetInfo]:
        return {rid: s.info() for rid, s in sorted(self.served.items())}

    @cached_property
    def models(self) -> Mapping[str, RulesetBase]:
        """Each served ruleset's rule model, by id."""
        return MappingProxyType({rid: s.ruleset.model for rid, s in self.served.items()})

    @cached_property
    def context(self) -> dict[str, Any]:
        """The pydantic validation context of request bodies and stat blocks under these rules
        (:mod:`arbiter.bridge.engine.rule_context`)."""
        return validation_context(self.models)

    @cached_property
    def reader(self) -> FrameReader:
        """The one-pass reader of client messages, request bodies typed by these engines."""
        return FrameReader({rid: s.engine for rid, s in self.served.items()}, self.context)


def snapshot(
    rulesets: Mapping[str, Ruleset],
    find_engine: Callable[[str], Engine] | None = None,
) -> RulesSnapshot:
    """Pair every loaded ruleset with its engine; rulesets without one are skipped, not fatal."""
    find = find_engine or registry.get_engine
    served: dict[str, Served] = {}
    skipped: list[str] = []
    for rid, ruleset in sorted(rulesets.items()):
        try:
            engine = find(rid)
        except registry.UnknownRuleset:
            skipped.append(rid)
            log.warning("ruleset %s has rule data but no engine; not served", rid)
            continue
        served[rid] = Served(ruleset, engine)
    return RulesSnapshot(MappingProxyType(served), tuple(skipped))
