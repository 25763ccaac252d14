"""The websocket protocol between Foundry clients and ``arbiter serve`` (message version 1).

Every message is one JSON text frame: an object with ``v`` (the protocol version, 1) and ``type``.
Client → server: ``hello`` (must be first), ``request``, ``ping``, ``subscribe``, ``bind``,
``check`` (:mod:`arbiter.bridge.checking`) and the stat-block vault's ``put_stat_block``,
``get_stat_block``, ``list_stat_blocks``, ``delete_stat_block``
(:mod:`arbiter.bridge.vault_messages`).
Server → client: ``welcome``, ``outcome``, ``error``, ``event``, ``pong``, ``checked``,
``stat_block``, ``stat_blocks``.
``docs/protocol.md`` describes each with an example; ``python -m arbiter.bridge.protocol_schemas DIR`` writes
their JSON Schemas (``docs/schemas/``), which the module build ships for the client.

The models are the edge of the server: anything a client sends is validated here first, in
strict mode (``"5"`` is not 5, as in the rule files), and a message that fails is answered with
an :class:`ErrorMessage` naming the field at fault.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, WithJsonSchema

from arbiter.bridge.checking import Check, Checked
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.vault_messages import (
    DeleteStatBlock,
    GetStatBlock,
    InvalidStatBlock,
    ListStatBlocks,
    PutStatBlock,
    StatBlockList,
    StatBlockReply,
)

VERSION = 1
"""The protocol version every message carries as ``v``."""

ClientId = Annotated[str, Field(min_length=1, max_length=128)]
ProtocolVersion = Annotated[
    int,
    Field(strict=True, ge=VERSION, le=VERSION),
    WithJsonSchema({"const": VERSION, "title": "V", "type": "integer"}),
]
"""``v`` as a client must write it: the JSON integer 1. ``Literal[1]`` would also take ``true``
and ``1.0`` (equal to 1 in Python), even in strict mode."""
EventName = Literal["outcome", "rules"]
"""Event streams a client may subscribe to: other clients' outcomes, rule changes."""

ErrorCode = Literal[
    "bad_json",
    "binary_frame",
    "too_large",
    "rate_limited",
    "invalid_message",
    "unsupported_version",
    "unauthorized",
    "already_authenticated",
    "unknown_ruleset",
    "unknown_request_type",
    "invalid_request",
    "rules_forbid",
    "id_conflict",
    "scripted_dice_refused",
    "dice_error",
    "encounter_mismatch",
    "encounter_required",
    "forbidden",
    "unknown_player",
    "not_found",
    "unavailable",
    "internal",
]
"""Why a message was refused; the ``message`` field says exactly what was wrong."""


class Message(BaseModel):
    """Base of every message: version 1, unknown fields rejected, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    v: Literal[1] = 1


# --- client → server ----------------------------------------------------------------------------


class ClientMessageBase(Message):
    """A client message must say which protocol version it speaks."""

    v: ProtocolVersion  # type: ignore[assignment]  # narrower at the edge: the integer 1 only


class ClientInfo(BaseModel):
    """Who is connecting: shown in the log as the user of every roll this connection asks for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, description="client software, e.g. 'arbiter'")
    version: str = Field(default="", max_length=32)
    user: str = Field(default="", max_length=128, description="Foundry user id or name")
    role: Literal["gm", "player"] = "player"
    participants: list[ClientId] = Field(
        default_factory=list,
        max_length=256,
        description="ignored (kept so older clients still say hello): the server alone knows "
        "which participants a connection holds, from the token it said hello with",
    )


class Hello(ClientMessageBase):
    """The first message: authenticates. ``token`` is the world secret (``arbiter token``: a GM
    connection) or a player token (``arbiter token --player NAME``: that player's connection)."""

    type: Literal["hello"]
    token: str = Field(min_length=1, max_length=256)
    client: ClientInfo
    events: list[EventName] = Field(
        default=["outcome", "rules"], description="event streams to receive (see subscribe)"
    )
    since: int | None = Field(
        default=None,
        description="the last outcome seq this client saw (on an earlier connection): right "
        "after the welcome the server replays, in seq order, the outcome events of every row "
        "after it, each marked replayed, then goes on live (needs the outcome events)",
    )


class RequestMessage(ClientMessageBase):
    """A roll or rules request: ``request`` is the envelope of ``docs/requests.md``.

    ``request.id`` is an idempotency key: sending the same id again returns the stored outcome.
    ``dice`` (scripted results) is refused unless the server runs with ``--allow-scripted-dice``.
    ``player`` (GM connections only): relay for that player, whose rights and view apply.
    """

    type: Literal["request"]
    request: Request
    dice: list[int] | None = Field(default=None, max_length=10_000)
    player: ClientId | None = Field(
        default=None,
        description="GM connections only: the request is a player's, relayed; it is authorised "
        "and answered as if that player's own connection had sent it",
    )


class Ping(ClientMessageBase):
    """A liveness check; answered with ``pong`` carrying the same id."""

    type: Literal["ping"]
    id: ClientId | None = None


class Subscribe(ClientMessageBase):
    """Replace this connection's event streams (``[]`` stops all events)."""

    type: Literal["subscribe"]
    id: ClientId | None = None
    events: list[EventName]


