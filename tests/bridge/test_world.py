"""Where a world lives (``--data``, ``--store``, ``--world``): what the options mean and what
they refuse, naming the problem."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from arbiter.bridge.cli import main
from arbiter.bridge.world import PostgresWorld, add_store_arguments, redact, where_from

URL = "postgresql://arbiter:hunter2@db.example.com:5433/arbiter"


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_store_arguments(parser, "data")
    return parser.parse_args(list(argv))


def test_a_data_directory_is_the_default_and_sqlite_colon_names_one() -> None:
    assert where_from(parse()) == Path(".arbiter-data")
    assert where_from(parse("--data", "w")) == Path("w")
    assert where_from(parse("--store", "sqlite:w")) == Path("w")
    assert where_from(parse("--store", "sqlite:w", "--data", "w")) == Path("w")


def test_a_postgresql_url_names_a_world_with_world() -> None:
    assert where_from(parse("--store", URL, "--world", "t7")) == PostgresWorld(URL, "t7")


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (("--store", URL), "say which with --world ID"),
        (("--store", URL, "--world", "t7", "--data", "d"), "drop it with a PostgreSQL --store"),
        (("--world", "t7"), "--world is for a PostgreSQL --store"),
        (("--store", "sqlite:a", "--data", "b"), "name two folders"),
    ],
)
def test_options_that_contradict_each_other_are_refused_naming_why(
    argv: tuple[str, ...], problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        where_from(parse(*argv))


def test_a_store_that_is_neither_sqlite_nor_postgresql_is_refused_by_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["log", "--store", "mysql://x/y"])
    assert "give sqlite:DIR (a data directory) or a postgresql:// URL" in capsys.readouterr().err


def test_serve_refuses_a_postgresql_store_without_a_world(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--store", URL, "--no-build"]) == 2
    assert "say which with --world ID" in capsys.readouterr().err


def test_the_password_of_a_url_is_never_printed() -> None:
    assert redact(URL) == "postgresql://arbiter:***@db.example.com:5433/arbiter"
    assert redact("postgresql://db/a?password=x&sslmode=require") == (
        "postgresql://db/a?password=***&sslmode=require"
    )


def test_a_data_directory_s_checkpointer_gets_its_wal_started_over_under_unbroken_load(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Each checkpoint of the thread's runs while the writer's transaction is open (as under
    # load that never pauses): only the catch-up it asks of the store starts the WAL over.
    import asyncio

    from arbiter.bridge.store import Store
    from arbiter.bridge.stores.sqlite_checkpointer import RESET_FRAMES
    from arbiter.bridge.stores.sqlite_schema import PAGE_SIZE
    from arbiter.bridge.world import open_data_dir
    from tests.support.rolls import new_roll

    world = open_data_dir(tmp_path / "w", "NORMAL")
    store, checkpointer = world.store, world.checkpointer
    assert isinstance(store, Store) and checkpointer is not None
    wal = Path(f"{store.path}-wal")

    def restarts() -> int:
        """The WAL header's checkpoint sequence: one more each time SQLite starts it over."""
        with wal.open("rb") as header:
            return int.from_bytes(header.read(16)[12:16], "big")

    row = 0
    store.append(new_roll("r-0"))
    first = restarts()
    while restarts() == first:
        assert row < 4 * RESET_FRAMES, "the WAL never started over"
        assert store.find(f"r-{row + 1}") is None  # the idempotency probe, as the server's
        for _ in range(4):
            row += 1
            store.stage(new_roll(f"r-{row}")._replace(request="x" * 1800))
        checkpointer.step()
        store.commit()
    assert wal.stat().st_size >= RESET_FRAMES * (PAGE_SIZE + 24)
    assert store.find("r-1") is not None
    assert "catch-up" not in caplog.text
    asyncio.run(world.close())
