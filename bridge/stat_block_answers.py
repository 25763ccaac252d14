"""The vault's own messages: the GM stores and deletes blocks; a connection reads and lists.

* ``put_stat_block`` (GM only) stores a block the ``check`` message would accept
  (:mod:`arbiter.bridge.checking`: the same validation, the same ``checked`` answer), so a
  stored block is always valid for its ruleset as it was served then. ``delete_stat_block``
  (GM only) forgets one.
* ``get_stat_block``: the GM gets any; a player only a participant he holds (a player's own
  character), with one refusal whatever is stored for anybody else. ``list_stat_blocks``: the
  GM hears of every block, a player of his own participants' only (the GM's entries carry the
  problems the last recheck noted).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel

from arbiter.bridge.checking import Check, Checked, checked
from arbiter.bridge.protocol import Pong
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.vault_messages import (
    DeleteStatBlock,
    GetStatBlock,
    PutStatBlock,
    StatBlockEntry,
    StatBlockList,
    StatBlockReply,
    VaultMessage,
)
from arbiter.bridge.views import Viewer
from arbiter.compiler.model.common import RulesetBase

if TYPE_CHECKING:
    from arbiter.bridge.stat_block_vault import Vault

WRITE_FORBIDDEN = "only the GM's connection may store or delete stat blocks"
READ_FORBIDDEN = "this connection may read only the stat blocks of the participants it holds"


def answer(
    vault: Vault, message: VaultMessage, viewer: Viewer, served: Mapping[str, RulesetBase]
) -> BaseModel:
    """The answer to one vault message from ``viewer`` (``served``: the served rule models
    by ruleset id, which a block to store is checked under); raises ProtocolError
    (``forbidden``, ``not_found``) naming why not. A forbidden message's words depend on
    nothing but its type: never on what is stored."""
    if isinstance(message, PutStatBlock):
        if not viewer.gm:
            raise ProtocolError("forbidden", WRITE_FORBIDDEN, message.id)
        check = Check(v=1, type="check", id=message.id, ruleset=message.ruleset,
                      stat_block=message.stat_block)  # fmt: skip
        verdict: Checked = checked(check, served)
        if verdict.ok:
            vault.put(message.ruleset, message.stat_block, message.actor, time.time())
            vault.invalid.pop((message.ruleset, message.stat_block["id"]), None)
        return verdict
    if isinstance(message, DeleteStatBlock):
        if not viewer.gm:
            raise ProtocolError("forbidden", WRITE_FORBIDDEN, message.id)
        vault.delete(message.ruleset, message.participant)
        return Pong(id=message.id)
    if isinstance(message, GetStatBlock):
        if not viewer.sees(message.participant):
            raise ProtocolError("forbidden", READ_FORBIDDEN, message.id)
        found = vault.get(message.ruleset, message.participant)
        if found is None:
            raise ProtocolError(
                "not_found",
                f"no {message.ruleset} stat block of {message.participant!r} is stored "
                "(the GM saves one with the stat-block editor)",
                message.id,
            )
        return StatBlockReply(
            id=message.id,
            ruleset=found.ruleset,
            participant=found.participant,
            stat_block=found.block,
            actor=found.actor,
            updated=found.updated,
        )
    listed = [s for s in vault.entries(message.ruleset) if viewer.sees(s.participant)]
    return StatBlockList(
        id=message.id,
        entries=[
            StatBlockEntry(
                ruleset=s.ruleset,
                participant=s.participant,
                name=s.name,
                actor=s.actor,
                updated=s.updated,
                problems=vault.problems(s) if viewer.gm else None,
            )
            for s in listed
        ],
    )
