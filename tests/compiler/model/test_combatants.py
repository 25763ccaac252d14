"""Ready combatants (``combatants.toml``): loaded and checked like every rule file, and every
shipped stat block is one the server's own model accepts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arbiter.bridge.stat_blocks import problems as stat_block_problems
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT, load_all, load_ruleset


def test_every_bundled_ruleset_ships_named_fighters_and_typical_foes() -> None:
    rulesets = load_all()
    for rid in ("combat-styles", "hmk", "karmic"):
        kinds = {c.kind for c in rulesets[rid].model.combatants}
        assert kinds == {"named", "foe"}, rid
    hmk = {c.id: c for c in rulesets["hmk"].model.combatants}
    assert hmk["ana"].stat_block["skills"] == {"long-sword": 65}
    assert hmk["bo"].name == "Bo"


def test_every_shipped_stat_block_is_one_the_server_accepts_under_its_rules() -> None:
    rulesets = load_all()
    served = {rid: ruleset.model for rid, ruleset in rulesets.items()}
    for rid, ruleset in rulesets.items():
        for entry in ruleset.model.combatants:
            assert stat_block_problems(rid, entry.stat_block, served) == [], (rid, entry.id)


def _copy(tmp_path: Path, rid: str) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(RULES_ROOT / rid, root / rid)
    return root


def test_a_ready_combatant_naming_unknown_gear_is_refused_with_file_and_field(
    tmp_path: Path,
) -> None:
    root = _copy(tmp_path, "hmk")
    path = root / "hmk" / "combatants.toml"
    path.write_text(path.read_text().replace('weapon = "long-sword"', 'weapon = "lightsaber"', 1))
    with pytest.raises(RuleError) as info:
        load_ruleset("hmk", root=root)
    (problem,) = [str(p) for p in info.value.problems]
    assert problem.startswith(
        "hmk/combatants.toml: entry combatants 'ana': field 'stat_block.weapon'"
    )
    assert "unknown weapons id 'lightsaber'" in problem


def test_a_ready_combatant_whose_stat_block_has_another_id_is_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path, "karmic")
    path = root / "karmic" / "combatants.toml"
    path.write_text(
        path.read_text().replace(
            'id = "devon"\nname = "Devon"\nside', 'id = "dev"\nname = "Devon"\nside', 1
        )
    )
    with pytest.raises(RuleError) as info:
        load_ruleset("karmic", root=root)
    (problem,) = [str(p) for p in info.value.problems]
    assert "the stat block's id must be the entry's ('devon')" in problem
