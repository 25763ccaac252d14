"""``build_module``: reproducible bytes, minimal change, no-change skip, atomic swap, locks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from foundry_lock import held_open
from rules_fixture import CRITICALS, SIZES, make_rules

from arbiter.compiler.errors import RuleError
from arbiter.compiler.foundry import build
from arbiter.compiler.foundry.build import STAMP, build_module
from arbiter.compiler.foundry.manifest import project_version
from arbiter.compiler.foundry.packs import read_pack
from arbiter.compiler.foundry.publish import BUILD_LOCK, BuildBusy, PacksLocked, exclusive_build
from arbiter.compiler.foundry.render import TEMPLATES_ROOT

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]


@pytest.fixture
def rules_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_rules(tmp_path, monkeypatch)


def tree(folder: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every file under ``folder``."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def rules(module_dir: Path) -> dict:
    return json.loads((module_dir / "module.json").read_text())["flags"]["arbiter"]["rules"]


def documents(module_dir: Path) -> dict[str, dict]:
    out = {}
    for pack in sorted((module_dir / "packs").iterdir()):
        out.update({f"{pack.name}{k}": v for k, v in read_pack(pack).items()})
    return out


def test_two_builds_give_identical_bytes(tmp_path: Path, rules_root: Path) -> None:
    a = build_module(tmp_path / "a", rules_root)
    b = build_module(tmp_path / "b", rules_root)
    files = tree(a.module_dir)
    assert files == tree(b.module_dir)
    assert {"module.json", "data/rules.json", "scripts/arbiter.mjs", "lang/en.json"} <= set(files)
    assert any(p.startswith("packs/tables/") for p in files)
    assert a.version == b.version


BUILD_SCRIPT = """
import sys, types
from pathlib import Path
sys.path.insert(0, sys.argv[3])
import rules_fixture
for rid in rules_fixture.RULESETS:
    module = types.ModuleType(f"arbiter.compiler.model.{rid}")
    module.RULESET_MODEL = rules_fixture.TinyRules
    sys.modules[module.__name__] = module
from arbiter.compiler.foundry.build import build_module
build_module(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def test_builds_in_processes_with_different_hash_seeds_give_identical_bytes(
    tmp_path: Path, rules_root: Path
) -> None:
    # Set and dict iteration orders change with the hash seed; none may reach the output.
    for seed in ("1", "2"):
        subprocess.run(
            [sys.executable, "-c", BUILD_SCRIPT, str(tmp_path / seed), str(rules_root), str(HERE)],
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            cwd=REPO,
        )
    assert tree(tmp_path / "1" / "arbiter") == tree(tmp_path / "2" / "arbiter")


def test_a_no_change_rebuild_writes_nothing(tmp_path: Path, rules_root: Path) -> None:
    first = build_module(tmp_path, rules_root)
    mtimes = {p: p.stat().st_mtime_ns for p in first.module_dir.rglob("*")}
    again = build_module(tmp_path, rules_root)
    assert again.skipped and not first.skipped
    assert again.version == first.version
    assert again.documents == first.documents
    assert {p: p.stat().st_mtime_ns for p in first.module_dir.rglob("*")} == mtimes


def test_a_damaged_module_is_rebuilt_even_when_the_sources_did_not_change(
    tmp_path: Path, rules_root: Path
) -> None:
    first = build_module(tmp_path, rules_root)
    before = tree(first.module_dir)
    (first.module_dir / "module.json").write_text("{}")
    again = build_module(tmp_path, rules_root)
    assert not again.skipped
    assert tree(again.module_dir) == before


def test_a_template_change_rebuilds(tmp_path: Path, rules_root: Path) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES_ROOT, templates)
    first = build_module(tmp_path / "out", rules_root, templates=templates)
    css = templates / "module" / "styles" / "arbiter.css"
    css.write_text(css.read_text() + ".arbiter-new { color: red; }\n")
    second = build_module(tmp_path / "out", rules_root, templates=templates)
    assert not second.skipped
    assert second.version != first.version
    assert b"arbiter-new" in (second.module_dir / "styles" / "arbiter.css").read_bytes()


