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
