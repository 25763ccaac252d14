"""The compact index of a PostgreSQL world's request ids (``bridge/stores/request_index.py``):
loading sorts the digests in about 2 x 8 bytes an id, a long-lived world holds at most its
bound of ids as strings (folding the rest into the digests), and every id logged stays found."""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

from arbiter.bridge.stores.postgres_cache import FOLD_ROWS, WorldRows
from arbiter.bridge.stores.request_index import RequestIndex, digest


def test_loading_100000_ids_sorts_their_digests_with_a_peak_under_24_bytes_an_id() -> None:
    ids = [f"request-{n}" for n in range(100_000)]
    index = RequestIndex()
    tracemalloc.start()
    try:
        for at in range(0, len(ids), 10_000):  # in batches, as read from the database
            index.load(ids[at : at + 10_000])
        index.seal()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The digests, sorted, exactly; a list of Python integers for them all would be ~36 B an id.
    assert list(index._loaded) == sorted(map(digest, ids))
    assert index.loaded == 100_000 and index.strings == 0
    assert peak < 24 * 100_000, peak
    assert all(index.maybe(rid) for rid in ids[::97])
    assert not any(index.maybe(f"never-{n}") for n in range(1000))


def test_ids_past_the_bound_are_folded_into_the_digests_and_every_one_is_still_found() -> None:
    index = RequestIndex()
    index.load(f"old-{n}" for n in range(500))
    index.seal()
    for n in range(1000):
        index.add(f"new-{n}")
        index.fold_beyond(40)
        assert index.strings <= 40
    # Folded 24 times, 41 ids each; the last 16 are strings still.
    assert index.loaded == 500 + 24 * 41 and index.strings == 16 and len(index) == 1500
    assert list(index._loaded) == sorted(index._loaded)
    assert all(index.maybe(f"new-{n}") for n in range(1000))
    assert all(index.maybe(f"old-{n}") for n in range(500))
    assert not any(index.maybe(f"never-{n}") for n in range(1000))


def test_a_world_never_reopened_holds_at_most_4_times_its_cache_rows_of_ids_as_strings() -> None:
    world = WorldRows(limit=10)
    for group in range(100):
        staged = WorldRows()
        for n in range(7):
            rid = f"r-{group}-{n}"
            roll = SimpleNamespace(entry=SimpleNamespace(request_id=rid))
            staged.rolls.append(roll)  # type: ignore[arg-type]
            staged.by_request[rid] = roll  # type: ignore[assignment]
        world.merge(staged)
        assert world.ids.strings <= FOLD_ROWS * 10 == 40
        assert len(world.rolls) == min(10, 7 * (group + 1))
    assert len(world.ids) == 700
    assert all(world.ids.maybe(f"r-{g}-{n}") for g in range(100) for n in range(7))
