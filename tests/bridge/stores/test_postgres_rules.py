"""A world's own rules in PostgreSQL (``bridge/stores/postgres_rules.py``, schema 3), on the real
PostgreSQL: a schema-2 database is brought to 3 with its worlds naming no rules; an arbiter
reading 3 refuses a newer schema; sources are stored once per hash and a world names them;
publishing for a world the database does not hold stores nothing; unpublishing goes back to
none; a stored path outside ``<ruleset>/<name>.toml`` is refused."""

from __future__ import annotations

import psycopg
import pytest

from arbiter.bridge.records import GENESIS
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_rules import (
    RuleSources,
    UnsafeSource,
    publish,
    unpublish,
    world_sources,
)
from arbiter.bridge.stores.postgres_schema import SCHEMA_VERSION
from tests.bridge.stores.test_postgres import schema_2
from tests.support.apart import run_apart

SOURCES = RuleSources({"combat-styles/weapons.toml": "# house\n", "hmk/tables.toml": "x = 1\n"})


def test_a_schema_2_database_is_brought_to_3_and_its_worlds_name_no_rules(
    postgres_database: str,
) -> None:
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        admin.execute(schema_2())
        admin.execute("INSERT INTO arbiter_meta VALUES ('schema', '2')")
        admin.execute("INSERT INTO worlds (id, head_hash) VALUES ('w', %s)", (GENESIS,))

    async def body() -> None:
        # Read offline before any migration (replay --from-log): schema 2 names no rules.
        assert await world_sources(postgres_database, "w") is None
        store = await PostgresStore.open(postgres_database, "w")
        await store.close()
        assert await world_sources(postgres_database, "w") is None

    run_apart(body())
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        version = admin.execute("SELECT value FROM arbiter_meta WHERE key = 'schema'").fetchone()
        rules = admin.execute("SELECT rules FROM worlds WHERE id = 'w'").fetchone()
    assert SCHEMA_VERSION == "3" and version == ("3",) and rules == (None,)


def test_a_newer_schema_is_refused_naming_both_versions(postgres_database: str) -> None:
    async def body() -> None:
        store = await PostgresStore.open(postgres_database, "w")
        await store.close()

    run_apart(body())
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        admin.execute("UPDATE arbiter_meta SET value = '4' WHERE key = 'schema'")
    with pytest.raises(RuntimeError, match="the database has store schema 4, this arbiter reads 3"):
        run_apart(body())


def test_sources_are_stored_once_per_hash_and_each_world_names_them(
    postgres_database: str,
) -> None:
    async def body() -> None:
        for world in ("a", "b"):
            store = await PostgresStore.open(postgres_database, world)
            await store.close()
            assert await publish(postgres_database, world, SOURCES) == SOURCES.hash
        found = await world_sources(postgres_database, "a")
        assert found == (SOURCES.hash, SOURCES)
        assert await unpublish(postgres_database, "a") == SOURCES.hash
        assert await world_sources(postgres_database, "a") is None
        assert await world_sources(postgres_database, "b") == (SOURCES.hash, SOURCES)

    run_apart(body())
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        assert admin.execute("SELECT hash FROM rule_sets").fetchall() == [(SOURCES.hash,)]


def test_publishing_for_a_world_nobody_made_stores_nothing(postgres_database: str) -> None:
    with pytest.raises(LookupError, match="no world 'ghost' in this database"):
        run_apart(publish(postgres_database, "ghost", SOURCES))
    with pytest.raises(LookupError, match="no world 'ghost'"):
        run_apart(unpublish(postgres_database, "ghost"))
    with psycopg.connect(postgres_database, autocommit=True) as admin:
        assert admin.execute("SELECT count(*) FROM rule_sets").fetchone() == (0,)
        assert admin.execute("SELECT count(*) FROM worlds").fetchone() == (0,)


def test_the_hash_is_of_every_path_and_text_whatever_their_order() -> None:
    swapped = RuleSources(dict(reversed(list(SOURCES.files.items()))))
    assert swapped.hash == SOURCES.hash
    assert RuleSources({**SOURCES.files, "hmk/tables.toml": "x = 2\n"}).hash != SOURCES.hash
    assert RuleSources.decoded(SOURCES.encoded()) == SOURCES


@pytest.mark.parametrize(
    "path", ["../escape.toml", "hmk/../../escape.toml", "hmk/a/b.toml", "/etc/x.toml", "hmk/x.txt"]
)
def test_a_source_path_outside_ruleset_slash_file_toml_is_refused(path: str) -> None:
    with pytest.raises(UnsafeSource, match="is not a rule source path"):
        RuleSources({path: ""})
