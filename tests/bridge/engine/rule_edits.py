"""Edit one value deep inside a validated (frozen) rule model, for tests that show an engine
follows its rule data: ``edited(model, "combat.ranged.aim_grade_steps", -2)``."""

from __future__ import annotations

from typing import Any


def _get(node: Any, key: str) -> Any:
    if isinstance(node, (list, tuple)):
        if key.isdigit():
            return node[int(key)]
        return next(item for item in node if item.id == key)
    if isinstance(node, dict):
        return node[key]
    return getattr(node, key)


def _set(node: Any, key: str, value: Any) -> Any:
    if isinstance(node, (list, tuple)):
        index = (
            int(key) if key.isdigit() else next(i for i, item in enumerate(node) if item.id == key)
        )
        items = list(node)
        items[index] = value
        return type(node)(items)
    if isinstance(node, dict):
        return {**node, key: value}
    return node.model_copy(update={key: value})


def edited(model: Any, path: str, value: Any) -> Any:
    """A copy of ``model`` with the value at the dotted ``path`` replaced. A path segment is an
    attribute, a dict key, a list index or the ``id`` of an entry in a list."""
    keys = path.split(".")
    if len(keys) == 1:
        return _set(model, keys[0], value)
    child = _get(model, keys[0])
    return _set(model, keys[0], edited(child, ".".join(keys[1:]), value))
