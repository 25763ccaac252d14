"""The stored stat blocks a request named, kept validated while the rules are the same.

A request that names a stored block (a reference, or a player's block of somebody he does not
hold) is decided with that block's model. Validating it is most of a request's cost, and a
stored block changes only when the GM puts or deletes it: so each block read for a request is
kept here with its model, validated once per rules snapshot
(:func:`~arbiter.bridge.stat_block_door.validated_block`), until the vault writes it
(:meth:`Kept.drop`), the rules change, or a commit fails (:meth:`Kept.forget`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.stat_block_door import validated_block
from arbiter.bridge.stores import WorldStore

DOOR_KEPT = 4096
"""At most this many validated stored blocks are kept (then they are validated afresh)."""

Found = tuple[dict[str, Any], BaseModel | None]
"""A stored block's JSON, and its model under the rules asked for (None: refused, or none asked)."""


class Kept:
    """The blocks of one world's store read for requests, with their models under one rules
    snapshot. Only the vault writes the table, and it tells this cache of every write."""

    def __init__(self, store: WorldStore) -> None:
        self.store = store
        self.blocks: dict[tuple[str, str], Found] = {}
        """Each stored block (by ruleset and participant) as last read for a request: its
        JSON and its model validated under :attr:`rules` (None: refused)."""
        self.rules: RulesSnapshot | None = None

    def stored(self, ruleset: str, participant: str, rules: RulesSnapshot | None) -> Found | None:
        """The stored block of ``participant`` (None: none) and, under ``rules`` (when given),
        its model validated as a request's stat block is (None: the rules refuse it, or no
        ``rules``). Kept while the rules are the same: the vault writes every block it serves
        (:meth:`drop`), and a failed commit forgets all (:meth:`forget`)."""
        if rules is None:
            found = self.store.stat_block(ruleset, participant)
            return None if found is None else (json.loads(found.block), None)
        if self.rules is not rules or len(self.blocks) >= DOOR_KEPT:
            self.rules, self.blocks = rules, {}
        key = (ruleset, participant)
        kept = self.blocks.get(key)
        if kept is None:
            row = self.store.stat_block(ruleset, participant)
            if row is None:
                return None
            block = json.loads(row.block)
            kept = (block, validated_block(ruleset, block, rules.context))
            self.blocks[key] = kept
        return kept

    def drop(self, ruleset: str, participant: str) -> None:
        """Forget the kept block of ``participant`` (the vault is writing it)."""
        self.blocks.pop((ruleset, participant), None)

    def forget(self) -> None:
        """Forget every kept block: the store's writes may have been rolled back."""
        self.blocks = {}
