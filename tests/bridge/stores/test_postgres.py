"""What only the PostgreSQL store promises: a writer whose world moved under it commits nothing
(the compare-and-append on the world's epoch and head), on a real PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import psycopg
import pytest

from arbiter.bridge.records import GENESIS, Session, row_hash
from arbiter.bridge.stores import RequestLogged, StaleWriter, StatBlock
from arbiter.bridge.stores.postgres import PostgresStore, UnstorableText
from arbiter.bridge.stores.postgres_schema import SCHEMA
from tests.support.apart import run_apart
from tests.support.rolls import new_roll

if TYPE_CHECKING:
    from tests.support.postgres import Replicated


def test_a_writer_whose_world_another_writer_moved_commits_nothing_and_the_chain_does_not_fork(
    postgres_database: str,
) -> None:
    async def body() -> None:
        stale = await PostgresStore.open(postgres_database, "w")
        stale.stage(new_roll("a"))
        await stale.flush()
        other = await PostgresStore.open(postgres_database, "w")
        other.stage(new_roll("b"))
        await other.flush()
        # The stale writer still believes row 1 is the head: its row 2 would fork the chain.
        stale.stage(new_roll("c"))
        stale.open_session(other_session())
        with pytest.raises(StaleWriter, match="moved past row 1"):
            await stale.flush()
        assert stale.find("c") is None and not stale.pending
        await stale.close()
        await other.close()
        check = await PostgresStore.open(postgres_database, "w")
        assert [r.entry.request_id for r in check.rolls()] == ["a", "b"]
        assert check.verify_chain() == [] and check.sessions() == []
        await check.close()

    run_apart(body())


def test_a_writer_whose_request_id_another_writer_logged_commits_nothing(
    postgres_database: str,
) -> None:
    async def body() -> None:
        stale = await PostgresStore.open(postgres_database, "w")
        other = await PostgresStore.open(postgres_database, "w")
        other.stage(new_roll("a"))
        await other.flush()
        stale.stage(new_roll("a"))  # new to its cache
        with pytest.raises(StaleWriter):
            await stale.flush()
        await stale.close()
        await other.close()

    run_apart(body())


def test_a_writer_whose_world_was_claimed_under_a_new_epoch_commits_nothing(
    postgres_database: str,
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        store.stage(new_roll("a"))
        await store.flush()
        # What the claim of the next step does: the head stays, the epoch moves on.
        with psycopg.connect(postgres_database, autocommit=True) as admin:
            admin.execute("UPDATE worlds SET epoch = epoch + 1 WHERE id = 'w'")
        store.stage(new_roll("b"))
        with pytest.raises(StaleWriter, match="epoch past 0"):
            await store.flush()
        await store.close()
        check = await PostgresStore.open(postgres_database, "w")
        assert check.epoch == 1 and check.count() == 1
        check.stage(new_roll("b"))
        await check.flush()
        await check.close()

    run_apart(body())


def test_one_group_commit_writes_every_table_in_one_transaction(postgres_database: str) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        for rid in "abcde":
            store.stage(new_roll(rid, encounter=f"e-{rid}", state={"rid": rid}))
        store.open_session(other_session())
        await store.flush()
        await store.close()

    run_apart(body())
    # xmin: the id of the transaction that wrote the row version.
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        writers = admin.execute(
            "SELECT DISTINCT xmin::text FROM rolls UNION SELECT xmin::text FROM encounters "
            "UNION SELECT xmin::text FROM sessions UNION SELECT xmin::text FROM worlds"
        ).fetchall()
        rows = admin.execute("SELECT count(*) FROM rolls").fetchone()
    assert len(writers) == 1 and rows == (5,)


def other_session() -> Session:
    return Session("s2", "seed", "commitment", "gm", "foundry", 1.0, None)


def test_a_commit_that_landed_although_its_connection_broke_is_found_by_the_retry_of_its_id(
    replicated_postgres: Replicated,
) -> None:
    primary = replicated_postgres.primary

    async def body() -> None:
        store = await PostgresStore.open(primary.dsn(), "w")
        with replicated_postgres.standby_away():
            store.stage(new_roll("a"))
            flushing = asyncio.create_task(store.flush())
            pid = store.backend_pid
            assert pid is not None
            # COMMIT is written on the primary and waits for the absent standby; the backend
            # is ended there, so the client hears an error about a row that is committed.
            await asyncio.to_thread(primary.wait_event, pid, "SyncRep")
            await asyncio.to_thread(primary.terminate, pid)
            with pytest.raises(psycopg.OperationalError):
                await flushing
            landed = store.find("a")
            assert landed is not None and landed.seq == 1
            with pytest.raises(RequestLogged):
                store.stage(new_roll("a"))
        store.stage(new_roll("b"))
        await store.flush()
        await store.close()
        check = await PostgresStore.open(primary.dsn(), "w")
        assert [r.entry.request_id for r in check.rolls()] == ["a", "b"]
        assert check.verify_chain() == []
        await check.close()

    run_apart(body())


def test_a_nul_in_a_request_id_is_refused_at_stage_and_the_rest_of_its_group_commits(
    postgres_database: str,
) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        store.stage(new_roll("a"))
        with pytest.raises(UnstorableText, match="NUL"):
            store.stage(new_roll("b\x00"))
        with pytest.raises(UnstorableText, match="NUL"):
            store.put_stat_block(StatBlock("tiny", "orc\x00", "{}", None, 1.0))
        store.stage(new_roll("c"))
        await store.flush()
        await store.close()
        check = await PostgresStore.open(postgres_database, "w")
        assert [r.entry.request_id for r in check.rolls()] == ["a", "c"]
        assert check.verify_chain() == [] and check.stat_blocks() == []
        await check.close()

    run_apart(body())


def schema_2() -> str:
    """The schema as version 2 made it: no ``rule_sets``, no ``worlds.rules``."""
    table = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS rule_sets") :]
    table = table[: table.index(");\n") + 3]
    column = ",\n  rules text REFERENCES rule_sets (hash)\n"
    assert column in SCHEMA
    return SCHEMA.replace(table, "").replace(column, "\n")


def test_a_schema_1_database_is_brought_to_3_and_its_old_rows_still_verify(
    postgres_database: str,
) -> None:
    # A database written by schema 1: no rolls.player, no owner on worlds, one row hashed
    # over its 13 fields.
    old = new_roll("old")
    digest = row_hash(GENESIS, [1, *old[:13]])
    owner = ",\n  owner text,\n  owner_token text,\n  owner_url text,\n  lease_until timestamptz\n"
    schema_1 = (
        schema_2()
        .replace("  player text,\n", "")
        .replace(owner, "\n")
        .replace("CREATE INDEX IF NOT EXISTS worlds_owner_token ON worlds (owner_token);\n", "")
    )
    assert (
        "owner" not in schema_1
        and "player" not in schema_1.split("CREATE TABLE IF NOT EXISTS players")[0]
    )
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        admin.execute(schema_1)
        admin.execute("INSERT INTO arbiter_meta VALUES ('schema', '1')")
        admin.execute("INSERT INTO worlds (id, head_seq, head_hash) VALUES ('w', 1, %s)", (digest,))
        admin.execute(
            'INSERT INTO rolls (world, seq, request_id, session, "user", ruleset, type, '
            "encounter, rules_hash, request, dice, outcome, counter, scripted, time, "
            "prev_hash, hash) VALUES ('w', 1, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "%s, %s, %s)",
            (*old[:13], GENESIS, digest),
        )

    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        found = store.find("old")
        assert found is not None and found.entry.player is None and found.hash == digest
        store.stage(new_roll("new")._replace(player="pat"))
        await store.flush()
        await store.close()
        store = await PostgresStore.open(postgres_database, "w")
        assert [r.entry.player for r in store.rolls()] == [None, "pat"]
        assert store.verify_chain() == []
        await store.close()

    run_apart(body())
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        version = admin.execute("SELECT value FROM arbiter_meta WHERE key = 'schema'").fetchone()
    assert version == ("3",)
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        columns = admin.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'worlds' "
            "AND column_name IN ('owner', 'owner_token', 'owner_url', 'lease_until', 'rules')"
        ).fetchall()
    assert sorted(c[0] for c in columns) == [
        "lease_until",
        "owner",
        "owner_token",
        "owner_url",
        "rules",
    ]
