"""References to the GM's stored stat blocks inside a request body: ``{"id": "<id>",
"stored": true}`` (exactly these keys), found, replaced and compared with a logged request.
Pure functions over JSON values; :mod:`arbiter.bridge.stat_block_vault` looks the blocks up."""

from __future__ import annotations

from typing import Any


def is_reference(value: Any) -> bool:
    """Whether ``value`` is a reference to a stored block: ``{"id": "<id>", "stored": true}``."""
    return (
        isinstance(value, dict)
        and len(value) == 2
        and value.get("stored") is True
        and isinstance(value.get("id"), str)
    )


def references(value: Any, path: str = "body") -> list[tuple[str, str]]:
    """(dotted path, participant id) of every reference in ``value``, in document order."""
    found: list[tuple[str, str]] = []
    _collect(value, path, found)
    return found


def _collect(value: Any, path: str, found: list[tuple[str, str]]) -> None:
    # Only a container may hold a reference: a plain value costs no call (once per request).
    if type(value) is dict:
        if len(value) == 2 and is_reference(value):
            found.append((path, value["id"]))
            return
        for key, item in value.items():
            if isinstance(item, _CONTAINERS):
                _collect(item, f"{path}.{key}", found)
    elif type(value) is list:
        for index, item in enumerate(value):
            if isinstance(item, _CONTAINERS):
                _collect(item, f"{path}.{index}", found)
    elif isinstance(value, dict):
        if is_reference(value):
            found.append((path, value["id"]))
            return
        for key, item in value.items():
            _collect(item, f"{path}.{key}", found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _collect(item, f"{path}.{index}", found)


_CONTAINERS = (dict, list)


def substitute(value: Any, blocks: dict[str, dict[str, Any]]) -> Any:
    """``value`` with every reference replaced by ``blocks[its id]`` (a copy; ``value`` is
    left as it is)."""
    if is_reference(value):
        return blocks[value["id"]]
    if isinstance(value, dict):
        return {
            key: substitute(item, blocks) if isinstance(item, _CONTAINERS) else item
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [
            substitute(item, blocks) if isinstance(item, dict | list) else item for item in value
        ]
    return value


def matches(sent: Any, logged: Any) -> bool:
    """Whether ``logged`` is ``sent`` with each of its references resolved to a block of that
    id (whatever the block then held): a resend of a decided request."""
    if is_reference(sent):
        return isinstance(logged, dict) and logged.get("id") == sent["id"]
    if isinstance(sent, dict):
        return (
            isinstance(logged, dict)
            and sent.keys() == logged.keys()
            and all(matches(sent[k], logged[k]) for k in sent)
        )
    if isinstance(sent, list):
        return (
            isinstance(logged, list)
            and len(sent) == len(logged)
            and all(matches(a, b) for a, b in zip(sent, logged, strict=True))
        )
    # JSON equality: true is not 1, 1 is not 1.0.
    return type(sent) is type(logged) and sent == logged


__all__ = ["is_reference", "matches", "references", "substitute"]
