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
its envelope is validated from its own text, and the log keeps the compact JSON of the values
that validation read (:attr:`Sent.text`), never the client's text itself: a member written twice
is read as its last value (JSON's rule, pydantic's parser), and the first one, never validated,
must not reach the permanent, hashed log. The body as plain values is read back from that text
only when asked (a player's request, a request naming stored blocks).

A body the reader validated before under the same rules, written the same (character for
character), is not validated again: the envelope route keeps bodies it validated
(:class:`_Known`), each with its logged text, and a frame written as the client writes it
(``{"v":1,"type":"request","request":{"id":…,"ruleset":…,"type":…,"body":…,"encounter":…}}``)
whose text after its id is a kept one's takes them (its id checked as the envelope's model
checks it). Validation is a function of the text and the rules, so that is the body
validating it again would give; the engines only read a body (they build their own records
from it).
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Hashable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Annotated, Any, Final, Literal, NamedTuple, Union

import orjson
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
from pydantic_core import SchemaValidator, from_json

from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.rule_context import native_bounds
from arbiter.bridge.protocol import Bind, ClientMessage, Hello, Ping, RequestMessage, Subscribe
from arbiter.bridge.stat_block_door import referencing


class Sent:
    """A request message as the fast path read it.

    ``message`` is the message validated (its ``request.body`` the request type's model).
    ``text``, when set, is what the roll log keeps of the request, hashed as it is: the compact
    JSON of the envelope's values as validation read them, in the order written (a member
    written twice: its last value; never the client's own text). :attr:`request` is read from
    it when asked.
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
        as the text the log keeps."""
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
    reader's envelope route reads the log's text of the envelope instead: :attr:`Sent.text`.)
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
        self._known = _Known()
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

    def read(self, frame: str, keeper: Hashable = None) -> ClientMessage | Sent | None:
        """The message ``frame`` holds, validated in one pass (a request as :class:`Sent`),
        or None when the fast path refuses it (the slow path then says why).

        ``keeper``: whose bodies a kept body may be taken from (:class:`_Known`): frames read
        for another keeper never find a body this one's frames left (the GM's connections
        share theirs; each player has his own: no player can tell by the time an answer takes
        whether somebody else sent a body he guesses). :data:`NOT_KEPT` (a connection before
        its hello, which anybody can open) neither takes nor leaves anything.

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
        around it, and the log keeps the compact JSON of the values read from that text
        (:attr:`Sent.text`, :meth:`_Known.logged`). A body validated before, written the
        same, is taken as it was validated (:meth:`_Known.find`). Validation is the same as
        the whole frame's (the envelope's validator is the one the frame's ``request``
        member is validated with); a frame of any other shape, or one the route refuses, is
        validated whole as before."""
        envelopes = self._envelopes
        known = self._known
        parts = None
        if envelopes is not None and keeper is not NOT_KEPT:
            parts = known.parts(frame)
            found = None if parts is None else known.find(*parts, keeper)
            if found is not None:
                # The frame holds "stored" exactly when the kept one did (find takes no id
                # "stored"): the same envelopes' message.
                message_class = envelopes[found[2]][1]
                return Sent(_around(message_class, found[0]), None, frame, found[1])
        referencing = '"stored"' in frame
        if envelopes is not None:
            text = _envelope_text(frame)
            if text is not None:
                requests, message_class = envelopes[referencing]
                try:
                    typed = requests.validate_json(text, strict=True, context=self._context)
                except ValidationError:
                    pass  # validated whole below: refused there too, or of another shape
                else:
                    logged = known.logged(text, typed, parts, referencing, keeper)
                    if logged is not None:
                        return Sent(_around(message_class, typed), None, frame, logged)
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


_WS = " \t\n\r"
"""JSON's whitespace (not Unicode's)."""
_PLAIN = r'"([^"\\\x00-\x1f]*)"'  # a JSON string without escapes: its text is its value
_HEAD = re.compile(
    (
        r'\{W"id"W:W'
        + _PLAIN
        + r'W,W"ruleset"W:W'
        + _PLAIN
        + r'W,W"type"W:W'
        + _PLAIN
        + r'W,W"body"W:W'
    ).replace("W", f"[{_WS}]*")
)
"""The opening of a request envelope written plainly: ``id``, ``ruleset``, ``type`` (strings
without escapes: each one's text is its value) and then ``body``, whitespace between tokens."""
_ENCOUNTER = re.compile((r'"encounter"W:W(?:null|' + _PLAIN + r")W\}\Z").replace("W", f"[{_WS}]*"))
"""The end of such an envelope when its last member is ``encounter``, null or a string
without escapes (from the member's key on)."""


