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
read again by the slow path (:func:`arbiter.bridge.protocol_parsing.parse_client`, then the body's own strict
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

from collections.abc import Hashable, Mapping
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError, create_model
from pydantic_core import SchemaValidator

from arbiter.bridge.engine.contract import Engine
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.protocol import ClientMessage, RequestMessage
from arbiter.bridge.pure.frame_text import _envelope_text
from arbiter.bridge.reading_known import NOT_KEPT, _new, _set, known_bodies
from arbiter.bridge.reading_validators import (
    _name,
    bounded_validator,
    client_messages,
    typed_requests,
)


class Sent:
    """A request message as the fast path read it.

    ``message`` is the message validated (its ``request.body`` the request type's model);
    :attr:`typed` is its request, :attr:`dice` and :attr:`player` its other fields. The
    envelope route builds the message only when asked (:meth:`around`): deciding reads the
    request and those fields alone.
    ``text``, when set, is what the roll log keeps of the request, hashed as it is: the compact
    JSON of the envelope's values as validation read them, in the order written (a member
    written twice: its last value; never the client's own text). :attr:`request` is read from
    it when asked.
    """

    __slots__ = (
        "_base",
        "_class",
        "_message",
        "_request",
        "dice",
        "frame",
        "kept",
        "player",
        "text",
        "typed",
    )

    def __init__(
        self,
        message: RequestMessage,
        request: dict[str, Any] | None = None,
        frame: str = "",
        text: str | None = None,
        kept: bool = False,
    ) -> None:
        """``request`` or ``text`` (or both) is given: the envelope as written, as values or
        as the text the log keeps."""
        if request is None and text is None:
            raise ValueError("a Sent needs the request as written: its values or its text")
        self._message: RequestMessage | None = message
        self._class: type[RequestMessage] | None = None
        self._base: RequestMessage | None = None
        self.typed: Request = message.request
        """The request validated (its body the request type's model)."""
        self.dice = message.dice
        self.player = message.player
        self._request = request
        self.frame = frame
        """The frame's text as it came (the vault counts the references written in it)."""
        self.text = text
        self.kept = kept
        """The body is one the reader kept (:class:`~arbiter.bridge.pure.known_bodies._Known`):
        the very object every later frame of this keeper with the same text after the id
        carries (the vault keeps what it resolves of such a body:
        :mod:`arbiter.bridge.stat_block_plugs`)."""

    @classmethod
    def around(
        cls,
        message_class: type[RequestMessage],
        typed: Request,
        frame: str,
        text: str,
        kept: bool = False,
    ) -> Sent:
        """The Sent of ``{"v": 1, "type": "request", "request": …}`` validated as
        ``message_class``, its request ``typed`` (the envelope route): :attr:`message` is
        built when first asked (:func:`_around`), not here."""
        out = cls.__new__(cls)
        out._message = None
        out._class = message_class
        out._base = None
        out.typed = typed
        out.dice = None
        out.player = None
        out._request = None
        out.frame = frame
        out.text = text
        out.kept = kept
        return out

    def with_request(
        self, typed: Request, request: dict[str, Any] | None, text: str | None
    ) -> Sent:
        """This message around another request ``typed`` (the vault's, its stored blocks
        plugged in: no frame of its own, no body kept), as written ``request`` or ``text``
        (see :meth:`__init__`); its message is built when first asked."""
        if request is None and text is None:
            raise ValueError("a Sent needs the request as written: its values or its text")
        out = Sent.__new__(Sent)
        out._message = None
        out._class = self._class
        # The message it came with (the whole frame's route: its dice and player), if any.
        out._base = None if self._class is not None else self._message or self._base
        out.typed = typed
        out.dice = self.dice
        out.player = self.player
        out._request = request
        out.frame = ""
        out.text = text
        out.kept = False
        return out

    def plug_in(self, body: Any, text: str) -> Sent:
        """This very Sent, now the request its body's stored blocks plugged in make: its
        request's body ``body`` (the vault's kept resolution), the log's text of it ``text``,
        no frame of its own, no body kept; given back.

        Only for a Sent the reader made for one frame around a body it kept (:attr:`kept`):
        its request is the reader's copy for this frame alone (:meth:`~arbiter.bridge.pure.
        known_bodies._Known.find` builds one per frame, the kept request stays as it was), so
        it is changed in place rather than copied (a pydantic model built field by field costs
        as much as a fifth of the rest of the vault's work on such a request). Whoever holds
        this Sent then holds the resolved request, as :meth:`with_request` would make it."""
        if not self.kept:
            raise ValueError("only a Sent around a body the reader kept is plugged in place")
        self.typed.__dict__["body"] = body
        self._request = None
        self.text = text
        self.frame = ""
        self.kept = False
        return self

    @property
    def message(self) -> RequestMessage:
        """The request message validated (built on first use when the reader did not)."""
        message = self._message
        if message is None:
            if self._class is not None:
                message = _around(self._class, self.typed)
            else:
                assert self._base is not None  # a Sent has a message, a class or a base
                message = self._base.model_copy(update={"request": self.typed})
            self._message = message
        return message

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


def _written(text: str) -> dict[str, Any]:
    """The envelope ``text`` holds as plain JSON values, in :attr:`Sent.request`'s form.

    ``text`` is always what orjson wrote of the values the reader validated (:attr:`Sent.text`,
    the log's text: :meth:`~arbiter.bridge.pure.known_bodies._Known.logged`, a kept one's
    around a new id, or the vault's with stored blocks filled in), so it holds no key twice and no number
    orjson would not read back as it was: orjson reads it back to those very values (at half
    the cost of a pydantic model's parse, which a player's request paid once for its body)."""
    fields: dict[str, Any] = orjson.loads(text)
    return {
        "id": fields["id"],
        "ruleset": fields["ruleset"],
        "type": fields["type"],
        "body": fields["body"],
        "encounter": fields.get("encounter"),
    }


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
        self._known = known_bodies()
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
        closing brace and its own (:data:`~arbiter.bridge.pure.frame_text._ENVELOPE`) is ``{v, type, request}``, nothing
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
                return Sent.around(message_class, found[0], frame, found[1], True)
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
                        return Sent.around(message_class, typed, frame, logged)
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


def _around(message_class: type[RequestMessage], request: Request) -> RequestMessage:
    """The message of ``message_class`` that validating ``{"v": 1, "type": "request",
    "request": …}`` gives, its ``request`` validated already: built without a second
    validation (a python-mode pass over the instance costs as much as an eighth of the
    envelope's), as ``model_construct`` builds it (without its per-field Python loop)."""
    out = _new(message_class)
    _set(out, "__dict__", {**_AROUND, "request": request})
    _set(out, "__pydantic_fields_set__", set(_AROUND_GIVEN))
    _set(out, "__pydantic_extra__", None)
    _set(out, "__pydantic_private__", None)
    return out


__all__ = [
    "FrameReader",
    "Sent",
]
