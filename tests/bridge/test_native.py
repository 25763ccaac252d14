"""The compiled engine: what the build compiles, when its code may run, and that it decides every
request exactly as its sources do."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.bridge import native

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.json"))
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]
SEED = "a5" * 32  # keyed dice for any request that recorded none


def _tree(tmp_path: Path, sources: dict[str, str], *, compiled: tuple[str, ...] = ()) -> Path:
    """A project tree with the given engine sources, and a build of ``compiled`` among them:
    empty stand-ins for the extension files, and a manifest of the sources' digests."""
    for rel, text in sources.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if compiled:
        paths = [tmp_path / rel for rel in compiled]
        record = native.manifest(tmp_path, paths, "mypyc test")
        (tmp_path / native.MANIFEST).write_text(json.dumps(record), encoding="utf-8")
        (tmp_path / f"{native.GROUP}__mypyc{SUFFIX}").touch()
        for path in paths:
            stem = path.with_suffix("")
            stem.with_name(stem.name + SUFFIX).touch()
    return tmp_path


SOURCES = {
    "arbiter/bridge/engine/__init__.py": '"""engine"""\n',
    "arbiter/bridge/engine/dice.py": "def roll() -> int:\n    return 4\n",
    "arbiter/bridge/engine/requests.py": "from pydantic import BaseModel\n",
}
BUILT = ("arbiter/bridge/engine/__init__.py", "arbiter/bridge/engine/dice.py")


def test_the_build_compiles_every_engine_module_except_those_that_import_pydantic() -> None:
    chosen = {native.module_name(ROOT, path) for path in native.compiled_sources(ROOT)}
    assert {
        "arbiter.bridge.engine.dice",
        "arbiter.bridge.engine.combat_styles.exchange.exchange",
    } <= chosen
    assert "arbiter.bridge.engine.combat_styles" in chosen  # a package is named by its __init__
    assert "arbiter.bridge.engine.combat_styles.bodies.requests" not in chosen
    assert not any(name.startswith(("arbiter.bridge.server", "compiler")) for name in chosen)


def test_the_build_compiles_the_servers_pure_helpers_with_the_engine() -> None:
    chosen = {native.module_name(ROOT, path) for path in native.compiled_sources(ROOT)}
    assert {
        "arbiter.bridge.pure",
        "arbiter.bridge.pure.chain",
        "arbiter.bridge.pure.canonical",
        "arbiter.bridge.pure.outcome_text",
        "arbiter.bridge.pure.frame_text",
        "arbiter.bridge.pure.known_bodies",
    } <= chosen
    assert not any(name.startswith("arbiter.bridge.records") for name in chosen)


def test_an_edited_pure_helper_makes_every_compiled_module_run_from_source(
    tmp_path: Path,
) -> None:
    pure = {
        **SOURCES,
        "arbiter/bridge/pure/__init__.py": '"""pure"""\n',
        "arbiter/bridge/pure/chain.py": "def link() -> str:\n    return 'a'\n",
    }
    root = _tree(tmp_path, pure, compiled=(*BUILT, *list(pure)[3:]))
    assert native.inspect(root).mode == "compiled"
    (root / "arbiter/bridge/pure/chain.py").write_text("def link() -> str:\n    return 'b'\n")
    status = native.inspect(root)
    assert (status.mode, status.changed) == ("interpreted", ("arbiter.bridge.pure.chain",))


def test_a_fresh_complete_build_is_the_engine_that_runs(tmp_path: Path) -> None:
    status = native.inspect(_tree(tmp_path, SOURCES, compiled=BUILT))
    assert status.mode == "compiled"
    assert status.reason == "mypyc test"
    assert status.changed == () and status.not_compiled == ()


def test_an_edited_source_makes_the_sources_run_and_is_named(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / "arbiter/bridge/engine/dice.py").write_text("def roll() -> int:\n    return 6\n")
    status = native.inspect(root)
    assert status.mode == "interpreted"
    assert status.changed == ("arbiter.bridge.engine.dice",)
    assert "arbiter.bridge.engine.dice" in status.reason


def test_a_deleted_source_counts_as_changed(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / "arbiter/bridge/engine/dice.py").unlink()
    assert native.inspect(root).changed == ("arbiter.bridge.engine.dice",)


def test_a_missing_extension_file_makes_the_sources_run(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / f"arbiter/bridge/engine/dice{SUFFIX}").unlink()
    status = native.inspect(root)
    assert (status.mode, status.reason) == (
        "interpreted",
        "compiled modules missing: arbiter.bridge.engine.dice",
    )


def test_without_the_shared_library_or_a_manifest_nothing_compiled_runs(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / f"{native.GROUP}__mypyc{SUFFIX}").unlink()
    assert native.inspect(root).mode == "interpreted"
    (root / native.MANIFEST).write_text("{not json")
    assert "unreadable" in native.inspect(root).reason
    (root / native.MANIFEST).unlink()
    assert native.inspect(root).reason == "not compiled: no arbiter/bridge/engine/compiled.json"


def test_an_install_that_could_not_compile_runs_the_sources_and_says_why(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES)
    record = {"compiler": None, "reason": "no working C compiler: 'cc' failed", "modules": {}}
    (root / native.MANIFEST).parent.mkdir(parents=True, exist_ok=True)
    (root / native.MANIFEST).write_text(json.dumps(record), encoding="utf-8")
    status = native.inspect(root)
    assert (status.mode, status.reason) == (
        "interpreted",
        "not compiled at install: no working C compiler: 'cc' failed",
    )
    with pytest.raises(RuntimeError, match="not compiled at install: no working C compiler"):
        native.choose(root, {native.ENV_VAR: "compiled"})


