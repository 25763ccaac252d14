"""The dice grammar's limits, and the check that holds rule data to them.

The engine's dice parser (``bridge/engine/dice.py``, :func:`~arbiter.bridge.engine.dice.parse`) reads
``NdM`` terms and constants joined by ``+``/``-`` (``2d6+1d4``, ``-1d4``, ``d100``, ``1d10+10``)
and refuses an expression that rolls more than :data:`MAX_DICE` dice, a die of more than
:data:`MAX_FACES` faces, or a text longer than :data:`MAX_TEXT` characters. The limits live here,
in the rule-data package, because both sides read them and ``compiler`` never imports ``bridge``:
the engine imports them from here (the engine may read ``arbiter.compiler.model``), and the loader checks
every dice text of a rule file against them (:func:`dice_problem`), so a rule file the engine
could not roll is refused by ``arbiter build`` and by the hot reload, naming file, entry and
field, instead of failing every request that reaches it.

Pure and free of pydantic: the compiled engine imports it.
"""

from __future__ import annotations

import re
from typing import Final

MAX_DICE: Final = 200
"""Most dice one expression may roll."""
MAX_FACES: Final = 1000
"""Most faces one die may have."""
MAX_TEXT: Final = 200
"""Longest dice expression text, in characters."""

_TERM = r"\s*(?:\d*\s*[dD]\s*\d+|\d+)\s*"
_EXPRESSION = re.compile(rf"\s*[+-]?{_TERM}(?:[+-]{_TERM})*")
"""The parser's grammar: a first term with an optional sign, then terms each after a sign."""
_DICE_TERM = re.compile(r"(\d*)\s*[dD]\s*(\d+)")


def dice_problem(text: str) -> str | None:
    """Why the engine could not roll ``text`` when it is a dice expression, else None.

    ``text`` counts as a dice expression when it is written in the parser's grammar and names at
    least one die (``1d6+1``; not ``+0``, ``12`` or prose): only then could the engine be asked
    to roll it. The problem is said as the parser would say it: a die term of no dice or no
    faces, a die over :data:`MAX_FACES` faces, over :data:`MAX_DICE` dice in all, or a text over
    :data:`MAX_TEXT` characters.
    """
    if ("d" not in text and "D" not in text) or not _EXPRESSION.fullmatch(text):
        return None
    terms = [(int(count or 1), int(faces)) for count, faces in _DICE_TERM.findall(text)]
    if not terms:
        return None
    if len(text) > MAX_TEXT:
        return f"dice expression longer than {MAX_TEXT} characters, the engine's limit"
    for count, faces in terms:
        if count < 1 or faces < 1:
            return f"{text!r}: a dice term needs at least one die of at least one face"
        if faces > MAX_FACES:
            return f"{text!r}: d{faces} is over the engine's limit of {MAX_FACES} faces"
    total = sum(count for count, _ in terms)
    if total > MAX_DICE:
        return f"{text!r} rolls {total} dice, over the engine's limit of {MAX_DICE}"
    return None


__all__ = ["MAX_DICE", "MAX_FACES", "MAX_TEXT", "dice_problem"]
