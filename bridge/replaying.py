"""Resolve a sequence of recorded requests, threading encounter state between them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from arbiter.bridge.engine.contract import JSON, EngineError
from arbiter.bridge.engine.dice import DiceError, DiceSource, ScriptedSource
from arbiter.bridge.engine.envelope import Request, RequestError, resolve
from arbiter.bridge.engine.registry import UnknownRuleset, get_engine
from arbiter.bridge.records import canonical
from arbiter.compiler.model.loader import Ruleset


class ReplayError(ValueError):
    """An entry could not be replayed; the message names the entry.

    ``outcomes`` are those of the entries before it, ``entry`` its number (from 1; None when
    the file itself is wrong), ``request_id`` its id when it has one and ``reason`` the
    message without the entry's name: :func:`error_record` makes them a printable record."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason if reason is not None else message
        self.outcomes: list[JSON] = []
        self.entry: int | None = None
        self.request_id: str | None = None


def error_record(err: ReplayError) -> JSON:
    """The refusal as one more record after the outcomes that led to it."""
    return {"entry": err.entry, "id": err.request_id, "error": err.reason}


def recorded_results(dice: list[Any]) -> list[int]:
    """Die results from a recorded list: plain integers or ``{"expr", "faces", "result"}``."""
    out: list[int] = []
    for d in dice:
        if isinstance(d, bool):
            raise ReplayError(f"recorded die {d!r} is not a number")
        if isinstance(d, int):
            out.append(d)
        elif isinstance(d, Mapping) and isinstance(d.get("result"), int):
            out.append(d["result"])
        else:
            raise ReplayError(f"recorded die {d!r} is neither an integer nor a die record")
    return out


def replay_entries(
    entries: list[Any], rulesets: Mapping[str, Ruleset], fallback: DiceSource
) -> list[JSON]:
    """Outcomes of ``entries`` in order; a ReplayError at the first entry refused (carrying
    the outcomes before it).

    An entry is a request (``id``, ``ruleset``, ``type``, ``body``, optional ``encounter``) plus
    optional ``dice`` (recorded results; used in order, all must be used) and ``state`` (the
    encounter state before it). Without ``state``, an entry continues the state left by the
    previous entry of the same encounter. Without ``dice``, ``fallback`` rolls.
    """
    if not isinstance(entries, list):
        raise ReplayError("the file must hold a list of requests or {'requests': [...]}")
    states: dict[str, JSON | None] = {}
    outcomes: list[JSON] = []
    for n, entry in enumerate(entries, start=1):
        try:
            outcomes.append(_replay_one(n, entry, rulesets, fallback, states))
        except ReplayError as err:
            err.outcomes = outcomes
            err.entry = n
            if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                err.request_id = entry["id"]
            raise
    return outcomes


def _replay_one(
    n: int,
    entry: Any,
    rulesets: Mapping[str, Ruleset],
    fallback: DiceSource,
    states: dict[str, JSON | None],
) -> JSON:
    """The outcome of entry number ``n``; ``states`` (by encounter) is threaded on."""
    if not isinstance(entry, Mapping):
        raise ReplayError(f"entry #{n} is not an object", "not an object")
    fields = {k: v for k, v in entry.items() if k not in ("dice", "state")}
    try:
        request = Request.model_validate(fields)
    except ValidationError as err:
        first = err.errors()[0]
        reason = f"{first['loc']}: {first['msg']}"
        raise ReplayError(f"entry #{n}: {reason}", reason) from None
    ruleset = rulesets.get(request.ruleset)
    if ruleset is None:
        reason = f"unknown ruleset {request.ruleset!r}"
        raise ReplayError(f"entry #{n} ({request.id}): {reason}", reason)
    scripted = "dice" in entry and entry["dice"] is not None
    try:
        source: DiceSource = (
            ScriptedSource(recorded_results(entry["dice"])) if scripted else fallback
        )
    except ReplayError as err:
        raise ReplayError(f"entry #{n} ({request.id}): {err}", str(err)) from None
    key = request.encounter
    state = entry["state"] if "state" in entry else states.get(key) if key else None
    try:
        engine = get_engine(request.ruleset)
        outcome = resolve(request, engine, ruleset.model, ruleset.content_hash, state, source)
    except (UnknownRuleset, RequestError, EngineError, DiceError) as err:
        raise ReplayError(f"entry #{n} ({request.id}): {err}", str(err)) from None
    if scripted and isinstance(source, ScriptedSource) and source.remaining:
        reason = f"{source.remaining} recorded dice were not used"
        raise ReplayError(f"entry #{n} ({request.id}): {reason}", reason)
    if key is not None and outcome["state"] is not None:
        # The next request reads the state as the server would: back from the roll log's
        # canonical JSON (keys sorted). Engines iterate some of it in key order (e.g. the
        # combatants an initiative rolls for), so in-memory order would roll differently.
        states[key] = json.loads(canonical(outcome["state"]))
    return outcome
