"""``arbiter build``: prints what it built; on bad rules exits non-zero naming file, entry and
field, and leaves the previous module exactly as it was."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from foundry_lock import held_open
from rules_fixture import SIZES, TABLES, WEAPONS, make_rules

from arbiter.bridge.cli import main
from arbiter.compiler.foundry import command
from arbiter.compiler.foundry.manifest import project_version


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_rules(tmp_path, monkeypatch)
    monkeypatch.setattr(command, "RULES_ROOT", root)
    return root


def tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_build_prints_the_module_and_its_rulesets(
    tmp_path: Path, rules_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"built: {tmp_path / 'out' / 'arbiter'} (module arbiter {project_version()}.1)"
    )
    assert "  tiny 1.2.0  Tiny Rules  [" in out
    assert "packs: tables 34, reference 12, macros 5 entries" in out
    assert (tmp_path / "out" / "arbiter" / "module.json").is_file()
    assert main(["build", "--out", str(tmp_path / "out"), "--zip"]) == 0
    again = capsys.readouterr().out
    assert again.startswith("up to date: ")
    assert f"zip: {tmp_path / 'out' / 'arbiter.zip'}" in again


def test_a_zip_built_for_a_public_url_carries_its_manifest_and_download(
    tmp_path: Path, rules_root: Path
) -> None:
    url = "https://vtt.example/arbiter/"
    assert main(["build", "--out", str(tmp_path / "out"), "--zip", "--public-url", url]) == 0
    with zipfile.ZipFile(tmp_path / "out" / "arbiter.zip") as archive:
        packaged = json.loads(archive.read("arbiter/module.json"))
    assert packaged["manifest"] == "https://vtt.example/arbiter/module.json"
    assert packaged["download"] == "https://vtt.example/arbiter/module.zip"
    # The folder itself stays without URLs: arbiter serve adds its own host's.
    folder = json.loads((tmp_path / "out" / "arbiter" / "module.json").read_text())
    assert "manifest" not in folder and "download" not in folder
    assert packaged == {
        **folder,
        "manifest": packaged["manifest"],
        "download": packaged["download"],
    }


BAD_HOUSE_RULES = {
    "wrong type": (
        "sizes.toml",
        SIZES.replace("rank = 2", 'rank = "2"'),
        "house/tiny/sizes.toml: entry sizes 'm': field 'rank': Input should be a valid integer",
    ),
    "unknown reference": (
        "weapons.toml",
        WEAPONS.replace('size = "s"', 'size = "huge"'),
        "house/tiny/weapons.toml: entry weapons 'dagger': field 'size': unknown size 'huge'",
    ),
    "overlapping ranges": (
        "tables.toml",
        TABLES.replace("[6, 9]", "[5, 9]"),
        "house/tiny/tables.toml: entry tables 'fumble' > rows #2: field 'range': overlap: 5–5",
    ),
    "gapped ranges": (
        "tables.toml",
        TABLES.replace("[6, 9]", "[7, 9]"),
        "house/tiny/tables.toml: entry tables 'fumble' > rows #2: field 'range': gap: no row "
        "covers 6–6 on 1d10",
    ),
    "duplicate id": (
        "sizes.toml",
        SIZES.replace('id = "m"', 'id = "s"'),
        "house/tiny/sizes.toml: entry sizes #2: field 'id': duplicate id 's'",
    ),
    "TOML syntax error": (
        "weapons.toml",
        WEAPONS + "oops = \n",
        "house/tiny/weapons.toml: TOML syntax error: ",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_HOUSE_RULES))
def test_bad_house_rules_exit_non_zero_naming_file_entry_and_field(
    case: str, tmp_path: Path, rules_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["build", "--out", str(out)]) == 0
    before = tree(out)
    name, text, expected = BAD_HOUSE_RULES[case]
    house = tmp_path / "house"
    (house / "tiny").mkdir(parents=True)
    (house / "tiny" / name).write_text(text)
    capsys.readouterr()
    assert main(["build", "--out", str(out), "--rules", str(house)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("arbiter build: nothing written.\n1 problem in the rule sources:\n")
    assert f"  {expected}" in err
    assert tree(out) == before


def test_a_missing_rule_file_is_named_and_nothing_is_written(
    tmp_path: Path, rules_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["build", "--out", str(out)]) == 0
    before = tree(out)
    (rules_root / "tiny" / "weapons.toml").unlink()
    capsys.readouterr()
    assert main(["build", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert (
        "  tiny/weapons.toml: missing: no file defines 'weapons' (expected in weapons.toml)" in err
    )
    assert tree(out) == before


def test_a_missing_house_rule_folder_is_named(
    tmp_path: Path, rules_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["build", "--out", str(tmp_path / "out"), "--rules", str(tmp_path / "nope")]) == 1
    assert f"{tmp_path / 'nope'}: house-rule folder not found" in capsys.readouterr().err
    assert not (tmp_path / "out" / "arbiter").exists()


def test_build_exits_2_and_says_why_while_foundry_holds_the_packs(
    tmp_path: Path, rules_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["build", "--out", str(out)]) == 0
    (rules_root / "wee" / "sizes.toml").write_text(SIZES.replace("rank = 2", "rank = 3"))
    with held_open(out / "arbiter" / "packs" / "tables"):
        before = tree(out / "arbiter")
        capsys.readouterr()
        assert main(["build", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "nothing written: the packs tables of" in err
        assert "close the world or stop Foundry, then build again" in err
        assert tree(out / "arbiter") == before
