"""Who may act: a request for a participant the connection does not hold is refused here.

Every request body model declares ``acting``, a ClassVar naming the body fields whose values are
the participant ids the request acts for (``bridge/engine/<ruleset>/requests*.py``); a list field
counts each id, and a field holding a stat block (an object) counts its ``id``. A model whose
``acting`` is empty, or that declares none, is a *table action* (deal, reveal, resolve, start an
encounter …): the GM's alone.

:func:`authorize` runs before the idempotency lookup, the encounter read and any die, and reads
nothing but the request and the viewer: its refusal (code ``forbidden``) is the same whatever
anybody's hand holds, and nothing is logged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.views import Viewer


def acting_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of ``model`` naming the participants its requests act for (empty: the GM's)."""
    fields = getattr(model, "acting", ())
    return tuple(fields) if isinstance(fields, tuple) else ()


def acting_ids(model: type[BaseModel], body: Mapping[str, Any]) -> list[str]:
    """The participant ids ``body`` (as the client sent it) acts for, in field order.

    Read from the raw body, before validation: a value that is not an id (nor a list of ids,
    nor a stat block with a string ``id``) names nobody here and is refused by validation later.
    """
    ids: list[str] = []
    for name in acting_fields(model):
        ids.extend(_ids(body.get(name)))
    return ids


def _ids(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        ident = value.get("id")
        if isinstance(ident, str):
            yield ident
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, str | dict):
                yield from _ids(item)


def authorize(
    request: Request,
    model: type[BaseModel] | None,
    viewer: Viewer,
    body: Mapping[str, Any] | None = None,
) -> None:
    """Refuse (ProtocolError ``forbidden``) a request ``viewer`` may not send.

    ``body`` is the request's body as the client sent it (default: ``request.body``, which is
    that until the body is validated).

    The GM may send anything. A player may send a request that names at least one participant
    in its acting fields and holds every participant named; a table action, or a request naming
    nobody (an optional acting field left out), is the GM's. ``model`` None (an unknown ruleset
    or type) is left to the caller's own refusal.
    """
    if viewer.gm or model is None:
        return
    ids = acting_ids(model, request.body if body is None else body)
    if not ids:
        raise ProtocolError("forbidden", f"{request.type!r} is the GM's to send", request.id)
    for participant in ids:
        if participant not in viewer.participants:
            raise ProtocolError(
                "forbidden",
                f"this connection does not act for {participant!r}",
                request.id,
            )


__all__ = ["acting_fields", "acting_ids", "authorize"]