class Bind(ClientMessageBase):
    """GM connections only: create or update a player record (no token: the player relays
    through the GM); answered with ``pong`` carrying the same id."""

    type: Literal["bind"]
    id: ClientId | None = None
    player: ClientId
    participants: list[ClientId] = Field(max_length=256)


ClientMessage = Annotated[
    Hello
    | RequestMessage
    | Ping
    | Subscribe
    | Bind
    | Check
    | PutStatBlock
    | GetStatBlock
    | ListStatBlocks
    | DeleteStatBlock,
    Field(discriminator="type"),
]
CLIENT_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


# --- server → client ----------------------------------------------------------------------------


class RulesetInfo(BaseModel):
    """A served ruleset: its version and content hash, and the request types it accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str
    version: str
    hash: str
    requests: list[str]


class ServerInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["arbiter"] = "arbiter"
    version: str


class LimitsInfo(BaseModel):
    """The limits this server enforces on every connection."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_message_bytes: int
    rate_per_second: float
    burst: int
    auth_timeout_seconds: float
    max_dice_per_request: int


class You(BaseModel):
    """Who the server takes this connection for: the GM (``gm`` true, ``player`` null) or a
    player and the participants he holds (the only ones whose private data he receives)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    player: str | None
    gm: bool = False
    participants: list[str] = Field(default_factory=list)


class Welcome(Message):
    """Answer to a good ``hello``: the session and its dice commitment.

    ``commitment`` is the hex SHA-256 of this session's dice seed; ``arbiter reveal SESSION``
    publishes the seed once the session has ended, so anyone can recompute every roll.
    ``you`` says who the connection is; ``players`` (GM connections only, else null) lists every
    active player record's participants by name.
    """

    type: Literal["welcome"] = "welcome"
    session: str
    commitment: str
    rulesets: dict[str, RulesetInfo]
    server: ServerInfo
    limits: LimitsInfo
    scripted_dice: bool = False
    you: You
    players: dict[str, list[str]] | None = None
    head: int = Field(
        default=0,
        description="the last row of the roll log whose outcome event went out before this "
        "connection's: its outcome events are those after it (a hello without since is sent "
        "the few committed between the welcome and its joining, replayed); a client "
        "remembers the greatest seq it saw, from here on, as its next hello's since",
    )


class OutcomeMessage(Message):
    """The outcome envelope of a request, sent after its log row is committed.

    ``replayed`` is true when the id had been decided before and this is the stored outcome.
    ``seq`` is the outcome's row number in the roll log.
    """

    type: Literal["outcome"] = "outcome"
    seq: int
    replayed: bool = False
    outcome: dict[str, Any]


class ErrorMessage(Message):
    """A refused message. ``id`` is the offending message's id when one could be read."""

    type: Literal["error"] = "error"
    id: str | None = None
    code: ErrorCode
    message: str
    retry_after: float | None = Field(
        default=None, description="for rate_limited: seconds until a message will be accepted"
    )
    unstored: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="for a player's request refused because no block of a participant he does "
        "not hold is stored: that participant's id, which the message names too (present on "
        "that refusal alone)",
    )


class RulesUpdated(Message):
    """The rules changed on disk and now serve under these versions and hashes."""

    type: Literal["event"] = "event"
    event: Literal["rules_updated"] = "rules_updated"
    rulesets: dict[str, RulesetInfo]


class RulesError(Message):
    """A rule change on disk is invalid; the previous rules keep serving (GM clients only)."""

    type: Literal["event"] = "event"
    event: Literal["rules_error"] = "rules_error"
    problems: list[str]


class StatBlocksInvalid(Message):
    """After a rules change: the stored stat blocks of the changed rulesets that the new rules
    refuse, with the problems field by field (GM clients only: the blocks are the GM's)."""

    type: Literal["event"] = "event"
    event: Literal["stat_blocks_invalid"] = "stat_blocks_invalid"
    blocks: list[InvalidStatBlock]


class OutcomeEvent(Message):
    """Another client's outcome, for every client subscribed to ``outcome`` events.

    ``replayed`` (the key only when true): sent again after a reconnect, for the hello's
    ``since`` (:mod:`arbiter.bridge.gap_replay`), not live.
    """

    type: Literal["event"] = "event"
    event: Literal["outcome"] = "outcome"
    seq: int
    replayed: bool = False
    outcome: dict[str, Any]


class GapTooLarge(Message):
    """The hello's ``since`` is more rows behind the log's last outcome than one reconnect
    replays (``limit``, or the replay would outgrow the send buffer): nothing was replayed,
    live events follow from ``head`` on; the missed outcomes are in the roll log."""

    type: Literal["event"] = "event"
    event: Literal["gap_too_large"] = "gap_too_large"
    since: int
    head: int
    """The last row whose outcome event was sent before this connection joined."""
    limit: int
    """How many rows one reconnect replays at most (``Limits.max_replay_rows``)."""
    message: str


class Pong(Message):
    type: Literal["pong"] = "pong"
    id: str | None = None


EventMessage = Annotated[
    RulesUpdated | RulesError | StatBlocksInvalid | OutcomeEvent | GapTooLarge,
    Field(discriminator="event"),
]
ServerMessage = (
    Welcome
    | OutcomeMessage
    | ErrorMessage
    | EventMessage
    | Pong
    | Checked
    | StatBlockReply
    | StatBlockList
)
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
