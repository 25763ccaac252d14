"""The request bodies the reader's envelope route validated, kept per snapshot of the rules
by keeper and frame text (:class:`_Known`): a frame written the same after its id takes its
body as it was validated, without validating it again (:mod:`arbiter.bridge.reading`).

Compiled with the engine (:mod:`arbiter.bridge.pure`): every request frame is looked up here.
The validated requests are pydantic models, which this module only carries and copies (it
imports no pydantic: :mod:`arbiter.bridge.reading_known` gives it the id's bounds that
:class:`~arbiter.bridge.engine.envelope.Request` declares)."""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson
from pydantic_core import from_json

from arbiter.bridge.pure.frame_text import _HEAD, _PLAIN_OPENINGS, _split

if TYPE_CHECKING:
    from arbiter.bridge.engine.envelope import Request


class _Kept(NamedTuple):
    """A body the envelope route validated, with what the log keeps around it."""

    request: Any
    """The request validated (its id aside: another frame's is written in): a
    :class:`~arbiter.bridge.engine.envelope.Request`. (A compiled named tuple reads its
    annotations when the module runs, and this module does not import pydantic's models.)"""
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

    KEPT: Final = 64
    """Bodies kept at most (all are let go when more come)."""
    LONGEST: Final = 16384
    """The longest text kept (characters)."""
    HELD: Final = 1 << 20
    """The bytes the kept bodies' texts may hold at most, as CPython stores them (all are let
    go when more would): a character may take 4 bytes, so counting characters alone would
    let a player's frames hold 4 × 64 × :data:`LONGEST`."""
    SEEN: Final = 256
    """Texts remembered as seen once at most (all are let go when more come): by their hash
    only, so a flood of long frames holds nothing of them. A hash shared by two texts only
    keeps a body one frame early; what is kept is looked up by its whole text."""

    def __init__(self, id_lengths: tuple[int, int]) -> None:
        """``id_lengths``: the (min, max) length :class:`Request` holds an id to."""
        self._low, self._high = id_lengths
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
            or not self._low <= len(rid) <= self._high
            or "\\" in rid
            or not rid.isprintable()
            or rid == "stored"
        ):
            return None
        request: Any = kept.request
        typed: Any = _new(request.__class__)
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


_FIELDS: Final = ["id", "ruleset", "type", "body", "encounter"]
"""A request's fields in the order the log's text writes them (a body is kept only for one
validated so)."""
_set: Final = object.__setattr__
_new: Final = object.__new__
"""What a pydantic model class's ``__new__`` is (BaseModel defines none), called without
looking it up on the class through pydantic's metaclass."""
