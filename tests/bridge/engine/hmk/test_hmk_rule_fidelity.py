"""The hmk engine rolls each table on the die the table names: a GM's house-rule overlay with
1d20 critical and fumble tables works (no d100 assumed anywhere)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from arbiter.compiler.model.loader import Ruleset, load_ruleset
from tests.bridge.engine.hmk.conftest import Table, stats

CRITICAL_D20 = """
[critical_hits]
id = "critical-hits"
name = "House Criticals"
die = "1d20"
description = "A d20 critical table."

[[critical_hits.rows]]
range = [1, 10]
name = "Graze"
extra_injury_percent = 0
effects_text = "no extra injury"
text = "Graze"

[[critical_hits.rows]]
range = [11, 20]
name = "Deep Cut"
extra_injury_percent = 100
effects_text = "+100% Injury"
text = "Deep Cut: +100% Injury"
"""

FUMBLE_D20 = """
[melee_fumbles]
id = "melee-fumbles"
name = "House Melee Fumbles"
die = "1d20"
description = "A d20 fumble table."

[[melee_fumbles.rows]]
range = [1, 20]
text = "Break Weapon: 5 in 20."
effects = [{ kind = "break_weapon", chance = 5, die = 20 }]
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Ruleset:
    root: Path = tmp_path_factory.mktemp("house")
    (root / "hmk").mkdir()
    (root / "hmk" / "critical_hits.toml").write_text(CRITICAL_D20, encoding="utf-8")
    (root / "hmk" / "melee_fumbles.toml").write_text(FUMBLE_D20, encoding="utf-8")
    return load_ruleset("hmk", overlay=root)


def _fight(ruleset: Ruleset) -> Table:
    table = Table(ruleset)
    table.start(stats("ana"), stats("bo", party="villains"), stats("cy", armor=None))
    return table


def test_a_critical_is_rolled_on_the_d20_table_of_the_house_rules(house: Ruleset) -> None:
    table = _fight(house)
    outcome = table.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 20])
    injury = outcome["result"]["injury"]
    assert injury["critical"]["name"] == "Deep Cut"
    assert injury["critical"]["roll"] == 20
    assert injury["extra"] == 10  # 100% of the long sword's maximum 10
    assert [(d["expr"], d["result"]) for d in outcome["dice"]][-1] == ("1d20", 20)


def test_a_fumble_is_rolled_on_the_d20_table_and_its_break_chance_on_its_die(
    house: Ruleset,
) -> None:
    table = _fight(house)
    body = {"attacker": "ana", "defender": "bo", "bystander": "cy"}
    outcome = table.run("attack", body, [97, 20, 5])
    result = outcome["result"]
    assert (result["fumble"]["table"], result["fumble"]["roll"]) == ("melee-fumbles", 20)
    (event,) = [e for e in result["events"] if e["kind"] == "break_weapon"]
    assert (event["chance"], event["roll"], event["broken"]) == (5, 5, True)
    assert [d["expr"] for d in outcome["dice"]] == ["1d100", "1d20", "1d20"]


def test_odds_weigh_critical_rows_by_the_table_s_own_die(house: Ruleset) -> None:
    table = _fight(house)
    result: Any = table.run("odds", {"attacker": "ana", "defender": "bo"})["result"]
    on_hit = Fraction(result["injury_on_hit"]["exact"])
    # half the d20 rows add nothing, half add the sword's maximum 10
    assert Fraction(result["injury_on_critical"]["exact"]) == on_hit + 5


def test_the_bundled_tables_are_still_rolled_on_d100() -> None:
    table = _fight(load_ruleset("hmk"))
    outcome = table.run("attack", {"attacker": "ana", "defender": "bo"}, [1, 1, 100])
    assert outcome["result"]["injury"]["critical"]["roll"] == 100
    assert [d["expr"] for d in outcome["dice"]] == ["1d100", "1d10", "1d100"]
