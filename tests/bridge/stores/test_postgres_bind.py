"""A GM's bind decided on a host's cached player record lands after ``arbiter token`` (another
process) rotated or revoked that player's token: the stored token and revocation stay
(bridge/stores/postgres_schema.py, ``BIND_PLAYER``). On a real PostgreSQL."""

from __future__ import annotations

from arbiter.bridge import players
from arbiter.bridge.stores.postgres import PostgresStore
from arbiter.bridge.stores.postgres_players import edit_players
from tests.support.apart import run_apart


async def made(dsn: str, world: str = "w") -> None:
    """Make the world, as its server's first start (or `arbiter token` alone) does."""
    await (await PostgresStore.open(dsn, world)).close()


def test_a_bind_decided_before_a_rotation_keeps_the_rotated_token(postgres_database: str) -> None:
    async def body() -> None:
        await made(postgres_database)
        old = await edit_players(
            postgres_database, "w", lambda e: players.issue(e, "ann", ["devon"], False, 1.0)[1]
        )
        store = await PostgresStore.open(postgres_database, "w")
        new = await edit_players(
            postgres_database, "w", lambda e: players.issue(e, "ann", None, True, 2.0)[1]
        )
        assert old is not None and new is not None
        players.bind(store, "ann", ["devon", "mule"], 3.0)  # on the record before the rotation
        await store.flush()
        await store.close()
        fresh = await PostgresStore.open(postgres_database, "w")
        assert players.by_token(fresh, old) is None
        found = players.by_token(fresh, new)
        assert found is not None and found.participants == ("devon", "mule")
        await fresh.close()

    run_apart(body())


def test_a_bind_decided_before_a_revoke_and_reissue_keeps_the_new_token(
    postgres_database: str,
) -> None:
    async def body() -> None:
        await made(postgres_database)
        old = await edit_players(
            postgres_database, "w", lambda e: players.issue(e, "ann", ["devon"], False, 1.0)[1]
        )
        store = await PostgresStore.open(postgres_database, "w")
        await edit_players(postgres_database, "w", lambda e: players.revoke(e, "ann", 2.0))
        new = await edit_players(
            postgres_database, "w", lambda e: players.issue(e, "ann", None, False, 3.0)[1]
        )
        assert old is not None and new is not None and new != old
        players.bind(store, "ann", ["mule"], 4.0)
        await store.flush()
        await store.close()
        fresh = await PostgresStore.open(postgres_database, "w")
        assert players.by_token(fresh, old) is None
        found = players.by_token(fresh, new)
        assert found is not None and found.participants == ("mule",)
        await fresh.close()

    run_apart(body())
