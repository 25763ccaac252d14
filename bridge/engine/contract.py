"""The contract between a ruleset engine and whatever drives it (server, replay, tests).

Each ruleset has a package ``arbiter.bridge.engine.<id with _>`` (``combat_styles``, ``hmk``,
``karmic``) exposing ``ENGINE``, an object satisfying :class:`Engine`. An engine is pure: it is
given the validated rules, a validated request body, the encounter state (a JSON-able dict, or
None) and a recording :class:`~arbiter.bridge.engine.dice.Dice`, and returns a :class:`Resolution`.
It performs no I/O, reads no clock and uses no randomness other than ``dice``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pydantic import BaseModel

from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.resolution import JSON as JSON
from arbiter.bridge.engine.resolution import Resolution as Resolution
from arbiter.compiler.model.common import RulesetBase


class EngineError(ValueError):
    """A request that is valid in shape but illegal in the rules or the current state.

    The message says why (e.g. "Bram has no action points left this cycle"); the server sends it
    back as an error reply and nothing is logged as a roll.
    """


class Engine(Protocol):
    """A ruleset engine."""

    @property
    def ruleset_id(self) -> str: ...

    @property
    def requests(self) -> Mapping[str, type[BaseModel]]:
        """Request type name → pydantic model of its body."""
        ...

    def resolve(
        self,
        rules: RulesetBase,
        kind: str,
        body: BaseModel,
        state: JSON | None,
        dice: Dice,
    ) -> Resolution: ...