def test_a_one_row_edit_changes_only_that_result_and_the_version(
    tmp_path: Path, rules_root: Path
) -> None:
    out = tmp_path / "out"
    before_report = build_module(out, rules_root)
    before = documents(before_report.module_dir)
    files_before = tree(before_report.module_dir)
    texts_before = {
        p.relative_to(before_report.module_dir).as_posix(): p.read_bytes()
        for p in before_report.module_dir.rglob("*")
        if p.is_file() and "packs" not in p.parts
    }
    rules_before = json.loads(texts_before["module.json"])["flags"]["arbiter"]["rules"]
    overlay = tmp_path / "house"
    (overlay / "tiny").mkdir(parents=True)
    (overlay / "tiny" / "criticals.toml").write_text(
        CRITICALS.replace('"Telling blow"', '"Crushing blow"')
    )
    after_report = build_module(out, rules_root, overlay)  # a rebuild in the same folder
    after = documents(after_report.module_dir)
    assert set(before) == set(after)  # no id moved
    changed = {k for k in before if before[k] != after[k]}
    result = next(k for k in changed if ".results!" in k)
    assert after[result]["text"].startswith("Crushing blow")
    about = next(k for k in changed if k.startswith("reference!journal.pages!"))
    assert after[about]["flags"] == {"arbiter": {"page": "about"}}  # it shows the content hash
    assert changed == {result, about}

    files_after = tree(after_report.module_dir)
    changed_files = {p for p in files_before if files_before[p] != files_after[p]}
    others = {p for p in changed_files if not p.startswith("packs/")} - {
        "module.json",
        "data/rules.json",
    }
    for path in others:  # any other file may differ only by the module version it quotes
        old = texts_before[path].decode()
        new = (after_report.module_dir / path).read_text()
        assert new.replace(after_report.version, before_report.version) == old, path
    project = project_version()
    assert (before_report.version, after_report.version) == (f"{project}.1", f"{project}.2")
    assert rules(after_report.module_dir)["wee"] == rules_before["wee"]


def test_bad_rules_leave_the_previous_module_untouched(tmp_path: Path, rules_root: Path) -> None:
    good = build_module(tmp_path, rules_root)
    before = tree(good.module_dir)
    overlay = tmp_path / "house"
    (overlay / "tiny").mkdir(parents=True)
    (overlay / "tiny" / "sizes.toml").write_text('[[sizes]]\nid = "s"\nrank = "one"\n')
    with pytest.raises(RuleError):
        build_module(tmp_path, rules_root, overlay)
    assert tree(good.module_dir) == before
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert leftovers == sorted([STAMP, BUILD_LOCK])