class _Kept(NamedTuple):
    """A body the envelope route validated, with what the log keeps around it."""

    request: Request
    """The request validated (its id aside: another frame's is written in)."""
    tail: str
    """The log's text of the envelope after its ``id`` (``ruleset``, ``type``, ``body``, any
    ``encounter``, the closing brace)."""
    given: frozenset[str]
    """The request's fields written (:class:`Request`'s fields set)."""
    referencing: bool
    """The frame may name a stored block (it holds ``"stored"``): read by the referencing
    validator, its references plugged in before the request is decided."""


_OPENINGS = tuple(opening + '{"id":"' for opening in _PLAIN_OPENINGS[:1]) + tuple(
    opening + '{"id": "' for opening in _PLAIN_OPENINGS[1:]
)
"""The openings of a request frame up to its request's ``id`` as ``JSON.stringify`` and
``json.dumps`` write them: a frame that opens so and goes on as a kept one did after its id is
read as that one (:meth:`_Known.find`)."""


NOT_KEPT: Final = object()
"""The keeper of frames whose bodies are never kept nor taken from those kept (a connection
before its hello: anybody who reaches the port, whose frames are refused unless a hello)."""


class _Known:
    """The request bodies the envelope route validated last, by the frame's text after the
    request's ``id`` (the ruleset, type, body and any ``encounter`` as written): the reader is
    one snapshot's (the rules), so such a frame around another id holds that very request,
    validated. Validation is a function of the text and the rules (validating it again gives
    the same model, which the engines only read), and the id is checked as :class:`Request`
    checks it.

    A body is kept only when its text is exactly one JSON value (read by pydantic's own
    parser) and no member of the envelope or the frame is written twice: the frame is then
    ``{"v":1,"type":"request","request":{id, ruleset, type, body, encounter}}`` and nothing
    else. Kept the second time its text comes, not the first: a body kept lives on, and every
    object alive makes Python's garbage collector and the memory allocator work more (about
    45,000 instructions a request when every body is new), for nothing when it never comes
    again."""

    KEPT = 64
    """Bodies kept at most (all are let go when more come)."""
    LONGEST = 16384
    """The longest text kept (characters)."""
    HELD = 1 << 20
    """The bytes the kept bodies' texts may hold at most, as CPython stores them (all are let
    go when more would): a character may take 4 bytes, so counting characters alone would
    let a player's frames hold 4 × 64 × :data:`LONGEST`."""
    SEEN = 256
    """Texts remembered as seen once at most (all are let go when more come): by their hash
    only, so a flood of long frames holds nothing of them. A hash shared by two texts only
    keeps a body one frame early; what is kept is looked up by its whole text."""

    __slots__ = ("_bodies", "_held", "_seen")

    def __init__(self) -> None:
        self._bodies: dict[tuple[Hashable, str], _Kept] = {}
        self._held = 0
        """The bytes of the kept texts (:data:`HELD`)."""
        self._seen: set[int] = set()

    @staticmethod
    def parts(frame: str) -> tuple[str, str] | None:
        """The id of the request ``frame`` holds and the frame's text after it (from the id's
        closing quote on), when the frame opens as :data:`_OPENINGS` does; else None."""
        if frame.startswith(_OPENINGS[0]):
            start = len(_OPENINGS[0])
        elif frame.startswith(_OPENINGS[1]):
            start = len(_OPENINGS[1])
        else:
            return None
        end = frame.find('"', start)
        return None if end < 0 else (frame[start:end], frame[end:])

    def find(self, rid: str, rest: str, keeper: Hashable) -> tuple[Request, str, bool] | None:
        """The request of the frame whose id is ``rid`` and whose text after it is ``rest``
        (:meth:`parts`), the log's text of it and whether it may name a stored block, when
        ``rest`` is a kept frame's, kept for ``keeper`` (and the id one :class:`Request` takes);
        None otherwise."""
        kept = self._bodies.get((keeper, rest))
        # The id as Request takes it (1 to 128 characters) and as JSON writes it without an
        # escape (the text is the value: no backslash, no control character). ("stored" would
        # make the frame name a stored block, as far as the reader can tell: read it so.)
        if (
            kept is None
            or not _ID_LENGTHS[0] <= len(rid) <= _ID_LENGTHS[1]
            or "\\" in rid
            or not rid.isprintable()
            or rid == "stored"
        ):
            return None
        request = kept.request
        typed = request.__class__.__new__(request.__class__)
        _set(typed, "__dict__", {**request.__dict__, "id": rid})
        _set(typed, "__pydantic_fields_set__", set(kept.given))
        _set(typed, "__pydantic_extra__", None)
        _set(typed, "__pydantic_private__", None)
        return typed, f'{{"id":"{rid}"{kept.tail}', kept.referencing

    def logged(
        self,
        text: str,
        typed: Request,
        parts: tuple[str, str] | None,
        referencing: bool,
        keeper: Hashable,
    ) -> str | None:
        """The log's text of the envelope ``text`` (``typed``: its validation): the compact
        JSON of the values pydantic's parser reads from it, in the order written, a member
        written twice as its last value. None when orjson cannot write them (an integer beyond
        64 bits: the whole frame's route then logs it). The body may be kept for a later frame
        with the same text after its id (``parts``: the frame's, :meth:`find`; ``referencing``:
        read by the referencing validator; ``keeper``: whose frames may take it)."""
        values = from_json(text)
        try:
            logged = orjson.dumps(values).decode()
        except TypeError:
            return None
        if parts is not None:
            self._keep(text, typed, (keeper, *parts), values["body"], logged, referencing)
        return logged

    def _keep(
        self,
        text: str,
        typed: Request,
        parts: tuple[Hashable, str, str],
        body: Any,
        logged: str,
        referencing: bool,
    ) -> None:
        """Keep ``typed`` (validated from the envelope ``text`` of a frame of ``parts``: its
        keeper, id and text after the id; its body's values ``body``, the log's text of it
        ``logged``) for :meth:`find` the second time the keeper's frame of that text comes,
        when its request is written plainly (:data:`_HEAD`) and its body's text is exactly one
        JSON value."""
        keeper, rid, rest = parts
        key = (keeper, rest)
        if len(rest) > self.LONGEST:
            return
        seen = self._seen
        mark = hash(key)
        if mark not in seen:
            if len(seen) >= self.SEEN:
                seen.clear()
            seen.add(mark)
            return
        seen.discard(mark)
        head = _HEAD.match(text)
        opening = f'{{"id":"{rid}"'
        if (
            head is None
            or head[1] != rid
            or not text.endswith("}")
            or not logged.startswith(opening)
            or list(typed.__dict__) != _FIELDS
        ):
            return
        body_text = _split(text, head.end())[0]
        # The body's text is one JSON value: the frame holds no member twice (and the log's
        # text begins with its id). Its compact JSON shows it at once; else pydantic's own
        # parser reads it (nothing may follow the value).
        if orjson.dumps(body) != body_text.encode():
            try:
                from_json(body_text)
            except ValueError:
                return
        tail = logged[len(opening) :]
        size = sys.getsizeof(rest) + sys.getsizeof(tail)
        if len(self._bodies) >= self.KEPT or self._held + size > self.HELD:
            self._bodies.clear()
            self._held = 0
        given = frozenset(typed.__pydantic_fields_set__)
        self._bodies[key] = _Kept(typed, tail, given, referencing)
        self._held += size


def _split(text: str, start: int) -> tuple[str, bool, str | None]:
    """The body's text of the envelope ``text`` whose body starts at ``start`` (after
    :data:`_HEAD`; the text ends with its closing brace), whether ``encounter`` is written
    after it (:data:`_ENCOUNTER`) and its string: the body is what lies between, one JSON value
    only when read as one."""
    at = text.rfind('"encounter"', start)
    if at >= 0:
        tail = _ENCOUNTER.match(text, at)
        before = text[start:at].rstrip(_WS)
        if tail is not None and before.endswith(","):
            return before[:-1], True, tail[1]
    return text[start:-1], False, None


def _lengths(field: str) -> tuple[int, int]:
    """The (min, max) length :class:`Request` holds ``field`` to."""
    low, high = 0, 1 << 62
    for rule in Request.model_fields[field].metadata:
        low = getattr(rule, "min_length", None) or low
        high = getattr(rule, "max_length", None) or high
    return low, high


_ID_LENGTHS = _lengths("id")
_FIELDS = ["id", "ruleset", "type", "body", "encounter"]

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
