"""The PostgreSQL backend of :class:`arbiter.bridge.stores.WorldStore`: every world in one database.

Each table is keyed by its world, and a ``worlds`` row holds each world's chain head and its
ownership ``epoch`` (:mod:`arbiter.bridge.stores.postgres_schema`; docs/scaling.md).
:meth:`PostgresStore.open` loads one world whole into memory
(:mod:`arbiter.bridge.stores.postgres_cache`); its reads are served from there, synchronously,
and its writes are staged there (an overlay on the committed cache) and queued as statements.
:meth:`PostgresStore.flush` sends the queue in one transaction, pipelined (psycopg 3, async),
ending with a compare-and-append on the world's ``(epoch, head)``: it moves the head only if
nobody moved it (or the epoch) since this store loaded it, else the transaction rolls back and
:class:`StaleWriter` is raised. On any failure the overlay is dropped: the store is back at its
last committed state and reconnects on the next flush. When the connection broke (COMMIT may
have landed: the classic ambiguous commit), it reloads the world from the database before it
says so, so the retry of a request id whose row landed finds it (and the next flush reloads
first if the database did not answer then).

A host opens a world under the epoch its claim gave it (:mod:`arbiter.bridge.stores.ownership`:
leases on the database's clock; a claim moves the epoch on), so a former owner is fenced.
Not built yet (issue #19): serving many worlds from one process, and a cache bounded in size
(today the whole world is loaded).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import psycopg

from arbiter.bridge.records import (
    GENESIS,
    Encounter,
    NewRoll,
    Player,
    Roll,
    Session,
    chain_problems,
    roll_hash,
)
from arbiter.bridge.stores.interface import RequestLogged, StaleWriter, StatBlock
from arbiter.bridge.stores.postgres_cache import WorldRows, load_world
from arbiter.bridge.stores.postgres_schema import (
    ADVANCE_HEAD,
    DELETE_STAT_BLOCK,
    END_SESSION,
    INSERT_ROLL,
    MOVE_ENCOUNTER,
    PUT_PLAYER,
    PUT_SESSION,
    PUT_STAT_BLOCK,
    ROLL_KEYS,
    SCHEMA_VERSION,
    STALE_SQLSTATE,
    install,
)


class CacheBehind(RuntimeError):
    """A commit reported as failed had landed, and writes were staged on the head before it:
    they are dropped (nothing of them was committed); the store is in step again."""


class UnstorableText(ValueError):
    """A write whose text PostgreSQL cannot hold (a NUL character); nothing was staged."""


class PostgresStore:
    """One world's store in a PostgreSQL database shared by many worlds. Open it with
    :meth:`open` (under a claim's epoch: :meth:`arbiter.bridge.stores.ownership.Host.open_store`);
    one writer per world, fenced by the epoch (docs/scaling.md)."""

    def __init__(self, dsn: str, world: str, conn: psycopg.AsyncConnection[Any]) -> None:
        self.dsn = dsn
        self.world = world
        self._conn: psycopg.AsyncConnection[Any] | None = conn
        self._committed = WorldRows()
        self._staged = WorldRows()
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._rows: list[tuple[Any, ...]] = []
        self.epoch = 0
        self._head = (0, GENESIS)
        """The committed head (seq, hash), as the ``worlds`` row holds it."""
        self._last = self._head
        """The head with the staged rows."""
        self._unsure = False
        """A flush failed without saying whether it committed: reload before the next."""

    @classmethod
    async def open(cls, dsn: str, world: str, epoch: int | None = None) -> PostgresStore:
        """Connect, create the schema and the world's row if missing, and load the world.
        ``epoch``: the one this host's claim gave it (:mod:`arbiter.bridge.stores.ownership`);
        raises :class:`StaleWriter` when the world is already under another (claimed again
        since). None takes the world's current epoch: for one writer with no claims."""
        conn = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
        try:
            await install(conn, world)
            store = cls(dsn, world, conn)
            store._committed, store.epoch, store._head = await load_world(conn, world)
            store._last = store._head
            if epoch is not None and store.epoch != epoch:
                raise StaleWriter(
                    f"world {world!r} was claimed again (epoch {store.epoch}) after the claim "
                    f"of epoch {epoch} this store was to be opened under"
                )
        except BaseException:
            await conn.close()
            raise
        return store

    async def _resync(self) -> None:
        """Reload the committed world after a flush whose outcome is unknown (the connection
        broke, or the flush was cancelled, maybe after COMMIT was sent): the database says
        whether it landed. Raises :class:`StaleWriter` when the epoch moved meanwhile, and
        :class:`CacheBehind` (dropping them) when writes were staged on a head that did."""
        world, epoch, head = await load_world(await self._connection(), self.world)
        if epoch != self.epoch:
            raise self._stale()
        moved = head != self._head
        self._committed, self._head, self._unsure = world, head, False
        if moved and self.pending:
            self._drop_staged()
            raise CacheBehind(
                f"the last commit of world {self.world!r} landed although it reported a "
                "failure: the writes staged since were chained on the row before it and are "
                "dropped (retry them: their ids may now be logged)"
            )
        if moved:
            self._last = head

    async def close(self) -> None:
        """Close the connection; whatever is staged is dropped."""
        self._drop_staged()
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    @property
    def backend_pid(self) -> int | None:
        """The server process serving this store's connection (None when not connected)."""
        return None if self._conn is None else self._conn.info.backend_pid

    # --- the roll log ---

    def find(self, request_id: str) -> Roll | None:
        """The row logged for ``request_id`` (staged rows included), or None."""
        return self._staged.by_request.get(request_id) or self._committed.by_request.get(request_id)

    def stage(self, roll: NewRoll, encoded: tuple[bytes, bytes, bytes] | None = None) -> Roll:
        """Stage the next row of the chain and its encounter's move (see the interface)."""
        if self.find(roll.request_id) is not None:
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
        return bool(self._rows or self._ops)

    async def flush(self) -> None:
        """Commit every staged write in one pipelined transaction that first compares and
        moves the world's head; raises (:class:`StaleWriter` when the head or epoch moved)
        with nothing staged kept."""
        if self._unsure:
            await self._resync()
        if not self.pending:
            return
        rows, ops, last = self._rows, self._ops, self._last
        try:
            conn = await self._connection()
            async with conn.pipeline(), conn.transaction():
                await conn.execute(ADVANCE_HEAD, (self.world, self.epoch, *self._head, *last))
                if rows:
                    await conn.cursor().executemany(INSERT_ROLL, rows)
                for sql, args in ops:
                    await conn.execute(sql, args)
        except psycopg.errors.UniqueViolation as err:
            self._drop_staged()
            if err.diag.constraint_name in ROLL_KEYS:
                # Our cache holds neither the seq nor the request id: another writer logged it.
                raise self._stale() from err
            raise
        except psycopg.OperationalError:
            # The connection broke: COMMIT may have landed. Ask the database now (if it
            # answers; else before the next flush), so a retry finds a row that landed.
            self._drop_staged()
            await self._disconnect()
            self._unsure = True
            with contextlib.suppress(psycopg.Error, StaleWriter):
                await self._resync()
            raise
        except psycopg.Error as err:
            # The server refused a statement: the transaction rolled back, nothing landed.
            self._drop_staged()
            if err.sqlstate == STALE_SQLSTATE:
                raise self._stale() from err
            raise
        except BaseException:
            # Cancelled: the connection may be mid-pipeline, COMMIT sent or not.
            self._drop_staged()
            await self._disconnect()
            self._unsure = True
            raise
        self._merge_staged()

    def _stale(self) -> StaleWriter:
        return StaleWriter(
            f"world {self.world!r} moved past row {self._head[0]} (or its epoch past "
            f"{self.epoch}) since this store loaded it: nothing was committed"
        )

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
        return self._conn

    async def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()

    def _drop_staged(self) -> None:
        self._staged, self._rows, self._ops = WorldRows(), [], []
        self._last = self._head

    def _merge_staged(self) -> None:
        self._committed.merge(self._staged)
        self._head = self._last
        self._staged, self._rows, self._ops = WorldRows(), [], []

    def rolls(self, after: int = 0, session: str | None = None) -> Iterator[Roll]:
        """Rows in log order (``seq`` greater than ``after``), optionally of one session."""
        for roll in (*self._committed.rolls[after:], *self._staged.rolls):
            if roll.seq > after and (session is None or roll.entry.session == session):
                yield roll

    def count(self) -> int:
        return len(self._committed.rolls) + len(self._staged.rolls)

    def verify_chain(self) -> list[str]:
        """Problems with the hash chain of the rows loaded and staged (reopen the store to
        check what the database holds)."""
        return chain_problems(self.rolls())

    def encounter(self, encounter_id: str) -> Encounter | None:
        found = self._staged.encounters.get(encounter_id)
        return found if found is not None else self._committed.encounters.get(encounter_id)

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

    def session(self, session_id: str) -> Session | None:
        found = self._staged.sessions.get(session_id)
        return found if found is not None else self._committed.sessions.get(session_id)

    def sessions(self) -> list[Session]:
        merged = {**self._committed.sessions, **self._staged.sessions}
        return sorted(merged.values(), key=lambda s: s.started)

    # --- players ---

    def player(self, name: str) -> Player | None:
        found = self._staged.players.get(name)
        return found if found is not None else self._committed.players.get(name)

    def player_by_hash(self, token_hash: str) -> Player | None:
        for found in self.players():
            if found.token_hash == token_hash:
                return found
        return None

    def players(self) -> list[Player]:
        merged = {**self._committed.players, **self._staged.players}
        return [merged[name] for name in sorted(merged)]

    def put_player(self, player: Player) -> None:
        _storable("player", (player.name, player.token_hash))
        self._staged.players[player.name] = player
        self._ops.append((PUT_PLAYER, (self.world, *player.row())))

    # --- the GM's stat blocks ---

    def stat_block(self, ruleset: str, participant: str) -> StatBlock | None:
        key = (ruleset, participant)
        if key in self._staged.stat_blocks:
            return self._staged.stat_blocks[key]
        return self._committed.stat_blocks.get(key)

    def stat_blocks(self, ruleset: str | None = None) -> list[StatBlock]:
        merged = {**self._committed.stat_blocks, **self._staged.stat_blocks}
        return [
            block
            for key, block in sorted(merged.items())
            if block is not None and (ruleset is None or key[0] == ruleset)
        ]

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


__all__ = ["SCHEMA_VERSION", "CacheBehind", "PostgresStore", "UnstorableText"]