def test_a_module_added_after_the_build_is_reported_not_compiled(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / "arbiter/bridge/engine/odds.py").write_text("X = 1\n")
    status = native.inspect(root)
    assert status.mode == "compiled"
    assert status.not_compiled == ("arbiter.bridge.engine.odds",)


NESTED = {
    **SOURCES,
    "arbiter/bridge/engine/styles/__init__.py": '"""styles"""\n',
    "arbiter/bridge/engine/styles/rounds/__init__.py": "from arbiter.bridge.engine.styles.rounds.turns import turn\n",
    "arbiter/bridge/engine/styles/rounds/turns.py": "def turn() -> int:\n    return 1\n",
    "arbiter/bridge/engine/styles/bodies/requests.py": "from pydantic import BaseModel\n",
}
NESTED_BUILT = (
    *BUILT,
    "arbiter/bridge/engine/styles/__init__.py",
    "arbiter/bridge/engine/styles/rounds/__init__.py",
    "arbiter/bridge/engine/styles/rounds/turns.py",
)


def test_sub_packages_two_levels_down_are_compiled_recorded_and_guarded(tmp_path: Path) -> None:
    root = _tree(tmp_path, NESTED, compiled=NESTED_BUILT)
    chosen = [native.module_name(root, path) for path in native.compiled_sources(root)]
    assert "arbiter.bridge.engine.styles.rounds" in chosen  # the sub-package, by its __init__
    assert "arbiter.bridge.engine.styles.rounds.turns" in chosen
    assert "arbiter.bridge.engine.styles.bodies.requests" not in chosen
    modules = json.loads((root / native.MANIFEST).read_text(encoding="utf-8"))["modules"]
    assert {
        "arbiter.bridge.engine.styles.rounds",
        "arbiter.bridge.engine.styles.rounds.turns",
    } <= set(modules)
    assert native.inspect(root).mode == "compiled"
    (root / "arbiter/bridge/engine/styles/rounds/turns.py").write_text(
        "def turn() -> int:\n    return 2\n"
    )
    (root / "arbiter/bridge/engine/styles/rounds/__init__.py").write_text("")
    status = native.inspect(root)
    assert status.mode == "interpreted"
    assert status.changed == (
        "arbiter.bridge.engine.styles.rounds",
        "arbiter.bridge.engine.styles.rounds.turns",
    )


def test_a_missing_nested_package_extension_makes_the_sources_run(tmp_path: Path) -> None:
    root = _tree(tmp_path, NESTED, compiled=NESTED_BUILT)
    (root / f"arbiter/bridge/engine/styles/rounds/__init__{SUFFIX}").unlink()
    status = native.inspect(root)
    assert (status.mode, status.reason) == (
        "interpreted",
        "compiled modules missing: arbiter.bridge.engine.styles.rounds",
    )


def test_arbiter_engine_compiled_refuses_a_stale_build_and_says_why(tmp_path: Path) -> None:
    root = _tree(tmp_path, SOURCES, compiled=BUILT)
    (root / "arbiter/bridge/engine/dice.py").write_text("def roll() -> int:\n    return 6\n")
    with pytest.raises(RuntimeError, match="ARBITER_ENGINE=compiled, but the engine is sources"):
        native.choose(root, {native.ENV_VAR: "compiled"})
    assert native.choose(root, {}).mode == "interpreted"
    assert native.choose(root, {native.ENV_VAR: "interpreted"}).reason == (
        "ARBITER_ENGINE=interpreted"
    )
    with pytest.raises(RuntimeError, match="expected 'compiled' or 'interpreted'"):
        native.choose(root, {native.ENV_VAR: "fast"})


def test_the_test_suite_runs_the_compiled_engine() -> None:
    # Run scripts/setup (or pip install -e .) after editing the engine: this fails until the
    # compiled engine matches the sources again.
    status = native.select_engine()
    assert (status.mode, status.changed) == ("compiled", ()), status.reason
    from arbiter.bridge.engine.combat_styles.exchange import exchange
    from arbiter.bridge.pure import chain

    assert exchange.__file__ is not None and exchange.__file__.endswith(SUFFIX)
    assert chain.__file__ is not None and chain.__file__.endswith(SUFFIX)


def _python(code: str, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, native.ENV_VAR: mode},
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )


def test_arbiter_engine_interpreted_loads_every_engine_and_pure_module_from_its_source() -> None:
    code = (
        "import arbiter.bridge.engine.combat_styles.exchange.exchange as m, arbiter.bridge.engine.dice as d\n"
        "import arbiter.bridge.pure.chain as c\n"
        "from arbiter.bridge import native\n"
        "print(m.__file__, d.__file__, c.__file__, native.describe())"
    )
    exchange_file, dice_file, chain_file, *described = _python(code, "interpreted").stdout.split()
    assert exchange_file.endswith("combat_styles/exchange/exchange.py")
    assert dice_file.endswith("engine/dice.py")
    assert chain_file.endswith("pure/chain.py")
    assert " ".join(described) == "engine: interpreted (ARBITER_ENGINE=interpreted)"


@pytest.mark.parametrize("example", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_the_compiled_and_interpreted_engines_replay_the_examples_byte_for_byte(
    example: Path,
) -> None:
    code = f"from arbiter.bridge.cli import main; main(['replay', {str(example)!r}, '--seed', '{SEED}'])"
    compiled = _python(code, "compiled").stdout
    interpreted = _python(code, "interpreted").stdout
    assert len(json.loads(compiled)) > 3
    assert compiled == interpreted
