"""Requests naming stored stat blocks, resolved once for every frame of the same text.

The GM's client names the blocks it keeps on the server by reference, and sends the same
request text over and over (a new id each time): the reader then takes the body it validated
before (:class:`arbiter.bridge.pure.known_bodies._Known`), the very same referencing body object, for
every frame of that keeper with that text after the id. Resolving it
(:meth:`arbiter.bridge.stat_block_resolving.Resolver.resolve`: the body as written read back
from the log's text, the stored blocks' models plugged in, the log's text with the blocks
filled in) is, for a request whose id is not logged, a function of that body, of whom the
request is decided for (the GM, or the player and the participants he holds), of the rules
snapshot and of the stored blocks it names as :class:`~arbiter.bridge.stat_block_kept.Kept`
holds them. So :class:`Plugs` keeps each result for a body the reader kept
(:attr:`arbiter.bridge.reading.Sent.kept`: an entry for any other body would never be taken,
and would only make the garbage collector work), by the body's identity and the viewer, and
gives it back only while those are all the same:

* the entry holds the body it was made for (so its ``id`` is never another object's) and is
  taken only for that very object, for the same viewer (the GM, or the same player holding the
  same participants: a player's change of participants or the GM's relay for another player is
  another key), under the same snapshot;
* each block the entry used is taken only while ``Kept`` holds the very same
  (:data:`~arbiter.bridge.stat_block_kept.Found`) tuple for it: ``Kept`` lets a block go when
  the vault puts or deletes it, when the rules change and when a commit fails, so the next
  request after any of those resolves afresh, from the store, exactly as it did before this
  cache (and as it does on any miss).

A hit is thus what resolving afresh would give, byte for byte and model for model: the same
plugged body object (the engines only read the bodies they are given: the reader already
relies on it for its kept bodies, and tests/bridge/test_stat_block_plugs.py checks it of these),
the same log text (the log's text after the request's id, with the new id written in front by
the same JSON writer), the same shielding. Only a viewer's own frames reach his entries (the
reader keeps bodies per keeper, and the key names the viewer). The entries are one pool,
let go all at once when full, as the reader's kept bodies are: a keeper who fills it makes the
next repeat of another keeper's text resolve afresh, which tells him only that the pool was
full, never what it held.

Entries made under one rules snapshot are never taken under another, and each holds its
snapshot (engines, validators, reader: megabytes): the first request under new rules lets them
all go, so a reload leaves no old snapshot alive here.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import NamedTuple

import orjson
from pydantic import BaseModel

from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.stat_block_kept import Found, Kept
from arbiter.bridge.views import Viewer


class Plug(NamedTuple):
    """One request text's resolution (its id aside)."""

    body: object
    """The body the reader gave (a model: referencing, or a player's with others' blocks) (held: the key is its identity)."""
    rules: RulesSnapshot
    envelope: tuple[str, str, str | None]
    """The request's ruleset, type and encounter."""
    blocks: tuple[tuple[tuple[str, str], Found], ...]
    """Each stored block used, by ruleset and participant, as :class:`Kept` held it."""
    plugged: BaseModel
    """The request type's own body model, every stored block plugged in."""
    tail: str
    """The log's text of the request after its ``id`` member's value."""
    references: int
    """How many references the frame writes (each ``"stored"`` once)."""
    shielded: bool
    others: bool


def tail_of(rid: str, logged: bytes) -> str | None:
    """The text of ``logged`` (the log's text of a request of id ``rid``, as ``orjson.dumps``
    writes it) after its id (None: it does not open with that id)."""
    head = b'{"id":' + orjson.dumps(rid)
    return logged[len(head) :].decode() if logged.startswith(head) else None


class Plugs:
    """Resolved requests by the identity of their body and their viewer, bounded in number and
    in the bytes of their log texts (all are let go when more come, as the reader's kept bodies
    are)."""

    KEPT = 64
    """Entries kept at most."""
    HELD = 1 << 20
    """The bytes the entries' log texts may hold at most, as CPython stores them."""

    __slots__ = ("_entries", "_held", "_rules", "kept")

    def __init__(self, kept: Kept) -> None:
        self.kept = kept
        self._entries: dict[Hashable, Plug] = {}
        self._held = 0
        self._rules: RulesSnapshot | None = None
        """The snapshot every entry was made under (None: no entry)."""

    @staticmethod
    def key(body: object, viewer: Viewer) -> Hashable:
        """An entry's key: the body's identity and the viewer (:meth:`find` writes it out)."""
        return (id(body), viewer.gm, viewer.player, viewer.participants)

    def find(
        self,
        body: object,
        viewer: Viewer,
        rules: RulesSnapshot,
        envelope: tuple[str, str, str | None],
    ) -> Plug | None:
        """The entry made for ``body`` (that very object) and ``viewer`` under ``rules``, for a
        request of ``envelope``, when every block it used is the one ``Kept`` holds now; else
        None (resolve afresh)."""
        if rules is not self._rules:
            # New rules: no entry can be taken again, and each holds its old snapshot.
            self.forget()
            return None
        entry = self._entries.get((id(body), viewer.gm, viewer.player, viewer.participants))
        if (
            entry is None
            or entry.body is not body
            or entry.rules is not rules
            or entry.envelope != envelope
        ):
            return None
        kept = self.kept
        if kept.rules is not rules:
            return None
        blocks = kept.blocks
        for where, found in entry.blocks:
            if blocks.get(where) is not found:
                return None
        return entry

    def keep(self, entry: Plug, viewer: Viewer) -> None:
        """Keep ``entry`` for requests of its body and ``viewer``."""
        size = sys.getsizeof(entry.tail)
        if size > self.HELD:
            return
        if entry.rules is not self._rules:
            self.forget()
            self._rules = entry.rules
        key = self.key(entry.body, viewer)
        old = self._entries.pop(key, None)
        if old is not None:
            self._held -= sys.getsizeof(old.tail)
        if len(self._entries) >= self.KEPT or self._held + size > self.HELD:
            self._entries.clear()
            self._held = 0
        self._entries[key] = entry
        self._held += size

    def forget(self) -> None:
        """Let every entry go."""
        self._entries.clear()
        self._held = 0
        self._rules = None


__all__ = ["Plug", "Plugs", "tail_of"]
