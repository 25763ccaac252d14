"""Reading a client frame once: parse and validate in one pass, straight from its text.

A request's body is validated by its request type's model, which depends on the served rules:
the generic :data:`~arbiter.bridge.protocol.CLIENT_MESSAGE` can only take the body as untyped JSON, to be
validated again once the ruleset and type are known. :class:`FrameReader` builds, for a set of
served engines, one pydantic validator of every client message in which a request's envelope is
a union discriminated by ``ruleset`` and then by ``type``, its ``body`` the request type's own
model: pydantic parses the frame's JSON and validates the whole message, body included, in one
pass in Rust, in strict JSON mode (``"5"`` is not 5, as everywhere in the protocol).
The stat blocks' bounds (the served data's ``stat_block_limits``) are written into that validator
as native constraints, once per snapshot of the rules (:func:`bounded_validator`), so they too
are checked in Rust, with no Python call per field.

That fast path is all or nothing. A frame it refuses for any reason (bad JSON, an unknown
ruleset or type, a wrong field, an integer too long, a lone surrogate, a missing body …) is
read again by the slow path (:func:`arbiter.bridge.protocol.parse_client`, then the body's own strict
validation when the request is decided), which names exactly what is wrong, in the order the
protocol promises (who may act before the idempotency lookup, before the body). A frame the
fast path accepts is one the slow path accepts too, with the same validated body.

The request is also kept as the client sent it (:class:`Sent`): the roll log keeps that, not
the validated form (which fills in defaults and normalises values), and :mod:`arbiter.bridge.authority`
reads the participants a request acts for from it. A frame of the client's own shape,
``{"v":1,"type":"request","request":{…}}``, takes the envelope route (:meth:`FrameReader.read`):
its envelope is validated from its own text, and that text is what the log keeps and hashes,
exactly as written; the body as plain values is read from it only when asked (a player's
request, a request naming stored blocks), never for the GM's usual request.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Any, Literal, Union

import pydantic.main
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    ValidationError,
    create_model,
)
from pydantic_core import SchemaValidator

from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.rule_context import native_bounds
from arbiter.bridge.protocol import Bind, ClientMessage, Hello, Ping, RequestMessage, Subscribe
from arbiter.bridge.stat_block_door import referencing


class Sent:
    """A request message as the fast path read it.

    ``message`` is the message validated (its ``request.body`` the request type's model).
    ``text``, when set, is the request envelope's own JSON text exactly as the client wrote
    it (a slice of the frame): what the roll log keeps, hashed as it is, with no Python copy
    of the body built and serialised again (:attr:`request` is read from it when asked).
    """

    __slots__ = ("_request", "frame", "message", "text")

    def __init__(
        self,
        message: RequestMessage,
        request: dict[str, Any] | None = None,
        frame: str = "",
        text: str | None = None,
    ) -> None:
        """``request`` or ``text`` (or both) is given: the envelope as written, as values or
        as its text."""
        if request is None and text is None:
            raise ValueError("a Sent needs the request as written: its values or its text")
        self.message = message
        self._request = request
        self.frame = frame
        """The frame's text as it came (the vault counts the references written in it)."""
        self.text = text

    @property
    def request(self) -> dict[str, Any]:
        """The request envelope as the client wrote it (``id``, ``ruleset``, ``type``,
        ``body``, ``encounter``, in that order, ``body`` and ``encounter`` filled in with
        their defaults): plain JSON values. Read from :attr:`text` on first use (a player's
        request, whose body the authority reads; a request naming stored blocks)."""
        request = self._request
        if request is None:
            assert self.text is not None  # __init__ takes one or the other
            request = self._request = _written(self.text)
        return request

    def __repr__(self) -> str:
        return f"Sent({self.message!r}, text={self.text!r})"


class _Written(BaseModel):
    """A request envelope's fields as written (already validated strictly by the reader:
    this only reads them back, the body as plain JSON values)."""

    model_config = ConfigDict(extra="ignore")

    id: str
    ruleset: str
    type: str
    body: JsonValue
    encounter: str | None = None


_WRITTEN = _Written.__pydantic_validator__


def _written(text: str) -> dict[str, Any]:
    """The envelope ``text`` holds as plain JSON values, in :attr:`Sent.request`'s form. The
    same parser as the reader's (pydantic's, strict JSON): a key written twice reads as its
    last value in both, so the body read here is the body that was validated."""
    fields: dict[str, Any] = _WRITTEN.validate_json(text, strict=True).__dict__
    return {
        "id": fields["id"],
        "ruleset": fields["ruleset"],
        "type": fields["type"],
        "body": fields["body"],
        "encounter": fields["encounter"],
    }


def _name(*parts: str) -> str:
    return "_".join(re.sub(r"\W", "_", p) for p in parts)


def typed_request(
    ruleset: str, type: str, body: type[BaseModel], written: bool = True
) -> type[Request]:
    """The request envelope of one ruleset's request type, its body validated by ``body``.

    ``written``: the envelope also has ``written_body``, which reads the same key as ``body``,
    as plain JSON values: the body as the client wrote it (for the roll log), from the same
    parse of the frame, no second one. It is left out of every dump of the envelope. (The
    reader's envelope route keeps the envelope's text instead, and reads no such copy.)
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


_ENVELOPE = re.compile(
    r"""
    \s* \{ \s*
    (?: "v" \s* : \s* 1 \s* , \s* "type" \s* : \s* "request"
      | "type" \s* : \s* "request" \s* , \s* "v" \s* : \s* 1 )
    \s* , \s* "request" \s* : \s*
    """.replace("\\s", "[ \\t\\n\\r]"),  # JSON's whitespace only, not Unicode's
    re.VERBOSE,
)
"""The opening of a request frame whose members are ``v`` (1), ``type`` (``"request"``) and
then ``request``, written plainly (JSON's whitespace between tokens, no escapes): what the
client's ``JSON.stringify`` of ``{v: 1, type: "request", request}`` writes."""
_JSON_WHITESPACE = " \t\n\r"


class FrameReader:
    """The fast path of message reading for one set of served engines."""

    def __init__(
        self, engines: Mapping[str, Engine], context: dict[str, Any] | None = None
    ) -> None:
        """``context``: the served rules (:attr:`arbiter.bridge.rules.RulesSnapshot.context`),
        so the fast path refuses a stat block naming an id the rule data lacks, as the slow
        path does."""
        self._adapter = bounded_validator(client_messages(engines), context)
        self._referencing = bounded_validator(client_messages(engines, references=True), context)
        self._context = context
        # The envelope route (see read): each request envelope validated from its own text,
        # and the message around it.
        self._envelopes: tuple[_Envelopes, _Envelopes] | None = None
        plain = typed_requests(engines, written=False)
        if plain is not None:
            referencing_ = typed_requests(engines, references=True, written=False)
            self._envelopes = (
                _envelopes(engines, plain, context),
                _envelopes(engines, referencing_, context),
            )

    def read(self, frame: str) -> ClientMessage | Sent | None:
        """The message ``frame`` holds, validated in one pass (a request as :class:`Sent`),
        or None when the fast path refuses it (the slow path then says why).

        A frame that may name a stored stat block (it holds ``"stored"``) is read by the
        referencing validator, which takes every frame the other does, each the same, and
        references to stored blocks where stat blocks go: such a request's body must be
        plugged (:func:`arbiter.bridge.stat_block_door.plugged`, by the vault) before it is
        decided. (A reference written with escapes takes the slow path: slower, the same.)

        The envelope route: a frame that opens ``{"v":1,"type":"request","request":`` (the
        first two in either order, whitespace between tokens) and ends with the envelope's
        closing brace and its own (:data:`_ENVELOPE`) is ``{v, type, request}``, nothing
        else, exactly when the text between is one JSON value. That text is validated as the
        envelope (a JSON parser takes one value, nothing after it), the message is built
        around it, and the text is kept as written for the log (:attr:`Sent.text`): no copy
        of the body as plain values. Validation is the same as the whole frame's (the
        envelope's validator is the one the frame's ``request`` member is validated with); a
        frame of any other shape, or one the route refuses, is validated whole as before."""
        referencing = '"stored"' in frame
        envelopes = self._envelopes
        if envelopes is not None:
            text = _envelope_text(frame)
            if text is not None:
                requests, message_class = envelopes[referencing]
                try:
                    typed = requests.validate_json(text, strict=True, context=self._context)
                except ValidationError:
                    pass  # validated whole below: refused there too, or of another shape
                else:
                    return Sent(_around(message_class, typed), None, frame, text)
        adapter = self._referencing if referencing else self._adapter
        try:
            message = adapter.validate_json(frame, strict=True, context=self._context)
        except ValidationError:
            return None
        if not isinstance(message, RequestMessage):
            return message
        # The request as written, for the log. The envelope's own fields are plain strings,
        # the same validated as written; the body as written came with the same parse
        # (typed_request's ``written_body``), since the validated body is no longer that.
        typed = message.request
        request = {
            "id": typed.id,
            "ruleset": typed.ruleset,
            "type": typed.type,
            "body": typed.written_body,  # type: ignore[attr-defined]
            "encounter": typed.encounter,
        }
        return Sent(message, request, frame)


_PLAIN_OPENINGS = ('{"v":1,"type":"request","request":', '{"v": 1, "type": "request", "request": ')
"""The openings :data:`_ENVELOPE` matches as ``JSON.stringify`` and ``json.dumps`` write them:
a prefix test is cheaper than the pattern."""


def _envelope_text(frame: str) -> str | None:
    """The text between a request frame's opening (:data:`_ENVELOPE`) and its closing brace,
    the whitespace around it trimmed; None for a frame that does not open and close so."""
    if frame.startswith(_PLAIN_OPENINGS[0]):
        start = len(_PLAIN_OPENINGS[0])
    elif frame.startswith(_PLAIN_OPENINGS[1]):
        start = len(_PLAIN_OPENINGS[1])
    else:
        opening = _ENVELOPE.match(frame)
        if opening is None:
            return None
        start = opening.end()
    if frame.endswith("}"):
        text = frame[start:-1]
    else:
        closed = frame.rstrip(_JSON_WHITESPACE)
        if not closed.endswith("}"):
            return None
        text = closed[start:-1]
    return text.rstrip(_JSON_WHITESPACE) if text.endswith(tuple(_JSON_WHITESPACE)) else text


_Envelopes = tuple[SchemaValidator, type[RequestMessage]]
"""The envelope route's validator of a request envelope's text, and the message class around
the envelope it validated."""


def _envelopes(engines: Mapping[str, Engine], requests: Any, context: Any) -> _Envelopes:
    """The envelope route's validator and message class for ``requests``
    (:func:`typed_requests`)."""
    message: type[RequestMessage] = create_model(
        _name("RequestEnvelopeMessage", *sorted(engines)),
        __base__=RequestMessage,
        request=(requests, ...),
    )
    # _around writes the fields in this order, as validation does.
    assert list(message.model_fields) == list(_AROUND), list(message.model_fields)
    assert not message.__private_attributes__ and message.model_config.get("extra") == "forbid"
    return bounded_validator(TypeAdapter(requests), context), message


_AROUND = {"v": 1, "type": "request", "request": None, "dice": None, "player": None}
_AROUND_GIVEN = frozenset(("v", "type", "request"))
_set = object.__setattr__


def _around(message_class: type[RequestMessage], request: Request) -> RequestMessage:
    """The message of ``message_class`` that validating ``{"v": 1, "type": "request",
    "request": …}`` gives, its ``request`` validated already: built without a second
    validation (a python-mode pass over the instance costs as much as an eighth of the
    envelope's), as ``model_construct`` builds it (without its per-field Python loop)."""
    out = message_class.__new__(message_class)
    _set(out, "__dict__", {**_AROUND, "request": request})
    _set(out, "__pydantic_fields_set__", set(_AROUND_GIVEN))
    _set(out, "__pydantic_extra__", None)
    _set(out, "__pydantic_private__", None)
    return out


__all__ = [
    "FrameReader",
    "Sent",
    "bounded_validator",
    "client_messages",
    "typed_request",
    "typed_requests",
]
