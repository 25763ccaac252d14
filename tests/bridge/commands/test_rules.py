"""``arbiter rules publish|unpublish|show`` on the real PostgreSQL: bad rules are refused naming
the file, the entry and the field, and nothing is stored; good ones are stored and named by the
world; ``show`` lists them; a world nobody made and a data directory are refused."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from arbiter.bridge.stores.postgres_rules import RuleSources
from tests.bridge.test_hosting import secret_of
from tests.bridge.test_world_rules import BUNDLED, TABLES, cli, house, store_url


def stored(dsn: str) -> tuple[int, list[tuple[object, ...]]]:
    """How many rule sets are stored, and every world's rules."""
    with psycopg.connect(dsn) as db:
        sets = db.execute("SELECT count(*) FROM rule_sets").fetchone()
        worlds = db.execute("SELECT id, rules FROM worlds ORDER BY id").fetchall()
    assert sets is not None
    return int(sets[0]), [tuple(w) for w in worlds]


def test_bad_rules_are_refused_naming_file_entry_and_field_and_nothing_is_stored(
    postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret_of(postgres_database, "w")
    folder = tmp_path / "house"
    (folder / "combat-styles").mkdir(parents=True)
    # Rows 1-3 and 5-6: no row covers 4.
    broken = BUNDLED.replace("range = [4, 6]", "range = [5, 6]")
    (folder / "combat-styles" / TABLES).write_text(broken, encoding="utf-8")
    url = store_url(postgres_database)
    assert cli("rules", "publish", "--store", url, "--world", "w", "--rules", str(folder)) == 1
    err = capsys.readouterr().err
    assert "arbiter rules: nothing stored." in err
    assert (
        f"house/combat-styles/{TABLES}: entry hit_location_tables 'humanoid' > rows #2: "
        "field 'range': gap: no row covers 4–4 on 1d20"
    ) in err
    assert stored(postgres_database) == (0, [("w", None)])


def test_published_rules_are_named_by_the_world_shown_and_unpublished(
    postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret_of(postgres_database, "w")
    folder = house(tmp_path / "house", "Right shin")
    expected = RuleSources.read(folder).hash
    url = store_url(postgres_database)
    assert cli("rules", "publish", "--store", url, "--world", "w", "--rules", str(folder)) == 0
    assert f"world 'w' now names rules {expected} (1 files)" in capsys.readouterr().out
    assert stored(postgres_database) == (1, [("w", expected)])
    assert cli("rules", "show", "--store", url, "--world", "w") == 0
    assert (
        capsys.readouterr().out == f"world 'w' names rules {expected}:\n  combat-styles/{TABLES}\n"
    )
    assert cli("rules", "unpublish", "--store", url, "--world", "w") == 0
    assert f"(it named rules {expected})" in capsys.readouterr().out
    assert stored(postgres_database) == (1, [("w", None)])
    assert cli("rules", "show", "--store", url, "--world", "w") == 0
    assert capsys.readouterr().out == "world 'w' is served with its host's rules\n"


def test_a_world_nobody_made_and_a_data_directory_are_refused(
    postgres_database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = house(tmp_path / "house", "Right shin")
    url = store_url(postgres_database)
    assert cli("rules", "publish", "--store", url, "--world", "ghost", "--rules", str(folder)) == 2
    assert "no world 'ghost' in this database" in capsys.readouterr().err
    assert stored(postgres_database) == (0, [])
    assert cli("rules", "publish", "--data", str(tmp_path / "data")) == 2
    assert "a world's own rules live in a PostgreSQL --store" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()
