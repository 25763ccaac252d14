"""Small rulesets for the Foundry back end's tests, written as real TOML files.

Two rulesets (``tiny`` and ``wee``) share one small model with the features the back end must
handle generically: plain collections, an assumed entry, rollable tables on different dice, and
a table subclass whose rows carry extra fields. ``install_models`` registers the model under
the loader's naming convention (``arbiter.compiler.model.<id>``) for the duration of a test.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from arbiter.compiler.model.common import DieTable, Entry, Problem, RulesetBase, TableRow


class Size(Entry):
    rank: int


class Weapon(Entry):
    name: str
    damage: str
    size: str


class CriticalRow(TableRow):
    injury_percent: int
    effect: str = ""


class CriticalTable(DieTable):
    rows: list[CriticalRow]


class TinyRules(RulesetBase):
    sizes: list[Size]
    weapons: list[Weapon]
    tables: list[DieTable]
    criticals: list[CriticalTable]

    def cross_check(self) -> Iterator[Problem]:
        yield from super().cross_check()
        known = {s.id for s in self.sizes}
        for i, w in enumerate(self.weapons):
            if w.size not in known:
                yield Problem(path=("weapons", i, "size"), message=f"unknown size {w.size!r}")


SIZES = '[[sizes]]\nid = "s"\nrank = 1\n\n[[sizes]]\nid = "m"\nrank = 2\n'
WEAPONS = """
[[weapons]]
id = "dagger"
name = "Dagger"
damage = "1d4+1"
size = "s"

[[weapons]]
id = "club"
name = "Club"
damage = "1d6"
size = "m"
assumed = true
note = "The text gives no club; we took the dagger's neighbour."
"""
TABLES = """
[[tables]]
id = "fumble"
name = "Fumble"
die = "1d10"
description = "Roll when a natural 00 comes up."
rows = [
  { range = [1, 5], text = "Drop weapon" },
  { range = [6, 9], text = "Trip" },
  { range = [10, 10], text = "Hit yourself" },
]

[[tables]]
id = "location"
name = "Hit location"
die = "1d20"
assumed = true
note = "Locations follow the common humanoid split."
rows = [
  { range = [1, 3], text = "Right leg" },
  { range = [4, 6], text = "Left leg" },
  { range = [7, 9], text = "Abdomen" },
  { range = [10, 12], text = "Chest" },
  { range = [13, 15], text = "Right arm" },
  { range = [16, 18], text = "Left arm" },
  { range = [19, 20], text = "Head" },
]
"""
CRITICALS = """
[[criticals]]
id = "critical"
name = "Critical success"
die = "1d100"
rows = [
  { range = [1, 50], text = "Solid blow", injury_percent = 25 },
  { range = [51, 99], text = "Telling blow", injury_percent = 50, effect = "Stunned one round" },
  { range = [100, 100], text = "Deadly blow", injury_percent = 200, effect = "Dies" },
]
"""
FILES = {"sizes": SIZES, "weapons": WEAPONS, "tables": TABLES, "criticals": CRITICALS}
RULESETS = ("tiny", "wee")


def meta(ruleset_id: str) -> str:
    return (
        f'[ruleset]\nid = "{ruleset_id}"\ntitle = "{ruleset_id.title()} Rules"\n'
        f'version = "1.2.0"\nsource = "tests"\ndescription = "A small ruleset for tests."\n'
    )


def write_rules(root: Path, **files: str | None) -> Path:
    """Write both rulesets under ``root``; ``files`` replaces (or, with None, omits) a file."""
    for rid in RULESETS:
        folder = root / rid
        folder.mkdir(parents=True, exist_ok=True)
        contents = {"ruleset": meta(rid), **FILES}
        if rid == "tiny":
            contents.update(files)
        for name, text in contents.items():
            path = folder / f"{name}.toml"
            if text is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(text, encoding="utf-8")
    return root


def make_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A rules folder holding ``tiny`` and ``wee``, their model registered for the loader.

    Test modules wrap this in their own ``rules_root`` fixture.
    """
    for rid in RULESETS:
        module = types.ModuleType(f"arbiter.compiler.model.{rid}")
        module.RULESET_MODEL = TinyRules  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return write_rules(tmp_path / "rules")
