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
from arbiter.bridge.engine.outcomes import outcome_of
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


_CONTEXTS: dict[int, tuple[RulesetBase, str, dict[str, Any]]] = {}
"""The validation context of each rules object :func:`validate_body` was given, by its ``id``
(with the rules themselves, so the id is not reused while kept, and the ruleset id they were
served under): one context per rules, as the server keeps one per snapshot, so the bounds and
views a context caches are read from the rules once, not on every request."""

_CONTEXTS_KEPT = 32
"""Rules objects whose contexts are kept before starting afresh (a reload makes a new one)."""


def validate_body(engine: Engine, request: Request, rules: RulesetBase | None = None) -> BaseModel:
    """The request body validated by the engine's model for ``request.type``; under ``rules``
    (the rules of ``request.ruleset``) the ids a stat block names must be in the rule data
    (:mod:`arbiter.bridge.engine.rule_context`). A body validated already is taken as it is."""
    # The request's fields read from its __dict__, not as attributes: a pydantic model's
    # attribute read goes through its class's __getattr__ hook (about 800 instructions each,
    # interpreted or compiled), and this runs on every request.
    return _validated(engine, request.__dict__, rules)


def _validated(engine: Engine, fields: dict[str, Any], rules: RulesetBase | None) -> BaseModel:
    """:func:`validate_body` of the request whose ``__dict__`` is ``fields``."""
    kind: str = fields["type"]
    ruleset: str = fields["ruleset"]
    model = engine.requests.get(kind)
    if model is None:
        known = ", ".join(sorted(engine.requests))
        raise RequestError(
            f"unknown request type {kind!r} for ruleset {ruleset!r} (known: {known})"
        )
    body: Any = fields["body"]
    if type(body) is model:
        # Validated already (the server validates the body from the JSON text the client
        # sent): what model_validate would hand back, without a call into pydantic.
        return body
    # The model's validator called directly: what ``model.model_validate`` does with no
    # options but its keyword handling (a few thousand instructions, interpreted, on every
    # request); the same model, the same errors.
    validator = model.__pydantic_validator__
    try:
        if rules is None:
            return validator.validate_python(body)
        kept = _CONTEXTS.get(id(rules))
        if kept is None or kept[0] is not rules or kept[1] != ruleset:
            kept = _kept_context(ruleset, rules)
        return validator.validate_python(body, context=kept[2])
    except ValidationError as err:
        problems = "; ".join(
            f"body.{path}: {message}" for path, message in field_errors(model, body, err)
        )
        raise RequestError(f"invalid {kind!r} request: {problems}") from None


def _kept_context(ruleset: str, rules: RulesetBase) -> tuple[RulesetBase, str, dict[str, Any]]:
    """A new validation context of ``rules`` served as ``ruleset``, kept in :data:`_CONTEXTS`
    (with the rules and the ruleset id it was made for)."""
    if len(_CONTEXTS) >= _CONTEXTS_KEPT:
        _CONTEXTS.clear()
    kept = (rules, ruleset, validation_context({ruleset: rules}))
    _CONTEXTS[id(rules)] = kept
    return kept


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
    # The request's fields (and the rules' version) read from the models' __dict__, not as
    # attributes: see validate_body.
    fields = request.__dict__
    kind: str = fields["type"]
    body = fields["body"]
    if type(body) is not engine.requests.get(kind):  # _validated's own first test, without its call
        body = _validated(engine, fields, rules)
    resolution = engine.resolve(rules, kind, body, state, dice)
    # The envelope built by compiled code (outcomes.py): this runs for every request.
    version: str = rules.__dict__["ruleset"].__dict__["version"]
    return outcome_of(fields, version, rules_hash, resolution, dice)


__all__ = ["EngineError", "Request", "RequestError", "resolve", "resolve_with", "validate_body"]
