"""A validation error's problems in the words a client can act on: each at the keys it writes.

pydantic reports an error at the field's *alias* when the client wrote the field (combat-styles'
``characteristics.cha``), but at the field's *name* when the error is about the field's default
(a left-out CHA is ``characteristics.CHA``): a default is validated after the input is read, by
field. The client's stat-block editor marks a problem by the key it writes (``data-field``), and
docs/protocol.md ("check") promises a dotted path of the block's keys, so every place that
reports stat-block problems or request errors translates the location here, through the models'
aliases, and says when the number was left out and which default was refused.

Imports pydantic, so it stays interpreted (``bridge.native.compiled_sources``).
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

_BOUNDS = frozenset(("greater_than_equal", "less_than_equal", "greater_than", "less_than"))
"""Error types of a number outside a bound (the served ``stat_block_limits`` are checked so)."""

_ABSENT = object()
"""No written value at this place (the client left it, or a field above it, out)."""


def field_errors(
    model: type[BaseModel], data: object, err: ValidationError
) -> list[tuple[str, str]]:
    """Each error of ``err`` (raised validating ``data`` with ``model``) as (path, message): the
    path dotted from ``data``'s root in the keys a client writes (a field's alias, else its name;
    a union's tag, a mapping's key and a list's index as pydantic gives them), the message
    pydantic's, or, for a number ``data`` left out whose default was refused, ``left out, its
    default 1 is outside the served bound: <pydantic's message>``."""
    return [_placed(model, data, e) for e in err.errors()]


def _placed(model: type[BaseModel], data: object, error: ErrorDetails) -> tuple[str, str]:
    """One error's (path, message): see :func:`field_errors`."""
    node: Any = model
    value: Any = data
    path: list[str] = []
    left_out: FieldInfo | None = None
    for element in error["loc"]:
        left_out = None
        node = _bare(node)
        field = _field(node, element)
        if field is not None:
            name, info = field
            key = _key(name, info)
            path.append(key)
            written = _ABSENT
            if isinstance(value, Mapping):
                # populate_by_name: a client may write the name as well as the alias.
                written = value.get(key, value.get(name, _ABSENT))
                if written is _ABSENT:
                    left_out = info
            value, node = written, info.annotation
            continue
        path.append(str(element))
        members = _members(node)
        if members:
            # A union's tag (pydantic names the member tried): the written value stays.
            node = next((m for m in members if _is_model(m) and m.__name__ == element), None)
            continue
        origin, args = get_origin(node), get_args(node)
        if isinstance(origin, type) and issubclass(origin, Mapping) and len(args) == 2:
            node = args[1]
            value = value.get(element, _ABSENT) if isinstance(value, Mapping) else _ABSENT
        elif isinstance(origin, type) and issubclass(origin, Sequence) and args:
            node = args[0]
            value = _item(value, element)
        else:
            node = None
    message = error["msg"]
    if left_out is not None and not left_out.is_required() and error["type"] != "missing":
        refused = "is outside the served bound" if error["type"] in _BOUNDS else "is refused"
        message = f"left out, its default {_shown(error['input'])} {refused}: {message}"
    return ".".join(path), message


def _bare(node: Any) -> Any:
    """``node`` without ``Annotated`` and without an optional's ``None``."""
    while get_origin(node) is Annotated:
        node = get_args(node)[0]
    members = _members(node)
    if len(members) == 1:
        return _bare(members[0])
    return node


def _members(node: Any) -> list[Any]:
    """The members of a union other than ``None`` (empty for anything else)."""
    if get_origin(node) in (Union, types.UnionType):
        return [m for m in get_args(node) if m is not type(None)]
    return []


def _is_model(node: Any) -> bool:
    return isinstance(node, type) and issubclass(node, BaseModel)


def _field(node: Any, element: object) -> tuple[str, FieldInfo] | None:
    """The field of model ``node`` that ``element`` names, by alias or by name; None when
    ``node`` is not a model or has no such field."""
    if not _is_model(node) or not isinstance(element, str):
        return None
    fields: dict[str, FieldInfo] = node.model_fields
    info = fields.get(element)
    if info is not None:
        return element, info
    for name, candidate in fields.items():
        if _key(name, candidate) == element:
            return name, candidate
    return None


def _key(name: str, info: FieldInfo) -> str:
    """The key a client writes for the field ``name``: its validation alias, else its name."""
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    return alias or name


def _item(value: object, element: object) -> Any:
    """The written item at index ``element`` of the list ``value``, or :data:`_ABSENT`."""
    if isinstance(value, list) and type(element) is int and 0 <= element < len(value):
        return value[element]
    return _ABSENT


def _shown(value: object) -> str:
    """A default as the client would write it (JSON), or Python's text when it is not JSON."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
