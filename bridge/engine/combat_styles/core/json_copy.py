"""A deep copy of plain JSON (dicts, lists and immutable scalars), for the engine's own state.

Written out as a recursive copy rather than ``copy.deepcopy`` (which keeps a memo of every
object) or a ``marshal`` round trip: compiled with mypyc it is about three times faster than
marshal on a record's conditions, and as fast interpreted.
"""

from __future__ import annotations

from typing import Any

from arbiter.bridge.engine.contract import JSON


def json_copy(value: JSON) -> JSON:
    """A deep copy of a JSON object: every dict and list in it is new, so nothing the caller
    changes in the copy reaches the original (or a memo the original is kept in)."""
    out: JSON = {}
    for key, item in value.items():
        if isinstance(item, dict):
            out[key] = json_copy(item)
        elif isinstance(item, list):
            out[key] = list_copy(item)
        else:
            out[key] = item
    return out


def list_copy(value: list[Any]) -> list[Any]:
    """A deep copy of a JSON list (see :func:`json_copy`)."""
    out: list[Any] = []
    for item in value:
        if isinstance(item, dict):
            out.append(json_copy(item))
        elif isinstance(item, list):
            out.append(list_copy(item))
        else:
            out.append(item)
    return out
