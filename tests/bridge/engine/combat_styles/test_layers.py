"""The combat-styles engine is layered: its sub-packages are ordered by phase of play, and every
import points down (or sideways, inside one sub-package). The few calls that must go up are
explicit hooks, listed in :data:`HOOKS` with the reason. The package map in
``combat_styles/__init__.py`` names every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "arbiter.bridge.engine.combat_styles"
ROOT = Path(__file__).resolve().parents[4] / "bridge" / "engine" / "combat_styles"
LAYERS = (
    "core",
    "bodies",
    "encounter",
    "grades",
    "rounds",
    "riding",
    "effects",
    "exchange",
    "moves",
    "spirit",
)
"""Bottom to top: a module may import its own sub-package and those before it."""
TOP = ("engine", "__init__")
"""The dispatcher and the package itself sit above every layer."""
HOOKS: dict[tuple[str, str], str] = {}
"""(importing module, imported module) pairs allowed to point up, each with its reason."""
MODULES = sorted(path for path in ROOT.rglob("*.py"))


def layer_of(module: str) -> int:
    """The rank of ``module`` (dotted, relative to the package): its sub-package's place in
    :data:`LAYERS`, or above them all for the dispatcher and the package's ``__init__``."""
    head = module.split(".")[0]
    if head in TOP:
        return len(LAYERS)
    return LAYERS.index(head)


def relative(path: Path) -> str:
    """``…/combat_styles/rounds/turns.py`` → ``rounds.turns``; a package → its name."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def imported(source: str) -> list[tuple[int, str]]:
    """(line, module relative to the package) for each combat-styles module ``source``
    imports, including ``from PACKAGE.layer import module`` forms and imports inside
    functions."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
            if node.module == PACKAGE or node.module.count(".") == PACKAGE.count(".") + 1:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith(PACKAGE + "."):
                found.append((node.lineno, name[len(PACKAGE) + 1 :]))
    return found


def upward(module: str, source: str) -> list[str]:
    """Every import in ``source`` (the module ``module``) that points to a higher layer and is
    not a listed hook."""
    rank = layer_of(module)
    problems = []
    for line, target in imported(source):
        head = target.split(".")[0]
        if head not in LAYERS and head not in TOP:
            continue  # a name imported from a module, not a module
        if layer_of(target) > rank and (module, target) not in HOOKS:
            problems.append(f"line {line}: {module} imports {target}, a higher layer")
    return problems


def test_every_module_belongs_to_a_layer() -> None:
    loose = [relative(p) for p in MODULES if relative(p).split(".")[0] not in (*LAYERS, *TOP)]
    assert loose == []
    assert {p.parent.name for p in MODULES if p.parent != ROOT} == set(LAYERS)


@pytest.mark.parametrize("path", MODULES, ids=relative)
def test_a_module_imports_only_its_own_layer_and_those_below(path: Path) -> None:
    assert upward(relative(path), path.read_text(encoding="utf-8")) == []


def test_an_import_that_points_up_is_caught_with_its_line() -> None:
    source = (
        "from arbiter.bridge.engine.combat_styles.core.checks import Level\n"
        "from arbiter.bridge.engine.combat_styles.exchange import finishing\n"
        "\n"
        "def f():\n"
        "    from arbiter.bridge.engine.combat_styles.spirit.spirit import spirit_combat\n"
    )
    assert upward("rounds.turns", source) == [
        "line 2: rounds.turns imports exchange.finishing, a higher layer",
        "line 5: rounds.turns imports spirit.spirit, a higher layer",
    ]
    assert upward("moves.leaping", source) == [
        "line 5: moves.leaping imports spirit.spirit, a higher layer"
    ]


def test_the_package_map_names_every_module() -> None:
    text = (ROOT / "__init__.py").read_text(encoding="utf-8")
    named = {p.stem for p in MODULES if p.stem != "__init__"}
    missing = sorted(name for name in named if f"``{name}``" not in text)
    assert missing == []
    assert all(f"``{layer}/``" in text for layer in LAYERS)


def test_other_layers_enter_the_rounds_through_their_entry_point() -> None:
    # rounds/__init__ is the round machine's one entry point; only the dispatcher also calls
    # the round-close hooks (death_timers, fatigue_checks) by name.
    inside = {p.stem for p in (ROOT / "rounds").glob("*.py") if p.stem != "__init__"}
    reached = sorted(
        f"{relative(path)} imports {target}"
        for path in MODULES
        if relative(path).split(".")[0] not in ("rounds", "engine")
        for _, target in imported(path.read_text(encoding="utf-8"))
        if target.startswith("rounds.") and target.split(".")[1] in inside
    )
    assert reached == []
