"""The loader names file, entry and field for every kind of bad rule source."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.common import DieTable, Entry, Problem, RulesetBase
from arbiter.compiler.model.loader import load_ruleset


class Weapon(Entry):
    name: str
    damage: str
    size: str


class Size(Entry):
    rank: int


class TinyRules(RulesetBase):
    sizes: list[Size]
    weapons: list[Weapon]
    tables: list[DieTable]

    def cross_check(self):
        yield from super().cross_check()
        known = {s.id for s in self.sizes}
        for i, w in enumerate(self.weapons):
            if w.size not in known:
                yield Problem(path=("weapons", i, "size"), message=f"unknown size {w.size!r}")


META = '[ruleset]\nid = "tiny"\ntitle = "Tiny"\nversion = "1.0.0"\n'
SIZES = '[[sizes]]\nid = "s"\nrank = 1\n\n[[sizes]]\nid = "m"\nrank = 2\n'
WEAPONS = '[[weapons]]\nid = "dagger"\nname = "Dagger"\ndamage = "1d4+1"\nsize = "s"\n'
TABLES = """
[[tables]]
id = "fumble"
name = "Fumble"
die = "1d10"
rows = [
  { range = [1, 5], text = "Drop weapon" },
  { range = [6, 10], text = "Trip" },
]
"""


def make(root: Path, **files: str) -> Path:
    folder = root / "tiny"
    folder.mkdir(parents=True, exist_ok=True)
    base = {"ruleset": META, "sizes": SIZES, "weapons": WEAPONS, "tables": TABLES}
    base.update(files)
    for name, text in base.items():
        if text is not None:
            (folder / f"{name}.toml").write_text(text)
    return root


def problems(root: Path, overlay: Path | None = None) -> list[str]:
    with pytest.raises(RuleError) as info:
        load_ruleset("tiny", root=root, overlay=overlay, model=TinyRules)
    return [str(p) for p in info.value.problems]


def test_a_valid_ruleset_loads_with_a_stable_content_hash(tmp_path: Path) -> None:
    root = make(tmp_path)
    first = load_ruleset("tiny", root=root, model=TinyRules)
    second = load_ruleset("tiny", root=root, model=TinyRules)
    assert first.model.weapons[0].name == "Dagger"
    assert first.content_hash == second.content_hash
    assert len(first.content_hash) == 64
    # Not a constant: one changed value gives another hash.
    renamed = make(tmp_path / "renamed", weapons=WEAPONS.replace('"Dagger"', '"Dirk"'))
    third = load_ruleset("tiny", root=renamed, model=TinyRules)
    assert third.model.weapons[0].name == "Dirk"
    assert third.content_hash != first.content_hash


def test_comments_and_formatting_do_not_change_the_content_hash(tmp_path: Path) -> None:
    a = load_ruleset("tiny", root=make(tmp_path / "a"), model=TinyRules)
    b_root = make(tmp_path / "b", weapons="# a comment\n" + WEAPONS.replace(" = ", "="))
    b = load_ruleset("tiny", root=b_root, model=TinyRules)
    assert a.content_hash == b.content_hash


def test_a_wrong_type_names_file_entry_and_field(tmp_path: Path) -> None:
    root = make(tmp_path, sizes=SIZES.replace("rank = 2", 'rank = "2"'))
    (msg,) = problems(root)
    assert msg.startswith("tiny/sizes.toml: entry sizes 'm': field 'rank': ")
    assert "integer" in msg


def test_an_unknown_reference_names_the_field(tmp_path: Path) -> None:
    root = make(tmp_path, weapons=WEAPONS.replace('size = "s"', 'size = "huge"'))
    assert problems(root) == [
        "tiny/weapons.toml: entry weapons 'dagger': field 'size': unknown size 'huge'"
    ]


def test_overlapping_rows_are_reported_with_their_position(tmp_path: Path) -> None:
    root = make(tmp_path, tables=TABLES.replace("[6, 10]", "[5, 10]"))
    (msg,) = problems(root)
    assert msg.startswith(
        "tiny/tables.toml: entry tables 'fumble' > rows #2: field 'range': overlap"
    )


def test_a_gap_in_a_table_is_reported(tmp_path: Path) -> None:
    root = make(tmp_path, tables=TABLES.replace("[6, 10]", "[7, 10]"))
    (msg,) = problems(root)
    assert "gap: no row covers 6–6 on 1d10" in msg


def test_a_short_table_is_reported(tmp_path: Path) -> None:
    root = make(tmp_path, tables=TABLES.replace("[6, 10]", "[6, 9]"))
    (msg,) = problems(root)
    assert msg.endswith("gap: no row covers 10–10 on 1d10")


def test_a_duplicate_id_is_reported(tmp_path: Path) -> None:
    root = make(tmp_path, sizes=SIZES.replace('id = "m"', 'id = "s"'))
    assert problems(root) == ["tiny/sizes.toml: entry sizes #2: field 'id': duplicate id 's'"]


def test_a_toml_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    root = make(tmp_path, weapons=WEAPONS + "oops = \n")
    (msg,) = problems(root)
    assert msg.startswith("tiny/weapons.toml: TOML syntax error:")
    assert "line 6" in msg


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    root = make(tmp_path, weapons=None)
    assert problems(root) == [
        "tiny/weapons.toml: missing: no file defines 'weapons' (expected in weapons.toml)"
    ]


def test_an_unknown_field_is_rejected(tmp_path: Path) -> None:
    root = make(tmp_path, weapons=WEAPONS + 'colour = "red"\n')
    (msg,) = problems(root)
    assert msg.startswith("tiny/weapons.toml: entry weapons 'dagger': field 'colour':")


def test_an_assumed_value_without_a_note_is_rejected(tmp_path: Path) -> None:
    root = make(tmp_path, weapons=WEAPONS + "assumed = true\n")
    (msg,) = problems(root)
    assert "needs a one-line note" in msg


def test_house_rules_replace_and_add_entries_by_id(tmp_path: Path) -> None:
    root = make(tmp_path / "rules")
    overlay = tmp_path / "house" / "tiny"
    overlay.mkdir(parents=True)
    (overlay / "weapons.toml").write_text(
        WEAPONS.replace("1d4+1", "1d6")
        + '[[weapons]]\nid = "club"\nname = "Club"\ndamage = "1d6"\nsize = "m"\n'
    )
    ruleset = load_ruleset("tiny", root=root, overlay=tmp_path / "house", model=TinyRules)
    assert [(w.id, w.damage) for w in ruleset.model.weapons] == [("dagger", "1d6"), ("club", "1d6")]
    assert ruleset.files[-1] == "house/tiny/weapons.toml"


def test_an_error_in_a_house_rule_names_the_house_rule_file(tmp_path: Path) -> None:
    root = make(tmp_path / "rules")
    overlay = tmp_path / "house" / "tiny"
    overlay.mkdir(parents=True)
    (overlay / "weapons.toml").write_text(
        '[[weapons]]\nid = "club"\nname = "Club"\ndamage = "1d6"\nsize = "xl"\n'
    )
    assert problems(root, tmp_path / "house") == [
        "house/tiny/weapons.toml: entry weapons 'club': field 'size': unknown size 'xl'"
    ]
