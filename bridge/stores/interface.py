"""What the server needs of a world's store, whichever database holds it.

Two backends implement :class:`WorldStore`: :class:`arbiter.bridge.store.Store` (SQLite, one
world in its data directory, the default) and :class:`arbiter.bridge.stores.postgres.PostgresStore`
(every world of a host, or of many hosts, in one PostgreSQL database; docs/scaling.md).

Every read is synchronous: the engine and the decide path never await. The SQLite store reads
its file; the PostgreSQL store reads a cache of its world loaded when the world is opened
(claimed) and kept in step by its own writes, which are the only writes its world receives.
Every write is *staged*: visible at once to this store's reads, durable (and visible to anybody
else) at the latest when :meth:`WorldStore.flush` returns. (The SQLite store commits a write
made while nothing is staged at once, as it always has; the PostgreSQL store holds every write
for the next flush.) The one awaitable is that group commit; a
caller tells nobody about a staged row before it returns. A flush that fails loses exactly the
writes staged since the last flush that succeeded, and the chain goes on from the last
committed row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol, runtime_checkable

from arbiter.bridge.records import Encounter, NewRoll, Player, Roll, Session


class RequestLogged(sqlite3.IntegrityError):
    """:meth:`WorldStore.stage` of a request id already logged (committed or staged) in the
    world. A subclass of ``sqlite3.IntegrityError``, which the SQLite store raised for it before
    the interface existed, so callers written against it still catch it."""


class RowNotCached(LookupError):
    """:meth:`WorldStore.find` of a request id that is logged, in a row the store does not hold
    in memory (the PostgreSQL store holds the most recent rows whole, and every id; seldom, an
    id whose compact digest matches a logged one's). The id must not be decided before
    :meth:`WorldStore.recall` (awaited off the decide path) read the row or found none; then
    ask again."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"request id {request_id!r} is logged; its row is not in memory")
        self.request_id = request_id


class StaleWriter(RuntimeError):
    """The world's head or ownership epoch moved under this store since it loaded its cache:
    another writer committed (or claimed the world). Nothing staged was committed; this store
    must not write the world again."""


class UnstorableText(ValueError):
    """A write whose text the backend cannot hold (PostgreSQL's text: a NUL character);
    nothing was staged. Refused when staged, so it fails alone rather than the whole group
    commit it would have joined."""


class StatBlock(NamedTuple):
    """One stored stat block of the GM's vault (``arbiter.bridge.stat_block_vault``)."""

    ruleset: str
    participant: str
    block: str
    """The block's JSON text, as the vault wrote it."""
    actor: str | None
    updated: float


@runtime_checkable
class WorldStore(Protocol):
    """One world's durable store: the roll log and what lives beside it.

    Opening and closing are each backend's own (a file for SQLite, a claim on a shared database
    for PostgreSQL); everything the server does with an open store is here.
    """

    # --- the roll log ---

    def find(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id`` (staged rows included), or None. Raises
        :class:`RowNotCached` when the id is logged but its row must be read first
        (:meth:`recall`): never None for a logged id."""
        ...

    async def recall(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id``, read from the database when it is not in memory;
        :meth:`find` then returns it until the caller next awaits. None: not logged."""
        ...

    def cached_from(self) -> int:
        """The first seq whose row :meth:`rolls` reads from memory (every later row too);
        older rows are read with :meth:`read_rolls` off the decide path. 1 for SQLite."""
        ...

    async def read_rolls(self, after: int, upto: int) -> list[Roll]:
        """The committed rows ``after < seq <= upto``, in log order, read from the database
        (a gap replay's rows before :meth:`cached_from`; the caller bounds how many)."""
        ...

    def stage(self, roll: NewRoll, encoded: tuple[bytes, bytes, bytes] | None = None) -> Roll:
        """Add ``roll`` as the next row of the chain (and move its encounter's state: the
        outcome's ``state`` when not null); durable at the next :meth:`flush`. ``encoded``: the
        UTF-8 bytes of its ``request``, ``dice`` and ``outcome`` when the caller has them.
        Raises :class:`RequestLogged` when its request id is logged; nothing is staged then."""
        ...

    @property
    def pending(self) -> bool:
        """True while :meth:`flush` has something to do (or a failure to report)."""
        ...

    @property
    def flush_now(self) -> Callable[[], None] | None:
        """:meth:`flush` as a plain call, for a store whose flush never suspends (SQLite's
        commit): the group commit then runs its groups from a callback, without a task
        (:mod:`arbiter.bridge.committing`). None: the flush may suspend (a PostgreSQL round
        trip), and is awaited."""
        ...

    async def flush(self) -> None:
        """Make every staged write durable, in one transaction. On failure it raises and
        nothing staged since the last flush survives (the chain resumes from the last
        committed row).

        Writes may be staged while a flush is awaited (one flush at a time): they go to the
        next flush. Should the flush in flight fail, they are lost with it (they chain on its
        rows), and the next flush raises for them."""
        ...

    def rolls(self, after: int = 0, session: str | None = None) -> Iterator[Roll]:
        """Rows in log order (``seq`` greater than ``after``), optionally of one session: the
        whole log. Rows before :meth:`cached_from` are read from the database, blocking (the
        offline commands; the server reads them with :meth:`read_rolls`)."""
        ...

    def count(self) -> int:
        """How many rows the log holds (staged ones included)."""
        ...

    def verify_chain(self) -> list[str]:
        """Problems with the hash chain (empty when every row links to the one before)."""
        ...

    def encounter(self, encounter_id: str) -> Encounter | None:
        """The encounter's current state, as its last row with a state left it."""
        ...

    # --- sessions ---

    def open_session(self, session: Session) -> None: ...

    def end_session(self, session_id: str, now: float) -> None:
        """Mark an open session ended at ``now`` (an ended one keeps its end)."""
        ...

    def end_open_sessions(self, now: float) -> int:
        """Mark every session still open as ended (its writer is gone); how many were."""
        ...

    def session(self, session_id: str) -> Session | None: ...

    def sessions(self) -> list[Session]:
        """Every session, by start time."""
        ...

    # --- players ---

    def player(self, name: str) -> Player | None: ...

    def player_by_hash(self, token_hash: str) -> Player | None: ...

    def players(self) -> list[Player]:
        """Every player record (revoked ones included), by name."""
        ...

    def put_player(self, player: Player) -> None:
        """Create or replace a player record."""
        ...

    def bind_player(self, player: Player) -> None:
        """A GM's ``bind`` of ``player.name`` to ``player.participants``
        (:func:`arbiter.bridge.players.bind`), decided on what is stored when it is written,
        never on the record the caller read: a new record holds no token; an existing one
        takes the participants and keeps its stored token, or, revoked, is made active again
        without one. A token rotated or revoked by another process meanwhile (``arbiter
        token``) is never written back. ``player`` is what the caller expects (its reads
        show it until the stored record is read again)."""
        ...

    # --- the GM's stat blocks ---

    def stat_block(self, ruleset: str, participant: str) -> StatBlock | None: ...

    def stat_blocks(self, ruleset: str | None = None) -> list[StatBlock]:
        """Every stored block (of ``ruleset``), by ruleset and participant."""
        ...

    def put_stat_block(self, block: StatBlock) -> None:
        """Create or replace the block of ``(block.ruleset, block.participant)``."""
        ...

    def delete_stat_block(self, ruleset: str, participant: str) -> None: ...


__all__ = [
    "RequestLogged",
    "RowNotCached",
    "StaleWriter",
    "StatBlock",
    "UnstorableText",
    "WorldStore",
]
