"""The PostgreSQL store's reads (:class:`WorldReads`): through the writes staged, those of the
flush in flight, then the rows committed, each a :class:`~arbiter.bridge.stores.postgres_cache.WorldRows`.

:class:`arbiter.bridge.stores.postgres.PostgresStore` stages into the first, moves it to the
second when a flush begins, and merges the second into the third once that flush committed.
Every read is synchronous: the decide path never awaits. The committed rows are bounded
(:mod:`arbiter.bridge.stores.postgres_cache`): :meth:`WorldReads.find` of an id logged in a row
no longer held whole raises :class:`~arbiter.bridge.stores.interface.RowNotCached` (the caller
awaits ``recall`` and asks again), and :meth:`WorldReads.rolls` reads the older rows from the
database (:meth:`WorldReads._older`, blocking: offline commands and tests; the server awaits
``read_rolls`` for them instead).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from arbiter.bridge.records import Encounter, Player, Roll, Session, chain_problems
from arbiter.bridge.stores.interface import RowNotCached, StatBlock
from arbiter.bridge.stores.postgres_cache import WorldRows


class WorldReads:
    """One world's reads over three layers: staged, in flight, committed."""

    def __init__(self) -> None:
        self._committed = WorldRows()
        self._flying = WorldRows()
        """The writes of the flush in flight: staged before it began, not yet committed."""
        self._staged = WorldRows()

    def find(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id`` (staged rows included), or None. Raises
        :class:`RowNotCached` when the id is logged in a row not held whole."""
        committed = self._committed
        found = (
            self._staged.by_request.get(request_id)
            or self._flying.by_request.get(request_id)
            or committed.by_request.get(request_id)
            or committed.recalled.get(request_id)
        )
        if found is None and committed.ids.maybe(request_id):
            raise RowNotCached(request_id)
        return found

    def logged(self, request_id: str) -> bool:
        """Whether ``request_id`` may be logged (committed, in flight or staged), from memory:
        never False for a logged id; True for one not logged only when its digest matched and
        :meth:`find` was not answered by a ``recall`` since (:mod:`.request_index`)."""
        return (
            request_id in self._staged.by_request
            or request_id in self._flying.by_request
            or request_id in self._committed.by_request
            or self._committed.ids.maybe(request_id)
        )

    def cached_from(self) -> int:
        """The first seq :meth:`rolls` reads from memory: every row from it on is held."""
        return self._committed.before + 1

    def rolls(self, after: int = 0, session: str | None = None) -> Iterator[Roll]:
        """Rows in log order (``seq`` greater than ``after``), optionally of one session.
        Rows before :meth:`cached_from` are read from the database (blocking)."""
        committed = self._committed
        if after < committed.before:
            yield from self._older(after, committed.before, session)
        skip = max(0, after - committed.before)
        for roll in (*committed.rolls[skip:], *self._flying.rolls, *self._staged.rolls):
            if roll.seq > after and (session is None or roll.entry.session == session):
                yield roll

    # The backend's: the committed rows ``after < seq <= upto`` not held whole (of ``session``),
    # read from the database.
    _older: Callable[[int, int, str | None], Iterator[Roll]]

    def count(self) -> int:
        return (
            self._committed.before
            + len(self._committed.rolls)
            + len(self._flying.rolls)
            + len(self._staged.rolls)
        )

    def verify_chain(self) -> list[str]:
        """Problems with the hash chain of the rows loaded and staged (reopen the store to
        check what the database holds)."""
        return chain_problems(self.rolls())

    def encounter(self, encounter_id: str) -> Encounter | None:
        for rows in (self._staged, self._flying, self._committed):
            found = rows.encounters.get(encounter_id)
            if found is not None:
                return found
        return None

    def session(self, session_id: str) -> Session | None:
        for rows in (self._staged, self._flying, self._committed):
            found = rows.sessions.get(session_id)
            if found is not None:
                return found
        return None

    def sessions(self) -> list[Session]:
        merged = {**self._committed.sessions, **self._flying.sessions, **self._staged.sessions}
        return sorted(merged.values(), key=lambda s: s.started)

    def player(self, name: str) -> Player | None:
        for rows in (self._staged, self._flying, self._committed):
            found = rows.players.get(name)
            if found is not None:
                return found
        return None

    def player_by_hash(self, token_hash: str) -> Player | None:
        for found in self.players():
            if found.token_hash == token_hash:
                return found
        return None

    def players(self) -> list[Player]:
        merged = {**self._committed.players, **self._flying.players, **self._staged.players}
        return [merged[name] for name in sorted(merged)]

    def stat_block(self, ruleset: str, participant: str) -> StatBlock | None:
        key = (ruleset, participant)
        for rows in (self._staged, self._flying):
            if key in rows.stat_blocks:
                return rows.stat_blocks[key]
        return self._committed.stat_blocks.get(key)

    def stat_blocks(self, ruleset: str | None = None) -> list[StatBlock]:
        merged = {
            **self._committed.stat_blocks,
            **self._flying.stat_blocks,
            **self._staged.stat_blocks,
        }
        return [
            block
            for key, block in sorted(merged.items())
            if block is not None and (ruleset is None or key[0] == ruleset)
        ]


__all__ = ["WorldReads"]
