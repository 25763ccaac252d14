"""What :mod:`json` lets through that the protocol refuses, found and named by field.

Python's :mod:`json` reads any integer (but raises a bare ValueError past
``sys.get_int_max_str_digits()`` digits, 4,300) and any ``\\uXXXX`` escape, a lone surrogate
included (text that is not Unicode: it cannot be written as UTF-8). The slow path of message
parsing (:func:`arbiter.bridge.protocol_parsing.parse_client`) and the request checks use these helpers to say
which field holds such a value instead of failing with ``internal``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class LongInteger:
    """Stands in (slow path only) for a JSON integer too long for Python to read.

    Python refuses to convert more than ``sys.get_int_max_str_digits()`` digits (4,300) and
    :mod:`json` lets that ValueError escape; :func:`read_int` keeps the place instead, so
    :func:`arbiter.bridge.protocol_parsing.parse_client` can name the field.
    """

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def read_int(text: str) -> int | LongInteger:
    """``json.loads``' ``parse_int``: the integer, or a LongInteger when it has too many digits."""
    digits = len(text) - text.startswith("-")
    limit = sys.get_int_max_str_digits()
    if limit and digits > limit:
        return LongInteger(digits)
    return int(text)


def find(data: Any, wanted: Callable[[Any], bool]) -> tuple[str, Any] | None:
    """The dotted path (``request.body.x``, ``dice.3``) and value of the first part of decoded
    JSON that ``wanted`` picks, keys included (a key is reported at its own path), or None.

    Iterative: the depth is what :func:`json.loads` let through, which recursion may not take.
    """
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                inner = f"{path}.{key}" if path else str(key)
                if wanted(key):
                    return _shown(inner), key
                stack.append((inner, item))
        elif isinstance(value, list):
            stack.extend(
                (f"{path}.{i}" if path else str(i), v) for i, v in reversed(list(enumerate(value)))
            )
        elif wanted(value):
            return _shown(path), value
    return None


def is_not_unicode(value: Any) -> bool:
    """True for a string holding a lone surrogate (``"\\ud800"``): valid JSON, not Unicode."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def not_unicode(data: Any, root: str) -> str | None:
    """``"{root}.path: text that is not Unicode ..."`` for the first lone surrogate, or None."""
    found = find(data, is_not_unicode)
    if found is None:
        return None
    path = f"{root}.{found[0]}" if found[0] else root
    return f"{path}: text that is not Unicode (a lone surrogate escape)"


def _shown(path: str) -> str:
    """A path made safe to send: a key holding a lone surrogate is escaped."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")
