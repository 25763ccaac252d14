"""Canonical JSON: the form the roll log hashes and keeps (re-exported by
:mod:`arbiter.bridge.records`, whose docstrings describe the records it serialises)."""

from __future__ import annotations

import json
import math
from typing import Any, Final

import orjson

_FALLBACK: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)
_SORTED: Final = orjson.OPT_SORT_KEYS


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 text unescaped. Equal values give equal text.

    The form is orjson's. For strings, integers, booleans, null, lists, string-keyed objects and
    floats from 1e-4 up it is exactly the text of ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``, written several times faster; a float under
    1e-4 is written ``0.000025`` and ``1e-7`` where json writes ``2.5e-05`` and ``1e-07`` (both
    read back as the same float); NaN and the infinities, which JSON has not, are written
    ``null``. What orjson cannot write (an integer beyond 64 bits, a key that is not a string) is
    written by the json module, the same way for the same value (non-finite floats ``null``
    there too). A value neither can write (a lone surrogate, which is not Unicode; an object
    that is not JSON) raises TypeError or ValueError.
    """
    return canonical_bytes(value).decode()


def canonical_bytes(value: Any) -> bytes:
    """:func:`canonical` as UTF-8 bytes (what is hashed and sent), without a text in between."""
    try:
        return orjson.dumps(value, option=_SORTED)
    except TypeError:
        # A lone surrogate raises UnicodeEncodeError (a ValueError) here.
        text: str = _FALLBACK.encode(_finite(value))
        return text.encode("utf-8")


def canonical_around(value: dict[str, Any], key: str, text: bytes) -> bytes:
    """:func:`canonical_bytes` of ``value``, whose ``key`` (when present) holds the value that
    ``text`` is the canonical JSON of: that part is not serialised a second time."""
    if key not in value:
        return canonical_bytes(value)
    try:
        return orjson.dumps({**value, key: orjson.Fragment(text)}, option=_SORTED)
    except TypeError:
        return canonical_bytes(value)


def _finite(value: Any) -> Any:
    # ``value`` with NaN and the infinities replaced by None, as orjson writes them.
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


__all__ = ["canonical", "canonical_around", "canonical_bytes"]
