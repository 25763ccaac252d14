"""Every logged request id of a PostgreSQL world, held compactly (:class:`RequestIndex`).

The store must know every logged id synchronously (a resend is never decided again), but not
hold its row. The ids loaded when the world is opened are kept as 8-byte keyed digests in one
sorted array (8 bytes an id, against about 140 for a ``dict`` of the strings); the ids logged
since are kept as strings until the next open. A digest can match an id never logged (two ids
of one digest: about one chance in 2^64 per pair, and the key is secret, so a client cannot
aim for it): the index then says "maybe", the store reads the database, finds no row, and
remembers the id as absent (:meth:`RequestIndex.absent`). "Maybe" is never "no": an id logged
is always found.
"""

from __future__ import annotations

import hashlib
import secrets
from array import array
from bisect import bisect_left
from collections.abc import Iterable

KEY = secrets.token_bytes(16)
"""This process's digest key: nobody outside can choose ids whose digests collide."""

ABSENT = 1024
"""At most this many ids of a matching digest but no row are remembered (then forgotten)."""


def digest(request_id: str) -> int:
    """The id's 8-byte keyed digest, as a signed 64-bit integer (an ``array('q')`` item)."""
    raw = hashlib.blake2b(
        request_id.encode("utf-8", "surrogatepass"), digest_size=8, key=KEY
    ).digest()
    return int.from_bytes(raw, "little", signed=True)


class RequestIndex:
    """The request ids of a world's committed rows: loaded ones as sorted digests, later ones
    as strings."""

    def __init__(self) -> None:
        self._loaded = array("q")
        """The digests of the ids loaded at open, sorted."""
        self._since: set[str] = set()
        """The ids logged since the open."""
        self._absent: set[str] = set()
        """Ids whose digest matched but that the database holds no row of."""

    def load(self, request_ids: Iterable[str]) -> None:
        """Take in ids of rows the database holds (at open, in batches; then :meth:`seal`)."""
        self._loaded.extend(map(digest, request_ids))

    def seal(self) -> None:
        """The ids are all loaded: sort their digests for lookups."""
        self._loaded = array("q", sorted(self._loaded))

    @property
    def loaded(self) -> int:
        """How many ids were loaded."""
        return len(self._loaded)

    def add(self, request_id: str) -> None:
        """A row of ``request_id`` was committed."""
        self._since.add(request_id)
        self._absent.discard(request_id)

    def maybe(self, request_id: str) -> bool:
        """False: not logged. True: logged, or (seldom) another id's digest; the row says."""
        if request_id in self._since:
            return True
        if not self._loaded or request_id in self._absent:
            return False
        found = digest(request_id)
        at = bisect_left(self._loaded, found)
        return at < len(self._loaded) and self._loaded[at] == found

    def absent(self, request_id: str) -> None:
        """The database holds no row of ``request_id``, whose digest matched."""
        if len(self._absent) >= ABSENT:
            self._absent.clear()
        self._absent.add(request_id)

    def __len__(self) -> int:
        return len(self._loaded) + len(self._since)


__all__ = ["RequestIndex", "digest"]
