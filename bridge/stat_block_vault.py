"""The GM's stat blocks, kept on the server: only the GM reads them; requests name them.

Foundry sends every actor, and every world setting, to every browser: a stat block kept there
is a stat block every player can read. So the GM client keeps them here instead, in the store
table ``stat_blocks`` (one row per ruleset and participant, the block's own ``id``), durable
with the roll log. :class:`Vault` is that table; its jobs are each in their own module:

* the vault's messages (the GM's ``put_stat_block`` and ``delete_stat_block``,
  ``get_stat_block``, ``list_stat_blocks``): :mod:`arbiter.bridge.stat_block_answers`;
* a request's references to stored blocks, and a player's blocks of others, replaced by the
  stored blocks (and the shielded refusals): :mod:`arbiter.bridge.stat_block_resolving`;
* the stored blocks requests named, kept validated per rules snapshot:
  :mod:`arbiter.bridge.stat_block_kept`;
* requests of the same text naming stored blocks, resolved once while those blocks are kept:
  :mod:`arbiter.bridge.stat_block_plugs`.

A stored block was valid when it was put; a rules reload may remove what it names (a weapon, an
armour). :meth:`Vault.recheck` validates the stored blocks of the changed rulesets again (the
server calls it at start and after every reload, and tells the GM's connections,
``stat_blocks_invalid``); what it found stays noted (:attr:`Vault.invalid`) so that the GM's
``list_stat_blocks`` flags those blocks with their problems until they are put again or deleted,
and a GM connection welcomed meanwhile is told of them (:meth:`Vault.noted_invalid`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from arbiter.bridge.checking import Check, FieldProblem, checked
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RulesSnapshot
from arbiter.bridge.stat_block_answers import READ_FORBIDDEN, WRITE_FORBIDDEN, answer
from arbiter.bridge.stat_block_kept import DOOR_KEPT, Found, Kept
from arbiter.bridge.stat_block_references import is_reference, matches, references, substitute
from arbiter.bridge.stat_block_resolving import MAX_REFERENCES, Resolver
from arbiter.bridge.stat_block_shield import (
    ANOTHERS,
    MUST_BE_STORED,
    SHIELDED,
    Resolved,
    written_by,
)
from arbiter.bridge.stores import StatBlock, WorldStore
from arbiter.bridge.vault_messages import InvalidStatBlock, VaultMessage
from arbiter.bridge.views import Viewer
from arbiter.compiler.model.common import RulesetBase


@dataclass(frozen=True)
class Stored:
    """One stored block."""

    ruleset: str
    participant: str
    block: dict[str, Any]
    actor: str | None
    updated: float

    @property
    def name(self) -> str | None:
        """The block's ``name``, when it is a string (as lists and events show it)."""
        name = self.block.get("name")
        return name if isinstance(name, str) else None


def _invalid(stored: Stored, problems: list[FieldProblem]) -> InvalidStatBlock:
    """``stored`` as a ``stat_blocks_invalid`` event names it, with ``problems``."""
    return InvalidStatBlock(
        ruleset=stored.ruleset,
        participant=stored.participant,
        name=stored.name,
        actor=stored.actor,
        problems=problems,
    )


