"""Where a request type's body holds stat blocks, and a player's view of such a body.

A request body names participants in many places; some of them hold a whole stat block (an hmk
attack's ``defender``, a combat-styles exchange's ``combatants``), written in or referenced
(``{"id": …, "stored": true}``). :func:`block_shape` finds those places from the body model's
annotations (the ruleset's stat-block model, :data:`arbiter.bridge.stat_blocks.STAT_BLOCKS`), so
that other objects carrying an ``id`` (a combat-styles effect choice, an hmk initiative
modifier) are never taken for one. :func:`foreign` and :func:`masked` then read a body as sent
(plain JSON values) along that shape.
"""

from __future__ import annotations

import types
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.engine.registry import UnknownRuleset, get_engine
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.stat_block_references import is_reference
from arbiter.bridge.stat_blocks import STAT_BLOCKS

BLOCK = "block"
"""The shape of a place holding a stat block."""
ITEM = "[]"
"""The key of a list's items in a shape."""
VALUE = "{}"
"""The key of a mapping's values in a shape."""
Shape = str | dict[str, Any]
""":data:`BLOCK`, or a mapping from field name (:data:`ITEM`, :data:`VALUE`) to a shape."""


@cache
def block_shape(ruleset: str, type: str) -> dict[str, Any]:
    """The places of ``ruleset``'s ``type`` request body that hold a stat block (empty: none,
    or no such ruleset or type)."""
    block = STAT_BLOCKS.get(ruleset)
    if block is None:
        return {}
    try:
        model = get_engine(ruleset).requests.get(type)
    except UnknownRuleset:
        return {}
    return {} if model is None else _model(model, block, frozenset())


def _model(model: type[BaseModel], block: type[BaseModel], seen: frozenset[type]) -> dict[str, Any]:
    if model in seen:
        return {}
    shape: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        found = _type(field.annotation, block, seen | {model})
        if found:
            shape[field.alias or name] = found
    return shape


def _type(annotation: Any, block: type[BaseModel], seen: frozenset[type]) -> Shape | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return BLOCK if issubclass(annotation, block) else (_model(annotation, block, seen) or None)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _type(args[0], block, seen)
    if origin is Union or origin is types.UnionType:
        return _merged([_type(arg, block, seen) for arg in args])
    if isinstance(origin, type) and issubclass(origin, Mapping):
        inner = _type(args[1], block, seen) if len(args) == 2 else None
        return {VALUE: inner} if inner else None
    if isinstance(origin, type) and issubclass(origin, Sequence | set | frozenset):
        inner = _merged([_type(arg, block, seen) for arg in args if arg is not Ellipsis])
        return {ITEM: inner} if inner else None
    return None


def _merged(shapes: list[Shape | None]) -> Shape | None:
    """One shape for a value that may have any of ``shapes`` (a union): a block if any is."""
    if BLOCK in shapes:
        return BLOCK
    merged: dict[str, Any] = {}
    for shape in shapes:
        if isinstance(shape, dict):
            for key, inner in shape.items():
                merged[key] = _merged([merged.get(key), inner])
    return merged or None


def _foreign_block(value: Any, holds: frozenset[str]) -> str | None:
    """The ``id`` of ``value`` when it is an object naming a participant not in ``holds``."""
    if isinstance(value, dict):
        ident = value.get("id")
        if isinstance(ident, str) and ident not in holds:
            return ident
    return None


def foreign(
    value: Any, holds: frozenset[str], shape: Shape, path: str = "body"
) -> Iterator[tuple[str, str]]:
    """(dotted path, participant id) of every stat block in ``value`` (a body as sent, read
    along ``shape``) naming a participant not in ``holds``, written in or referenced."""
    if shape == BLOCK:
        ident = _foreign_block(value, holds)
        if ident is not None:
            yield path, ident
    elif isinstance(shape, dict) and isinstance(value, dict):
        if VALUE in shape:
            for key, item in value.items():
                yield from foreign(item, holds, shape[VALUE], f"{path}.{key}")
        else:
            for key, inner in shape.items():
                if key in value:
                    yield from foreign(value[key], holds, inner, f"{path}.{key}")
    elif isinstance(shape, dict) and isinstance(value, list) and ITEM in shape:
        for index, item in enumerate(value):
            yield from foreign(item, holds, shape[ITEM], f"{path}.{index}")


def masked(value: Any, holds: frozenset[str], shape: Shape) -> Any:
    """``value`` with every stat block :func:`foreign` finds made a reference to its ``id``
    (a copy): what a viewer holding ``holds`` may compare of it."""
    if shape == BLOCK:
        ident = _foreign_block(value, holds)
        return value if ident is None else {"id": ident, "stored": True}
    if isinstance(shape, dict) and isinstance(value, dict):
        if VALUE in shape:
            return {key: masked(item, holds, shape[VALUE]) for key, item in value.items()}
        return {
            key: masked(item, holds, shape[key]) if key in shape else item
            for key, item in value.items()
        }
    if isinstance(shape, dict) and isinstance(value, list) and ITEM in shape:
        return [masked(item, holds, shape[ITEM]) for item in value]
    return value


def filled(value: Any, shape: Shape, blocks: Mapping[str, Any], count: list[int]) -> Any:
    """``value`` (a body as sent, read along ``shape``) with every reference in a place holding
    a stat block replaced by ``blocks[its id]`` (a copy of what it changes); ``count[0]`` grows
    by one for each."""
    if shape == BLOCK:
        if is_reference(value):
            count[0] += 1
            return blocks[value["id"]]
        return value
    if isinstance(shape, dict) and isinstance(value, dict):
        if VALUE in shape:
            return {key: filled(item, shape[VALUE], blocks, count) for key, item in value.items()}
        return {
            key: filled(item, shape[key], blocks, count) if key in shape else item
            for key, item in value.items()
        }
    if isinstance(shape, dict) and isinstance(value, list) and ITEM in shape:
        return [filled(item, shape[ITEM], blocks, count) for item in value]
    return value


def masked_request(
    message: RequestMessage, written: dict[str, Any], holds: frozenset[str], shape: Shape
) -> RequestMessage:
    """``message`` (read by either path; ``written``: its body as sent) with the body
    :func:`masked` makes of ``written``, untyped: what a player's request holding ``holds`` may
    ask for, every other block the GM's stored one once its reference is filled in (the body
    is validated then)."""
    request = message.request
    envelope = Request(id=request.id, ruleset=request.ruleset, type=request.type,
                       body=masked(written, holds, shape), encounter=request.encounter)  # fmt: skip
    return message.model_copy(update={"request": envelope})


__all__ = [
    "BLOCK",
    "ITEM",
    "VALUE",
    "Shape",
    "block_shape",
    "filled",
    "foreign",
    "masked",
    "masked_request",
]
