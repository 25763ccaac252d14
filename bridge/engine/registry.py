"""Find a ruleset's engine by convention: ``arbiter.bridge.engine.<id with _>.ENGINE``."""

from __future__ import annotations

import importlib
from functools import cache

from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.tables import WithTableDraws


class UnknownRuleset(LookupError):
    """No engine exists for the requested ruleset id."""


@cache
def get_engine(ruleset_id: str) -> Engine:
    """The engine of ``ruleset_id`` (answering ``draw`` too); UnknownRuleset when there is none."""
    if not ruleset_id.replace("-", "").replace("_", "").isalnum():
        raise UnknownRuleset(f"unknown ruleset {ruleset_id!r}")
    name = f"arbiter.bridge.engine.{ruleset_id.replace('-', '_')}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is not None and name.startswith(err.name):
            raise UnknownRuleset(f"unknown ruleset {ruleset_id!r}") from None
        raise
    engine = getattr(module, "ENGINE", None)
    if engine is None:
        raise UnknownRuleset(f"ruleset {ruleset_id!r} has no engine")
    return WithTableDraws(engine)