class Vault:
    """The ``stat_blocks`` table of one world's store, and the messages that reach it."""

    def __init__(self, store: WorldStore) -> None:
        self.store = store
        self.invalid: dict[tuple[str, str], InvalidStatBlock] = {}
        """Each stored block (by ruleset and participant) that the served rules refused when
        last rechecked, with its problems; a put or delete of the block forgets its entry."""
        self.kept = Kept(store)
        """The stored blocks requests named, validated per rules snapshot."""
        self.resolver = Resolver(store, self.kept)

    @property
    def _door(self) -> dict[tuple[str, str], Found]:
        """The blocks kept validated for requests (:attr:`Kept.blocks`)."""
        return self.kept.blocks

    # --- the table ---

    def get(self, ruleset: str, participant: str) -> Stored | None:
        row = self.store.stat_block(ruleset, participant)
        if row is None:
            return None
        return Stored(ruleset, participant, json.loads(row.block), row.actor, row.updated)

    def entries(self, ruleset: str | None = None) -> list[Stored]:
        """Every stored block (of ``ruleset``), by ruleset and participant."""
        rows = self.store.stat_blocks(ruleset)
        return [Stored(r, p, json.loads(b), a, u) for r, p, b, a, u in rows]

    def put(self, ruleset: str, block: dict[str, Any], actor: str | None, now: float) -> None:
        """Store ``block`` (already checked: it has a string ``id``) inside the open
        transaction, if any: the caller's reply waits for the commit."""
        text = json.dumps(block, ensure_ascii=False)
        self.kept.drop(ruleset, block["id"])
        self.store.put_stat_block(StatBlock(ruleset, block["id"], text, actor, now))

    def delete(self, ruleset: str, participant: str) -> None:
        self.invalid.pop((ruleset, participant), None)
        self.kept.drop(ruleset, participant)
        self.store.delete_stat_block(ruleset, participant)

    # --- messages ---

    def handle(
        self, message: VaultMessage, viewer: Viewer, served: Mapping[str, RulesetBase]
    ) -> BaseModel:
        """The answer to one vault message from ``viewer``
        (:func:`arbiter.bridge.stat_block_answers.answer`)."""
        return answer(self, message, viewer, served)

    def recheck(
        self, rulesets: Iterable[str], served: Mapping[str, RulesetBase]
    ) -> list[InvalidStatBlock]:
        """Validate every stored block of ``rulesets`` under ``served`` (as ``put_stat_block``
        would), note the result in :attr:`invalid`, and return the refused blocks, by ruleset
        and participant, with their problems. A ruleset no longer served refuses all its
        blocks (a problem on the field ``ruleset``)."""
        found: list[InvalidStatBlock] = []
        for ruleset in sorted(set(rulesets)):
            for stored in self.entries(ruleset):
                key = (stored.ruleset, stored.participant)
                check = Check(v=1, type="check", ruleset=stored.ruleset, stat_block=stored.block)
                answer = checked(check, served)
                if answer.ok:
                    self.invalid.pop(key, None)
                    continue
                found.append(_invalid(stored, answer.problems))
                self.invalid[key] = found[-1]
        return found

    def noted_invalid(self) -> list[InvalidStatBlock]:
        """The stored blocks the served rules refused when last rechecked (:attr:`invalid`),
        by ruleset and participant, with their problems; empty when none is noted. For a GM
        connection welcomed after the recheck that found them (``stat_blocks_invalid``)."""
        # Noted whole by recheck (the block has not changed since: a put or delete forgets
        # its entry), so no query.
        return [self.invalid[key] for key in sorted(self.invalid)]

    def problems(self, stored: Stored) -> list[FieldProblem] | None:
        """The problems noted of ``stored`` when last rechecked (None: none)."""
        noted = self.invalid.get((stored.ruleset, stored.participant))
        return None if noted is None else noted.problems

    def rulesets(self) -> set[str]:
        """The rulesets that have a stored block."""
        return {row.ruleset for row in self.store.stat_blocks()}

    # --- requests ---

    def resolve(
        self,
        read: RequestMessage | Sent,
        viewer: Viewer,
        admit: Callable[[RequestMessage], object] | None = None,
        rules: RulesSnapshot | None = None,
    ) -> Resolved:
        """``read`` with each reference to a stored block replaced by that block
        (:meth:`arbiter.bridge.stat_block_resolving.Resolver.resolve` says how)."""
        return self.resolver.resolve(read, viewer, admit, rules)

    def forget(self) -> None:
        """Drop every block kept for requests (:class:`~arbiter.bridge.stat_block_kept.Kept`):
        the store's writes may have been rolled back (the server calls it when a commit
        fails)."""
        self.kept.forget()
        self.resolver.plugs.forget()


__all__ = [
    "ANOTHERS",
    "DOOR_KEPT",
    "MAX_REFERENCES",
    "MUST_BE_STORED",
    "READ_FORBIDDEN",
    "SHIELDED",
    "WRITE_FORBIDDEN",
    "Resolved",
    "Stored",
    "Vault",
    "is_reference",
    "matches",
    "references",
    "substitute",
    "written_by",
]
