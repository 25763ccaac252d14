"""The store contract: what the server relies on, checked on SQLite and on a real PostgreSQL.

Each test opens stores the way a server does, writes through the interface only, and checks
what a store opened afterwards reads back: what the database itself holds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from arbiter.bridge.records import GENESIS, Player, Session, row_hash
from arbiter.bridge.stores import RequestLogged, RowNotCached, StatBlock, WorldStore
from tests.bridge.stores.backends import CACHE_ROWS, Backend
from tests.support.apart import run_apart
from tests.support.rolls import new_roll


def session(sid: str, started: float) -> Session:
    return Session(sid, "seed-" + sid, "commit-" + sid, "gm", "foundry", started, None)


def run(body: Callable[[], Awaitable[None]]) -> None:
    run_apart(body())  # type: ignore[arg-type]


async def reopened(backend: Backend, store: WorldStore, world: str = "w") -> WorldStore:
    await backend.close(store)
    return await backend.open(world)


def ids(store: WorldStore) -> list[str]:
    return [roll.entry.request_id for roll in store.rolls()]


def test_a_row_s_player_is_read_back_and_a_row_without_one_hashes_as_before(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        gm = store.stage(new_roll("a"))
        pat = store.stage(new_roll("b")._replace(player="pat (relayed by Gm)"))
        await store.flush()
        store = await reopened(backend, store)
        assert store.find("a") == gm and store.find("b") == pat
        assert [r.entry.player for r in store.rolls()] == [None, "pat (relayed by Gm)"]
        assert gm.hash == row_hash(GENESIS, [1, *new_roll("a")[:13]])  # schema 1's 13 fields
        assert store.verify_chain() == []
        await backend.close(store)

    run(body)


def test_each_backend_implements_the_whole_interface(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        assert isinstance(store, WorldStore)
        await backend.close(store)

    run(body)


def test_a_staged_row_is_found_at_once_and_read_back_whole_once_flushed(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        staged = store.stage(new_roll("a"))
        assert store.pending and store.find("a") == staged and store.find("b") is None
        await store.flush()
        assert not store.pending
        store = await reopened(backend, store)
        assert store.find("a") == staged
        assert staged.seq == 1 and staged.prev_hash == GENESIS
        assert staged.entry == new_roll("a")
        await backend.close(store)

    run(body)


def test_a_group_commit_logs_its_rows_in_the_order_staged(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        for rid in "abc":
            store.stage(new_roll(rid))
        await store.flush()
        store = await reopened(backend, store)
        assert ids(store) == ["a", "b", "c"]
        assert [r.seq for r in store.rolls()] == [1, 2, 3] and store.count() == 3
        assert ids_after(store, 1) == ["b", "c"]
        await backend.close(store)

    run(body)


def ids_after(store: WorldStore, seq: int) -> list[str]:
    return [roll.entry.request_id for roll in store.rolls(after=seq)]


def test_a_retry_of_an_id_staged_in_the_same_group_is_refused_and_one_row_is_logged(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        first = store.stage(new_roll("a", encounter="e", state={"n": 1}))
        with pytest.raises(RequestLogged, match="'a'"):
            store.stage(new_roll("a", encounter="e", state={"n": 2}))
        assert store.find("a") == first
        second = store.stage(new_roll("b"))
        assert second.seq == 2 and second.prev_hash == first.hash
        await store.flush()
        store = await reopened(backend, store)
        assert ids(store) == ["a", "b"]
        encounter = store.encounter("e")
        assert encounter is not None and encounter.state == {"n": 1}
        await backend.close(store)

    run(body)


def test_a_retry_of_a_committed_id_after_reopening_is_refused_and_finds_the_stored_row(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        logged = store.stage(new_roll("a"))
        await store.flush()
        store = await reopened(backend, store)
        with pytest.raises(RequestLogged):
            store.stage(new_roll("a"))
        assert store.find("a") == logged and store.count() == 1
        await store.flush()
        await backend.close(store)

    run(body)


def test_the_chain_runs_unbroken_across_group_commits_and_reopening(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        for group in (["a", "b"], ["c"], ["d", "e", "f"]):
            for rid in group:
                store.stage(new_roll(rid))
            await store.flush()
        store = await reopened(backend, store)
        store.stage(new_roll("g"))
        await store.flush()
        store = await reopened(backend, store)
        rows = list(store.rolls())
        assert [r.seq for r in rows] == list(range(1, 8))
        assert [r.prev_hash for r in rows] == [GENESIS, *(r.hash for r in rows[:-1])]
        assert store.verify_chain() == []
        await backend.close(store)

    run(body)


def test_the_log_refuses_to_rewrite_a_row(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        store.stage(new_roll("a"))
        await store.flush()
        await backend.close(store)

    run(body)
    with pytest.raises(Exception, match="append-only"):
        backend.rewrite("w", 1, "[]", behind_guards=False)


def test_verify_chain_names_a_row_rewritten_behind_the_guards(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        store.stage(new_roll("a"))
        store.stage(new_roll("b"))
        await store.flush()
        await backend.close(store)
        backend.rewrite("w", 1, "[]", behind_guards=True)
        store = await backend.open()
        assert store.verify_chain() == ["row 1: hash does not match its contents"]
        await backend.close(store)

    run(body)


def test_an_encounter_state_moves_with_its_row_and_a_null_state_keeps_it(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        store.stage(new_roll("a", encounter="e", state={"n": 1}))
        store.stage(new_roll("b", encounter="e", state=None))
        store.stage(new_roll("c", encounter="fresh", state=None))
        moved = store.encounter("e")
        assert moved is not None and moved.state == {"n": 1} and moved.seq == 1
        await store.flush()
        store = await reopened(backend, store)
        kept = store.encounter("e")
        assert kept is not None and kept.state == {"n": 1} and kept.seq == 1
        store.stage(new_roll("d", encounter="e", state={"n": 2, "name": "Zoë"}))
        await store.flush()
        store = await reopened(backend, store)
        kept, fresh = store.encounter("e"), store.encounter("fresh")
        assert kept is not None and kept.state == {"n": 2, "name": "Zoë"} and kept.seq == 4
        assert kept.ruleset == "tiny"
        assert fresh is not None and fresh.state is None and fresh.seq is None
        assert store.encounter("nowhere") is None
        await backend.close(store)

    run(body)


def test_sessions_open_end_once_and_a_new_owner_ends_those_left_open(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        store.open_session(session("late", 20.0))
        store.open_session(session("early", 10.0))
        store.end_session("early", 30.0)
        await store.flush()
        store.end_session("early", 99.0)  # already ended: keeps its end
        await store.flush()
        store = await reopened(backend, store)
        assert [s.id for s in store.sessions()] == ["early", "late"]
        early = store.session("early")
        assert early is not None and early.ended == 30.0 and early.seed == "seed-early"
        assert store.end_open_sessions(40.0) == 1
        await store.flush()
        store = await reopened(backend, store)
        assert [(s.id, s.ended) for s in store.sessions()] == [("early", 30.0), ("late", 40.0)]
        assert store.session("nobody") is None
        await backend.close(store)

    run(body)


def test_players_are_created_replaced_and_found_by_token_hash(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        store.put_player(Player("zed", ("z1",), "hash-z", 1.0, None))
        store.put_player(Player("ann", ("a1", "a2"), "hash-a", 2.0, None))
        await store.flush()
        store.put_player(Player("zed", ("z1", "z2"), "hash-z2", 1.0, 5.0))
        await store.flush()
        store = await reopened(backend, store)
        assert [p.name for p in store.players()] == ["ann", "zed"]
        assert store.player("zed") == Player("zed", ("z1", "z2"), "hash-z2", 1.0, 5.0)
        assert store.player_by_hash("hash-a") == Player("ann", ("a1", "a2"), "hash-a", 2.0, None)
        assert store.player_by_hash("hash-z") is None and store.player("nobody") is None
        await backend.close(store)

    run(body)


def test_stat_blocks_are_stored_replaced_deleted_and_listed_by_ruleset(backend: Backend) -> None:
    async def body() -> None:
        store = await backend.open()
        orc = StatBlock("tiny", "orc", '{"id":"orc","name":"Orc"}', "Actor.1", 1.0)
        store.put_stat_block(orc)
        store.put_stat_block(StatBlock("tiny", "elf", '{"id":"elf"}', None, 2.0))
        store.put_stat_block(StatBlock("other", "orc", '{"id":"orc"}', None, 3.0))
        store.put_stat_block(StatBlock("tiny", "gone", '{"id":"gone"}', None, 4.0))
        await store.flush()
        store.delete_stat_block("tiny", "gone")
        assert store.stat_block("tiny", "gone") is None
        renamed = orc._replace(block='{"id":"orc","name":"Grak"}', updated=5.0)
        store.put_stat_block(renamed)
        await store.flush()
        store = await reopened(backend, store)
        assert [(b.ruleset, b.participant) for b in store.stat_blocks()] == [
            ("other", "orc"),
            ("tiny", "elf"),
            ("tiny", "orc"),
        ]
        assert [b.participant for b in store.stat_blocks("tiny")] == ["elf", "orc"]
        assert store.stat_block("tiny", "orc") == renamed
        assert store.stat_block("tiny", "gone") is None
        await backend.close(store)

    run(body)


def test_two_worlds_in_one_backend_see_nothing_of_each_other(backend: Backend) -> None:
    async def body() -> None:
        one, two = await backend.open("one"), await backend.open("two")
        one.stage(new_roll("a", encounter="e", state={"world": 1}))
        one.open_session(session("s", 1.0))
        one.put_player(Player("ann", ("a1",), "hash-a", 1.0, None))
        one.put_stat_block(StatBlock("tiny", "orc", "{}", None, 1.0))
        await one.flush()
        # The same request id is new in another world, and starts its own chain.
        row = two.stage(new_roll("a", encounter="e", state={"world": 2}))
        await two.flush()
        assert row.seq == 1 and row.prev_hash == GENESIS
        await backend.close(one)
        await backend.close(two)
        one, two = await backend.open("one"), await backend.open("two")
        assert two.count() == 1 and one.count() == 1
        e1, e2 = one.encounter("e"), two.encounter("e")
        assert e1 is not None and e1.state == {"world": 1}
        assert e2 is not None and e2.state == {"world": 2}
        assert two.sessions() == [] and two.players() == [] and two.stat_blocks() == []
        assert [s.id for s in one.sessions()] == ["s"] and len(one.stat_blocks()) == 1
        assert one.verify_chain() == [] and two.verify_chain() == []
        await backend.close(one)
        await backend.close(two)

    run(body)


def test_a_failed_commit_loses_exactly_its_staged_writes_and_the_chain_goes_on(
    backend: Backend,
) -> None:
    async def body() -> None:
        store = await backend.open()
        first = store.stage(new_roll("a", encounter="e", state={"n": 1}))
        await store.flush()
        store.stage(new_roll("b", encounter="e", state={"n": 2}))
        store.stage(new_roll("c"))
        store.open_session(session("lost", 1.0))
        store.put_player(Player("lost", (), None, 1.0, None))
        store.put_stat_block(StatBlock("tiny", "lost", "{}", None, 1.0))
        backend.fail_next_commit(store)
        with pytest.raises(Exception):  # noqa: B017 - each backend fails in its own words
            await store.flush()
        assert not store.pending
        assert store.find("b") is None and store.find("c") is None and store.count() == 1
        encounter = store.encounter("e")
        assert encounter is not None and encounter.state == {"n": 1}
        # The retry of a lost id is decided again, chained onto the last committed row.
        again = store.stage(new_roll("b"))
        assert again.seq == 2 and again.prev_hash == first.hash
        await store.flush()
        store = await reopened(backend, store)
        assert ids(store) == ["a", "b"] and store.verify_chain() == []
        assert store.session("lost") is None and store.player("lost") is None
        assert store.stat_block("tiny", "lost") is None
        await backend.close(store)

    run(body)


def test_a_logged_id_is_found_or_read_back_never_missing_and_older_rows_are_read_in_order(
    backend: Backend,
) -> None:
    """The PostgreSQL store holds its most recent rows whole only (3 here): ``find`` of an older
    id raises RowNotCached naming it, never None; ``recall`` reads it back and ``find``
    then sees it; ``read_rolls`` and ``rolls`` read the whole log; a logged id is refused."""

    async def body() -> None:
        store = await backend.open()
        staged = []
        for group in range(3):
            staged += [store.stage(new_roll(f"r{group * 4 + n}")) for n in range(4)]
            await store.flush()
        store = await reopened(backend, store)
        missed: list[str] = []
        for roll in staged:
            try:
                found = store.find(roll.entry.request_id)
            except RowNotCached as missing:
                assert missing.request_id == roll.entry.request_id
                missed.append(missing.request_id)
                assert await store.recall(roll.entry.request_id) == roll
                found = store.find(roll.entry.request_id)
            assert found == roll
        assert await store.recall("never-sent") is None and store.find("never-sent") is None
        # PostgreSQL holds the last CACHE_ROWS rows whole: every older one had to be read back.
        held = CACHE_ROWS if backend.name == "postgresql" else 12
        assert store.cached_from() == 13 - held
        assert missed == [f"r{n}" for n in range(12 - held)]
        assert await store.read_rolls(2, 9) == staged[2:9]
        assert list(store.rolls()) == staged and list(store.rolls(5)) == staged[5:]
        assert store.count() == 12 and store.verify_chain() == []
        with pytest.raises(RequestLogged):
            store.stage(new_roll("r0"))
        await backend.close(store)

    run(body)
