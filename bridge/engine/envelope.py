"""The request/outcome envelope shared by ``arbiter replay``, the server and the tests.

A request names its ruleset and type and carries a body; the outcome repeats the request's id,
names the rules it was decided under (version and content hash), and lists every die rolled.
See ``docs/requests.md``. Pure: dice come from the injected source.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from arbiter.bridge.engine.contract import JSON, Engine, EngineError
from arbiter.bridge.engine.dice import Dice, DiceSource
from arbiter.bridge.engine.field_errors import field_errors
from arbiter.bridge.engine.rule_context import validation_context
from arbiter.compiler.model.common import RulesetBase


class Request(BaseModel):
    """One request: ``type`` is one of the engine's request kinds, ``body`` its fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=128)
    ruleset: str = Field(min_length=1, max_length=64)
    type: str = Field(min_length=1, max_length=64)
    body: dict[str, Any] = Field(default_factory=dict)
    encounter: str | None = Field(default=None, max_length=128)


class RequestError(ValueError):
    """The request is malformed for its engine; the message names the field."""


def validate_body(engine: Engine, request: Request, rules: RulesetBase | None = None) -> BaseModel:
    """The request body validated by the engine's model for ``request.type``; under ``rules``
    (the rules of ``request.ruleset``) the ids a stat block names must be in the rule data
    (:mod:`arbiter.bridge.engine.rule_context`). A body validated already is taken as it is."""
    model = engine.requests.get(request.type)
    if model is None:
        known = ", ".join(sorted(engine.requests))
        raise RequestError(
            f"unknown request type {request.type!r} for ruleset {request.ruleset!r} (known: {known})"
        )
    body: Any = request.body
    if type(body) is model:
        # Validated already (the server validates the body from the JSON text the client
        # sent): what model_validate would hand back, without a call into pydantic.
        return body
    try:
        context = None if rules is None else validation_context({request.ruleset: rules})
        return model.model_validate(body, context=context)
    except ValidationError as err:
        problems = "; ".join(
            f"body.{path}: {message}" for path, message in field_errors(model, body, err)
        )
        raise RequestError(f"invalid {request.type!r} request: {problems}") from None


def resolve(
    request: Request,
    engine: Engine,
    rules: RulesetBase,
    rules_hash: str,
    state: JSON | None,
    source: DiceSource,
) -> JSON:
    """Decide one request; returns the outcome envelope (JSON-able).

    Raises RequestError for a malformed body and EngineError for a move the rules forbid.
    """
    return resolve_with(request, engine, rules, rules_hash, state, Dice(source))


def resolve_with(
    request: Request,
    engine: Engine,
    rules: RulesetBase,
    rules_hash: str,
    state: JSON | None,
    dice: Dice,
) -> JSON:
    """:func:`resolve` rolling with ``dice``: when it raises, ``dice.records`` still holds every
    die rolled before (the server logs a refusal after dice as the request's outcome)."""
    body = validate_body(engine, request, rules)
    resolution = engine.resolve(rules, request.type, body, state, dice)
    return {
        "id": request.id,
        "ruleset": request.ruleset,
        "type": request.type,
        "encounter": request.encounter,
        "rules_version": rules.ruleset.version,
        "rules_hash": rules_hash,
        "result": resolution.result,
        "dice": [d.to_json() for d in dice.records],
        "state": resolution.state,
        "private": dict(resolution.private),
    }


__all__ = ["EngineError", "Request", "RequestError", "resolve", "resolve_with", "validate_body"]
