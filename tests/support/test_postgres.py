"""The PostgreSQL the tests start (tests/support/postgres.py) behaves as the PostgreSQL store's
guarantees need: durable commits, pipelined group commits, a synchronous standby that keeps every
acknowledged row through a failover, and the error a client gets when its backend is ended."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from tests.support.apart import run_apart
from tests.support.postgres import (
    Cluster,
    PostgresMissing,
    Replicated,
    server_programs,
)


def test_the_server_commits_durably_with_fsync_and_synchronous_commit_on(
    postgres: Cluster,
) -> None:
    with postgres.connect() as conn:
        settings = {
            name: conn.execute(f"SHOW {name}").fetchone()
            for name in ("fsync", "synchronous_commit", "full_page_writes")
        }
    assert settings == {
        "fsync": ("on",),
        "synchronous_commit": ("on",),
        "full_page_writes": ("on",),
    }


def test_an_async_connection_in_pipeline_mode_commits_a_group_of_rows_in_one_transaction(
    postgres_database: str,
) -> None:
    async def write() -> None:
        async with await psycopg.AsyncConnection.connect(postgres_database) as conn:
            await conn.execute("CREATE TABLE rolls (seq int PRIMARY KEY, reply text NOT NULL)")
            await conn.commit()
            async with conn.pipeline():
                for seq in range(20):
                    await conn.execute("INSERT INTO rolls VALUES (%s, %s)", (seq, f"reply {seq}"))
                await conn.commit()

    run_apart(write())
    with psycopg.connect(postgres_database) as reader:
        rows = reader.execute("SELECT seq, reply FROM rolls ORDER BY seq").fetchall()
        transactions = reader.execute("SELECT count(DISTINCT xmin::text) FROM rolls").fetchone()
    assert rows == [(seq, f"reply {seq}") for seq in range(20)]
    assert transactions == (1,)


def test_a_terminated_backend_raises_admin_shutdown_and_loses_its_open_transaction(
    postgres: Cluster, postgres_database: str
) -> None:
    with psycopg.connect(postgres_database, autocommit=True) as setup:
        setup.execute("CREATE TABLE rolls (seq int PRIMARY KEY)")
    conn = psycopg.connect(postgres_database)
    conn.execute("INSERT INTO rolls VALUES (1)")
    postgres.terminate(conn.info.backend_pid)
    with pytest.raises(psycopg.errors.AdminShutdown, match="administrator command"):
        conn.commit()
    assert conn.closed
    with psycopg.connect(postgres_database) as reader:
        assert reader.execute("SELECT count(*) FROM rolls").fetchone() == (0,)


def test_a_commit_on_the_primary_waits_until_the_synchronous_standby_has_it(
    replicated_postgres: Replicated,
) -> None:
    primary = replicated_postgres.primary
    with primary.connect() as setup:
        setup.execute("CREATE TABLE rolls (seq int PRIMARY KEY)")
    with replicated_postgres.standby_away():
        writer = psycopg.connect(primary.dsn())
        writer.execute("INSERT INTO rolls VALUES (1)")
        committing = threading.Thread(target=writer.commit)
        committing.start()
        primary.wait_event(writer.info.backend_pid, "SyncRep")
        assert committing.is_alive()
    committing.join(60)
    assert not committing.is_alive()
    with writer, primary.connect() as reader:
        assert reader.execute("SELECT seq FROM rolls").fetchall() == [(1,)]


def test_a_backend_terminated_while_its_commit_waits_for_the_standby_raises_yet_its_row_is_kept(
    replicated_postgres: Replicated,
) -> None:
    primary = replicated_postgres.primary
    with primary.connect() as setup:
        setup.execute("CREATE TABLE rolls (seq int PRIMARY KEY)")
    raised: list[BaseException] = []

    def commit(conn: psycopg.Connection[tuple[object, ...]]) -> None:
        try:
            conn.commit()
        except psycopg.Error as error:
            raised.append(error)

    with replicated_postgres.standby_away():
        writer = psycopg.connect(primary.dsn())
        writer.execute("INSERT INTO rolls VALUES (1)")
        committing = threading.Thread(target=commit, args=(writer,))
        committing.start()
        primary.wait_event(writer.info.backend_pid, "SyncRep")
        primary.terminate(writer.info.backend_pid)
        committing.join(60)
    assert [type(e) for e in raised] == [psycopg.OperationalError]
    assert writer.closed
    with primary.connect() as reader:
        assert reader.execute("SELECT seq FROM rolls").fetchall() == [(1,)]


def test_every_row_acknowledged_with_a_synchronous_standby_survives_killing_the_primary(
    replicated_postgres: Replicated,
) -> None:
    primary = replicated_postgres.primary
    with primary.connect() as setup:
        setup.execute("CREATE TABLE rolls (seq int PRIMARY KEY)")
    acknowledged = []
    with psycopg.connect(primary.dsn()) as writer:
        for seq in range(200):
            writer.execute("INSERT INTO rolls VALUES (%s)", (seq,))
            writer.commit()
            acknowledged.append((seq,))
    promoted = replicated_postgres.fail_over()
    assert not primary.running()
    with promoted.connect() as conn:
        assert conn.execute("SELECT seq FROM rolls ORDER BY seq").fetchall() == acknowledged
        conn.execute("INSERT INTO rolls VALUES (200)")  # the promoted standby takes writes
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)


def test_without_the_server_programs_the_error_names_the_package_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PostgresMissing) as missing:
        server_programs(debian=tmp_path / "usr-lib-postgresql")
    assert "scripts/setup --test" in str(missing.value)
    assert "`postgresql` package" in str(missing.value)
    assert "initdb, pg_ctl, postgres, pg_basebackup" in str(missing.value)
