"""The outcome envelope of a decided request (:func:`arbiter.bridge.engine.envelope.resolve_with`).

A module of its own, free of pydantic, so that it is compiled with the engine: an envelope is
built for every request the server decides, and built here it costs a fraction of the same
dict display, list of dice and copy of the private part run interpreted.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.dice import Dice
from arbiter.bridge.engine.resolution import JSON, Resolution


def outcome_of(
    fields: dict[str, Any],
    rules_version: str,
    rules_hash: str,
    resolution: Resolution,
    dice: Dice,
) -> JSON:
    """The outcome envelope (JSON-able) of the request whose fields are ``fields`` (its
    ``__dict__``), decided under rules ``rules_version`` and ``rules_hash`` as ``resolution``,
    rolling ``dice``: its keys in the order ``docs/requests.md`` gives (the log's bytes depend on
    it), every die rolled, and a copy of the private part."""
    rolled: list[JSON] = []
    for die in dice.records:  # a loop, not a comprehension: no frame of its own
        rolled.append(die.to_json())
    return {
        "id": fields["id"],
        "ruleset": fields["ruleset"],
        "type": fields["type"],
        "encounter": fields["encounter"],
        "rules_version": rules_version,
        "rules_hash": rules_hash,
        "result": resolution.result,
        "dice": rolled,
        "state": resolution.state,
        "private": dict(resolution.private),
    }
