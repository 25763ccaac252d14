"""Every module of the engine (``bridge/engine/**``) is pure: it imports nothing that touches
the world (files, clock, network, processes, the global RNG) and calls no I/O built-in. Only
``dice.py`` may use ``secrets``, ``hmac`` and ``hashlib`` (the secure and keyed dice sources),
and ``registry.py`` ``importlib`` (it imports the engine package named by a ruleset id)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE_DIR = Path(__file__).resolve().parents[3] / "bridge" / "engine"

BANNED_MODULES = {
    "asyncio", "datetime", "glob", "hashlib", "hmac", "http", "importlib", "io", "logging",
    "multiprocessing", "os", "pathlib", "random", "secrets", "select", "shutil", "signal",
    "socket", "sqlite3", "subprocess", "sys", "tempfile", "threading", "time", "urllib",
    "uuid", "websockets",
}  # fmt: skip
ALLOWED = {
    "dice.py": {"secrets", "hmac", "hashlib"},
    # The registry finds an engine package by ruleset id; no engine decides anything with it.
    "registry.py": {"importlib"},
}
BANNED_CALLS = {"open", "input", "print", "exec", "eval", "compile", "__import__", "breakpoint"}
MODULES = sorted(ENGINE_DIR.rglob("*.py"))


def problems(source: str, name: str) -> list[str]:
    """What in ``source`` (the module ``name`` relative to bridge/engine) breaks purity."""
    allowed = ALLOWED.get(name, set())
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in BANNED_CALLS
        ):
            found.append(f"line {node.lineno} calls {node.func.id}()")
        for imported in names:
            root = imported.split(".")[0]
            if root in BANNED_MODULES and root not in allowed:
                found.append(f"line {node.lineno} imports {imported}")
    return sorted(found, key=lambda problem: int(problem.split()[1]))


def test_the_scan_covers_every_engine_package() -> None:
    packages = {p.parent.name for p in MODULES if p.parent != ENGINE_DIR}
    assert {"combat_styles", "hmk", "karmic"} <= packages
    assert ENGINE_DIR / "dice.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENGINE_DIR)))
def test_an_engine_module_touches_nothing_outside_itself(path: Path) -> None:
    name = str(path.relative_to(ENGINE_DIR))
    assert problems(path.read_text(encoding="utf-8"), name) == []


def test_the_scan_catches_a_clock_read_the_global_rng_and_a_file_open() -> None:
    source = "import time\nfrom random import randint\n\n\ndef f():\n    return open('x')\n"
    assert problems(source, "karmic/rounds.py") == [
        "line 1 imports time",
        "line 2 imports random",
        "line 6 calls open()",
    ]


def test_only_the_dice_module_may_use_the_secure_and_keyed_sources() -> None:
    source = "import secrets\nimport hmac\n"
    assert problems(source, "dice.py") == []
    assert problems(source, "hmk/attack.py") == ["line 1 imports secrets", "line 2 imports hmac"]
