"""Every logged request id of a PostgreSQL world, held compactly (:class:`RequestIndex`).

The store must know every logged id synchronously (a resend is never decided again), but not
hold its row. The ids loaded when the world is opened are kept as 8-byte keyed digests in one
sorted array (8 bytes an id, against about 140 for a ``dict`` of the strings); the ids logged
since are kept as strings until there are more than a bound (the store's: 4 x its cache rows),
then folded into the array (:meth:`RequestIndex.fold_beyond`), so a world served for months
without reopening holds no more. Loading sorts the digests in 256 buckets by their top byte (a
keyed digest is uniform), one bucket at a time: the peak is about 2 x 8 bytes an id, never a
list of Python integers for the whole log. A digest can match an id never logged (two ids
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


BUCKETS = 256
"""Digests are loaded into this many buckets by their top byte, each sorted on its own."""


class RequestIndex:
    """The request ids of a world's committed rows: older ones as sorted digests, the most
    recent ones as strings."""

    def __init__(self) -> None:
        self._loaded = array("q")
        """The digests of the ids loaded at open and of those folded since, sorted."""
        self._buckets: list[array[int]] | None = None
        """While loading: the digests by top byte, unsorted (:meth:`seal` sorts them)."""
        self._since: set[str] = set()
        """The ids logged since the open or the last fold."""
        self._absent: set[str] = set()
        """Ids whose digest matched but that the database holds no row of."""

    def load(self, request_ids: Iterable[str]) -> None:
        """Take in ids of rows the database holds (at open, in batches; then :meth:`seal`)."""
        if self._buckets is None:
            self._buckets = [array("q") for _ in range(BUCKETS)]
        buckets = self._buckets
        for found in map(digest, request_ids):
            buckets[(found >> 56) + 128].append(found)

    def seal(self) -> None:
        """The ids are all loaded: sort their digests for lookups (bucket by bucket, each let
        go once sorted: the peak is the buckets and the array, 2 x 8 bytes an id)."""
        buckets, self._buckets = self._buckets, None
        if buckets is None:
            return
        merged = array("q")
        for at in range(BUCKETS):
            # One bucket's Python integers at a time (1/256 of the ids); its array let go.
            part, buckets[at] = buckets[at], array("q")
            merged.extend(sorted(part))
            del part
        if self._loaded:
            merged = _merged(self._loaded, merged)
        self._loaded = merged

    @property
    def loaded(self) -> int:
        """How many ids are held as digests (loaded, or folded since)."""
        return len(self._loaded)

    @property
    def strings(self) -> int:
        """How many ids are held as strings (logged since the open or the last fold)."""
        return len(self._since)

    def add(self, request_id: str) -> None:
        """A row of ``request_id`` was committed."""
        self._since.add(request_id)
        self._absent.discard(request_id)

    def fold_beyond(self, bound: int) -> None:
        """When more than ``bound`` ids are held as strings, fold them into the sorted digests
        (one merge of sorted arrays: the digests move by slices, the Python work is per id
        folded). Every id stays found ("maybe" is never "no")."""
        if len(self._since) <= bound:
            return
        folded = array("q", sorted(map(digest, self._since)))
        self._loaded = _merged(self._loaded, folded)
        self._since.clear()

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


def _merged(big: array[int], small: array[int]) -> array[int]:
    """The sorted merge of two sorted arrays: ``big``'s digests are copied a slice at a time
    between the places of ``small``'s (found by bisection), so the work in Python is per item
    of ``small``."""
    out = array("q")
    start = 0
    for item in small:
        at = bisect_left(big, item, start)
        out.extend(big[start:at])
        out.append(item)
        start = at
    out.extend(big[start:])
    return out


__all__ = ["RequestIndex", "digest"]
