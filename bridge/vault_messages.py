"""The messages of the stat-block vault: the GM's stat blocks kept on the server.

Client → server (``put_stat_block``, ``get_stat_block``, ``list_stat_blocks``,
``delete_stat_block``) and server → client (``stat_block``, ``stat_blocks``; a put is answered
with ``checked``, a delete with ``pong``). What they do and who may send them:
:mod:`arbiter.bridge.stat_block_vault` and ``docs/protocol.md`` ("Stat blocks on the server").
Kept apart from :mod:`arbiter.bridge.protocol`, which only names these models (it imports this
module; this module imports nothing of the protocol's, so there is no cycle).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from arbiter.bridge.checking import FieldProblem

MessageId = Annotated[str, Field(min_length=1, max_length=128)]
ParticipantId = Annotated[str, Field(min_length=1, max_length=128)]
RulesetId = Annotated[str, Field(min_length=1, max_length=64)]
Version = Annotated[
    int,
    Field(strict=True, ge=1, le=1),
    WithJsonSchema({"const": 1, "title": "V", "type": "integer"}),
]


class _ClientMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Version
    id: MessageId | None = None


class PutStatBlock(_ClientMessage):
    """GM only: keep ``stat_block`` as ``ruleset``'s block of the participant its ``id`` names
    (replacing any), if the ``check`` message would accept it; answered with ``checked``
    (``ok`` false: nothing was stored, ``problems`` say why)."""

    type: Literal["put_stat_block"]
    ruleset: RulesetId
    stat_block: dict[str, Any]
    actor: ParticipantId | None = Field(
        default=None, description="the Foundry actor the block belongs to (the GM client's note)"
    )


class GetStatBlock(_ClientMessage):
    """The stored block of one participant; a player only for a participant he holds."""

    type: Literal["get_stat_block"]
    ruleset: RulesetId
    participant: ParticipantId


class ListStatBlocks(_ClientMessage):
    """Which blocks are stored (``ruleset`` null: all); a player hears only of his own."""

    type: Literal["list_stat_blocks"]
    ruleset: RulesetId | None = None


class DeleteStatBlock(_ClientMessage):
    """GM only: forget one participant's block (no error if there was none); ``pong``."""

    type: Literal["delete_stat_block"]
    ruleset: RulesetId
    participant: ParticipantId


VaultMessage = PutStatBlock | GetStatBlock | ListStatBlocks | DeleteStatBlock
"""Every client message of the vault (members of the protocol's client message union)."""


class StatBlockReply(BaseModel):
    """Server → client: the answer to ``get_stat_block``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1
    type: Literal["stat_block"] = "stat_block"
    id: str | None = None
    ruleset: str
    participant: str
    stat_block: dict[str, Any]
    actor: str | None = None
    updated: float


class StatBlockEntry(BaseModel):
    """One stored block, as ``stat_blocks`` lists it (without its numbers)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruleset: str
    participant: str
    name: str | None = None
    actor: str | None = None
    updated: float
    problems: list[FieldProblem] | None = Field(
        default=None,
        description="GM only: why the served rules no longer accept this block (null: they do, "
        "or the reader is a player)",
    )


class InvalidStatBlock(BaseModel):
    """One stored block the served rules no longer accept, and why (field by field)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruleset: str
    participant: str
    name: str | None = None
    actor: str | None = None
    problems: list[FieldProblem]


class StatBlockList(BaseModel):
    """Server → client: the answer to ``list_stat_blocks``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1
    type: Literal["stat_blocks"] = "stat_blocks"
    id: str | None = None
    entries: list[StatBlockEntry]


__all__ = [
    "DeleteStatBlock",
    "GetStatBlock",
    "InvalidStatBlock",
    "ListStatBlocks",
    "PutStatBlock",
    "StatBlockEntry",
    "StatBlockList",
    "StatBlockReply",
    "VaultMessage",
]