def test_a_failure_while_writing_leaves_the_previous_module_untouched(
    tmp_path: Path, rules_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = build_module(tmp_path, rules_root)
    before = tree(good.module_dir)
    (rules_root / "wee" / "sizes.toml").write_text(SIZES.replace("rank = 2", "rank = 7"))

    def broken_write(directory: Path, documents: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("arbiter.compiler.foundry.build.write_pack", broken_write)
    with pytest.raises(OSError, match="disk full"):
        build_module(tmp_path, rules_root)
    assert tree(good.module_dir) == before
    assert not [p for p in tmp_path.iterdir() if "-build-" in p.name]  # staging cleaned up
    monkeypatch.undo()


def test_no_rulesets_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    with pytest.raises(RuleError, match="no rulesets found"):
        build_module(tmp_path / "out", tmp_path / "rules")
    assert not (tmp_path / "out" / "arbiter").exists()


def test_the_zip_is_reproducible_and_holds_the_module_folder(
    tmp_path: Path, rules_root: Path
) -> None:
    a = build_module(tmp_path / "a", rules_root, zip_=True)
    b = build_module(tmp_path / "b", rules_root, zip_=True)
    assert a.zip_path is not None and b.zip_path is not None
    assert a.zip_path.read_bytes() == b.zip_path.read_bytes()
    names = zipfile.ZipFile(a.zip_path).namelist()
    assert "arbiter/module.json" in names
    assert len(names) == len(tree(a.module_dir))


def test_a_build_refuses_while_foundry_holds_the_packs_open(
    tmp_path: Path, rules_root: Path
) -> None:
    built = build_module(tmp_path, rules_root)
    (rules_root / "wee" / "sizes.toml").write_text(SIZES.replace("rank = 2", "rank = 7"))
    with held_open(built.module_dir / "packs" / "reference"):
        manifest = (built.module_dir / "module.json").read_bytes()
        with pytest.raises(PacksLocked, match="reference"):
            build_module(tmp_path, rules_root)
        assert (built.module_dir / "module.json").read_bytes() == manifest
    assert not build_module(tmp_path, rules_root).skipped  # once Foundry lets go, it builds


BUILD_LOCK_HOLDER = """
import sys, time
from pathlib import Path
from arbiter.compiler.foundry.leveldb.lock import hold_lock
with hold_lock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_build_into_the_same_folder_is_refused_while_the_first_runs(
    tmp_path: Path, rules_root: Path
) -> None:
    lock_dir = tmp_path / BUILD_LOCK
    lock_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", BUILD_LOCK_HOLDER, str(lock_dir)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(BuildBusy, match="another arbiter build is writing into"):
            build_module(tmp_path, rules_root)
        assert not (tmp_path / "arbiter").exists()
    finally:
        holder.kill()
        holder.wait()
    assert (build_module(tmp_path, rules_root).module_dir / "module.json").is_file()


def test_a_second_build_in_the_same_process_is_refused_too(
    tmp_path: Path, rules_root: Path
) -> None:
    # The server builds on a worker thread; file locks do not exclude threads of one process.
    with exclusive_build(tmp_path, "arbiter"), pytest.raises(BuildBusy):
        build_module(tmp_path, rules_root)
    assert not build_module(tmp_path, rules_root).skipped


def test_leftovers_of_an_interrupted_build_are_cleared(tmp_path: Path, rules_root: Path) -> None:
    out = tmp_path / "out"
    (out / ".arbiter-build-x1y2z3" / "packs").mkdir(parents=True)
    (out / ".arbiter-old-a1b2c3").mkdir()
    build_module(out, rules_root)
    assert sorted(p.name for p in out.iterdir()) == sorted([STAMP, BUILD_LOCK, "arbiter"])


def test_the_module_ships_the_protocol_and_stat_block_schemas_exactly_as_in_docs(
    tmp_path: Path, rules_root: Path
) -> None:
    report = build_module(tmp_path / "out", rules_root)
    docs = REPO / "docs" / "schemas"
    shipped = report.module_dir / "schemas"
    names = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.json"))
    assert names == [
        "client-message.schema.json",
        "server-message.schema.json",
        "stat-blocks/combat-styles.schema.json",
        "stat-blocks/hmk.schema.json",
        "stat-blocks/karmic.schema.json",
    ]
    assert sorted(p.relative_to(shipped).as_posix() for p in shipped.rglob("*.json")) == names
    for name in names:
        assert (shipped / name).read_bytes() == (docs / name).read_bytes(), name


def test_a_schema_change_rebuilds_with_a_new_version(
    tmp_path: Path, rules_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schemas = tmp_path / "schemas"
    shutil.copytree(REPO / "docs" / "schemas", schemas)
    monkeypatch.setattr(build, "SCHEMAS_ROOT", schemas)
    first = build_module(tmp_path / "out", rules_root)
    server = schemas / "server-message.schema.json"
    server.write_text(server.read_text().replace("Arbiter server message", "Arbiter messages"))
    second = build_module(tmp_path / "out", rules_root)
    assert not second.skipped and second.version != first.version
    shipped = second.module_dir / "schemas" / "server-message.schema.json"
    assert shipped.read_bytes() == server.read_bytes()


def test_dice_beyond_the_engine_are_refused_and_leave_the_previous_module_untouched(
    tmp_path: Path, rules_root: Path
) -> None:
    good = build_module(tmp_path, rules_root)
    before = tree(good.module_dir)
    overlay = tmp_path / "house"
    (overlay / "tiny").mkdir(parents=True)
    (overlay / "tiny" / "weapons.toml").write_text(
        '[[weapons]]\nid = "club"\nname = "Club"\ndamage = "1000000d1000000"\nsize = "m"\n'
    )
    with pytest.raises(RuleError) as refused:
        build_module(tmp_path, rules_root, overlay)
    assert [str(p) for p in refused.value.problems] == [
        "house/tiny/weapons.toml: entry weapons 'club': field 'damage': '1000000d1000000': "
        "d1000000 is over the engine's limit of 1000 faces"
    ]
    assert tree(good.module_dir) == before
