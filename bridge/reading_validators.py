"""The validators of the reader's fast path (:mod:`arbiter.bridge.reading`): every client
message in one pydantic validator, each request's body typed by its request type's model
(:func:`client_messages`), with the stat blocks' bounds of one snapshot of the rules written
into it as native constraints (:func:`bounded_validator`)."""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Any, Literal, Union

import pydantic.main
from pydantic import BaseModel, Field, JsonValue, TypeAdapter, create_model
from pydantic_core import SchemaValidator

from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.rule_context import native_bounds
from arbiter.bridge.protocol import Bind, ClientMessage, Hello, Ping, RequestMessage, Subscribe
from arbiter.bridge.stat_block_door import referencing


def _name(*parts: str) -> str:
    return "_".join(re.sub(r"\W", "_", p) for p in parts)


def typed_request(
    ruleset: str, type: str, body: type[BaseModel], written: bool = True
) -> type[Request]:
    """The request envelope of one ruleset's request type, its body validated by ``body``.

    ``written``: the envelope also has ``written_body``, which reads the same key as ``body``,
    as plain JSON values: the body as the client wrote it (for the roll log), from the same
    parse of the frame, no second one. It is left out of every dump of the envelope. (The
    reader's envelope route reads the log's text of the envelope instead: :attr:`~arbiter.bridge.reading.Sent.text`.)
    """
    # Literal of a run-time value: a type only pydantic sees, so Any to mypy.
    ruleset_literal: Any = Literal[ruleset]
    type_literal: Any = Literal[type]
    fields: dict[str, Any] = {
        "ruleset": (ruleset_literal, ...),
        "type": (type_literal, ...),
        "body": (body, ...),
    }
    if written:
        fields["written_body"] = (
            JsonValue,
            Field(validation_alias="body", exclude=True, repr=False),
        )
    return create_model(_name("Request", ruleset, type), __base__=Request, **fields)


def _union(members: list[Any], discriminator: str) -> Any:
    if len(members) == 1:
        return members[0]
    return Annotated[Union[tuple(members)], Field(discriminator=discriminator)]  # noqa: UP007


def typed_requests(
    engines: Mapping[str, Engine], references: bool = False, written: bool = True
) -> Any:
    """The request envelope of every served request type, discriminated by ``ruleset`` and
    then by ``type`` (:func:`typed_request` of each), or None without any request type.

    ``references``: a body that holds stat blocks is typed by its referencing model instead
    (:func:`arbiter.bridge.stat_block_door.referencing`: each block may be a reference to a
    stored one, plugged in before the request is decided)."""
    per_ruleset = []
    for rid, engine in sorted(engines.items()):
        members = [
            typed_request(rid, t, (references and referencing(rid, m)) or m, written)
            for t, m in sorted(engine.requests.items())
        ]
        if members:
            per_ruleset.append(_union(members, "type"))
    if not per_ruleset:
        return None
    return _union(per_ruleset, "ruleset")


def client_messages(
    engines: Mapping[str, Engine], references: bool = False
) -> TypeAdapter[ClientMessage]:
    """A validator of every client message, each request's body typed by its request type.

    ``references``: a body that holds stat blocks is typed by its referencing model instead
    (:func:`typed_requests`). Without any engine it is the generic one (no request can be
    decided anyway).
    """
    requests = typed_requests(engines, references)
    if requests is None:
        # A subset of ClientMessage (no request can be decided); Annotated is a special form
        # mypy does not take as a type argument, so Any.
        control: Any = Annotated[Hello | Ping | Subscribe | Bind, Field(discriminator="type")]
        return TypeAdapter(control)
    typed = create_model(
        _name("RequestMessage", *sorted(engines)),
        __base__=RequestMessage,
        request=(requests, ...),
    )
    # The fast path's subset of ClientMessage (any other frame takes the slow path).
    fast: Any = Annotated[
        Union[Hello, typed, Ping, Subscribe, Bind],  # noqa: UP007
        Field(discriminator="type"),
    ]
    return TypeAdapter(fast)


def bounded_validator(adapter: TypeAdapter[Any], context: dict[str, Any] | None) -> SchemaValidator:
    """The validator of ``adapter`` with the stat blocks' bounds under ``context``'s rules
    written into it (:func:`~arbiter.bridge.engine.rule_context.native_bounds`): checked in
    Rust, in the same pass, accepting exactly what ``adapter`` accepts under ``context``, into
    the same models.

    pydantic-core builds a nested model from its class's own validator when the class is
    complete, whatever the schema says of it; so each model whose schema the bounds changed is
    marked incomplete while this validator is built (under pydantic's lock of model builds),
    and complete again after: its own validator is not touched."""
    if context is None:
        return SchemaValidator(adapter.core_schema)
    models: set[type] = set()
    schema = native_bounds(adapter.core_schema, context, models)
    with _BOUNDING, _MODEL_BUILDS:
        marked = [m for m in models if m.__dict__.get("__pydantic_complete__") is True]
        try:
            for model in marked:
                model.__pydantic_complete__ = False  # type: ignore[attr-defined]
            return SchemaValidator(schema)
        finally:
            for model in marked:
                model.__pydantic_complete__ = True  # type: ignore[attr-defined]


_MODEL_BUILDS: AbstractContextManager[Any] = getattr(pydantic.main, "_rebuild_lock", nullcontext())
"""pydantic's lock of model (re)builds, which set ``__pydantic_complete__`` too (a private name:
without it, no model of the request bodies is rebuilt while a snapshot is read anyway)."""
_BOUNDING = threading.Lock()
"""One :func:`bounded_validator` build at a time (snapshots are built in threads: a world's own
rules, a reload): another build must not restore a model this one marked incomplete in the
middle of this one (that model's part would then be its own validator: its checks, in Python).
A bound is never lost either way: what is written into a nested model's schema is only ever
what that model's own validator checks too (:func:`~arbiter.bridge.engine.rule_context._bounded`)."""


__all__ = [
    "bounded_validator",
    "client_messages",
    "typed_request",
    "typed_requests",
]
