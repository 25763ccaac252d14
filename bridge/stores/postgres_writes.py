"""The PostgreSQL store's writes (:class:`WorldWrites`): each staged in memory and queued as a statement.

A write goes to the staged layer of :class:`~arbiter.bridge.stores.postgres_reads.WorldReads`
(so every read sees it at once) and its statement to the queue
:meth:`arbiter.bridge.stores.postgres.PostgresStore.flush` sends in one transaction. A text
PostgreSQL cannot store (a NUL) is refused here, so one write fails alone.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from arbiter.bridge.records import Encounter, NewRoll, Player, Roll, Session, roll_hash
from arbiter.bridge.stores.interface import RequestLogged, StatBlock, UnstorableText
from arbiter.bridge.stores.postgres_reads import WorldReads
from arbiter.bridge.stores.postgres_schema import (
    BIND_PLAYER,
    DELETE_STAT_BLOCK,
    END_SESSION,
    MOVE_ENCOUNTER,
    PUT_PLAYER,
    PUT_SESSION,
    PUT_STAT_BLOCK,
)


class WorldWrites(WorldReads):
    """One world's staged writes and their queued statements (the store sets the fields)."""

    world: str
    _rows: list[tuple[Any, ...]]
    """The rows staged, as :data:`~arbiter.bridge.stores.postgres_schema.INSERT_ROLL` takes them."""
    _ops: list[tuple[str, tuple[Any, ...]]]
    """The other statements staged, in order."""
    _lost: bool
    _last: tuple[int, str]
    """The head with the staged rows."""

    def stage(self, roll: NewRoll, encoded: tuple[bytes, bytes, bytes] | None = None) -> Roll:
        """Stage the next row of the chain and its encounter's move (see the interface)."""
        if self.logged(roll.request_id):
            raise RequestLogged(f"request id {roll.request_id!r} is already logged")
        _storable("roll", roll[:7])
        seq, prev = self._last[0] + 1, self._last[1]
        if encoded is None:
            encoded = (roll.request.encode(), roll.dice.encode(), roll.outcome.encode())
        stored = Roll(seq, roll, prev, roll_hash(prev, seq, roll, *encoded))
        self._rows.append((self.world, seq, *roll, prev, stored.hash))
        self._staged.rolls.append(stored)
        self._staged.by_request[roll.request_id] = stored
        self._last = (seq, stored.hash)
        if roll.encounter is not None:
            self._move_encounter(roll, seq)
        return stored

    def _move_encounter(self, roll: NewRoll, seq: int) -> None:
        # What the SQLite trigger does: a state that is not null replaces the stored one, a
        # null state creates the encounter (stateless) only if it does not exist.
        assert roll.encounter is not None
        state = json.loads(roll.outcome).get("state")
        current = self.encounter(roll.encounter)
        text = None if state is None else json.dumps(state, sort_keys=True, ensure_ascii=False)
        if state is not None:
            ruleset = roll.ruleset if current is None else current.ruleset
            self._staged.encounters[roll.encounter] = Encounter(roll.encounter, ruleset, state, seq)
        elif current is None:
            self._staged.encounters[roll.encounter] = Encounter(
                roll.encounter, roll.ruleset, None, None
            )
        self._ops.append(
            (
                MOVE_ENCOUNTER,
                (self.world, roll.encounter, roll.ruleset, text, None if state is None else seq),
            )
        )

    @property
    def pending(self) -> bool:
        return bool(self._rows or self._ops or self._lost)

    # --- sessions ---

    def open_session(self, session: Session) -> None:
        _storable("session", session.row()[:5])
        self._staged.sessions[session.id] = session
        self._ops.append((PUT_SESSION, (self.world, *session.row())))

    def end_session(self, session_id: str, now: float) -> None:
        found = self.session(session_id)
        if found is not None and found.ended is None:
            self._staged.sessions[session_id] = _ended(found, now)
        self._ops.append((END_SESSION, (now, self.world, session_id)))

    def end_open_sessions(self, now: float) -> int:
        open_ = [s for s in self.sessions() if s.ended is None]
        for found in open_:
            self.end_session(found.id, now)
        return len(open_)

    # --- players ---

    def take_players(self, records: dict[str, Player]) -> None:
        """The world's player records as committed, read anew (another process wrote them:
        :class:`arbiter.bridge.stores.postgres_pool.PlayerFeed`); writes staged or in flight
        still read over them."""
        self._committed.players = dict(records)

    def put_player(self, player: Player) -> None:
        _storable("player", (player.name, player.token_hash))
        self._staged.players[player.name] = player
        self._ops.append((PUT_PLAYER, (self.world, *player.row())))

    def bind_player(self, player: Player) -> None:
        """Stage a GM's bind; the flush writes it as one (:data:`BIND_PLAYER`), so the stored
        token and revocation decide when it lands, not the cached ones it was decided on."""
        _storable("player", (player.name,))
        self._staged.players[player.name] = player
        self._ops.append((BIND_PLAYER, (self.world, player.name, player.row()[1], player.created)))

    # --- the GM's stat blocks ---

    def put_stat_block(self, block: StatBlock) -> None:
        _storable("stat block", (block.ruleset, block.participant, block.block, block.actor))
        self._staged.stat_blocks[(block.ruleset, block.participant)] = block
        self._ops.append((PUT_STAT_BLOCK, (self.world, *block)))

    def delete_stat_block(self, ruleset: str, participant: str) -> None:
        self._staged.stat_blocks[(ruleset, participant)] = None
        self._ops.append((DELETE_STAT_BLOCK, (self.world, ruleset, participant)))


def _storable(what: str, texts: tuple[Any, ...]) -> None:
    """Raise UnstorableText when a text holds a NUL, which PostgreSQL's text refuses: refused
    here, one write fails alone, instead of the whole group commit it would have joined."""
    for text in texts:
        if isinstance(text, str) and "\x00" in text:
            raise UnstorableText(
                f"a {what} field holds a NUL character, which PostgreSQL cannot store: {text!r}"
            )


def _ended(session: Session, now: float) -> Session:
    return replace(session, ended=now)


__all__ = ["WorldWrites"]
