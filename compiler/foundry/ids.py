"""Deterministic Foundry document ids.

Foundry wants every document id to be exactly 16 characters of ``[a-zA-Z0-9]``. We derive them
from stable names (ruleset id, document kind, entry id, row key) instead of drawing them at
random, so a rebuild gives every document the id it had before: links, GM bookmarks and
``Compendium.arbiter.<pack>.<Document>.<id>`` references survive rebuilds and unrelated edits.
"""

from __future__ import annotations

import hashlib
import re

ID_LENGTH = 16
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
VALID_ID = re.compile(r"^[a-zA-Z0-9]{16}$")

# Names are joined with a separator no rule id may contain, so ("a-b", "c") and ("a", "b-c")
# never produce the same digest.
_SEPARATOR = "\x1f"
_NAMESPACE = "arbiter"


def document_id(*names: str) -> str:
    """The 16-character id of the document named by ``names``; same names, same id.

    ``names`` are the stable path of the document, e.g. ``("RollTable", "hmk", "critical")``
    or ``("TableResult", "hmk", "critical", "1-4")``. Different names give different ids
    (a SHA-256 digest read in base 62; 62**16 ≈ 4.8e28 leaves collisions out of reach).
    """
    if not names or any(not n for n in names):
        raise ValueError(f"a document id needs non-empty names, got {names!r}")
    if any(_SEPARATOR in n for n in names):
        raise ValueError(f"document names may not contain the unit separator: {names!r}")
    digest = hashlib.sha256(_SEPARATOR.join((_NAMESPACE, *names)).encode()).digest()
    number = int.from_bytes(digest, "big")
    chars = []
    for _ in range(ID_LENGTH):
        number, digit = divmod(number, len(ALPHABET))
        chars.append(ALPHABET[digit])
    return "".join(chars)


def is_valid_id(value: str) -> bool:
    """Whether ``value`` is a well-formed Foundry document id."""
    return bool(VALID_ID.match(value))
