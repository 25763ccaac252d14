"""A leaper astride his victim (text "Leaping Attacks": the victim "cannot recover his footing
until either his attacker leaves him, or he eventually wins a Special Effect permitting him to
Arise"): every way the pair ends clears both sides and says why; nothing else ends it.

cat (Athletics 60) leaps on b (Brawn 30) with 20 against 50: b is prone, held down by cat.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.engine.contract import EngineError
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import RULES_ROOT, load_ruleset
from tests.bridge.engine.combat_styles.helpers import Table, fighter
from tests.bridge.engine.combat_styles.house import with_combat_rule

PLATE = {"chest": "plated_mail"}


def leapt_on(table: Table, *others: dict[str, Any]) -> None:
    cat = fighter("cat", skills={"athletics": 60}, armor=PLATE)
    b = fighter("b", armor=PLATE)
    table("start_encounter", {"combatants": [cat, b, fighter("c"), *others]})
    assert table.state is not None
    table.state["phase"] = "free"
    table("leaping_attack", {"attacker": "cat", "defender": "b", "effects": []}, [20, 50])
    assert table.who("cat")["conditions"]["astride"]["on"] == "b"
    assert table.who("b")["conditions"]["prone"]["held_down_by"] == "cat"


def assert_ended(table: Table, out: dict[str, Any], why: str | None) -> None:
    """The pair is over on both records (and, when ``why``, the outcome says so)."""
    if why is not None:
        assert out["astride_ended"] == [{"leaper": "cat", "victim": "b", "why": why}]
    assert "astride" not in table.who("cat")["conditions"]
    assert "held_down_by" not in table.who("b")["conditions"].get("prone", {})


def assert_kept(table: Table, out: dict[str, Any]) -> None:
    assert "astride_ended" not in out
    assert table.who("cat")["conditions"]["astride"] == {"turns": None, "on": "b"}
    assert table.who("b")["conditions"]["prone"] == {"turns": None, "held_down_by": "cat"}


def test_attacking_someone_else_leaves_the_victim_who_may_then_stand_unopposed(
    table: Table,
) -> None:
    leapt_on(table)
    out = table("exchange", {"attacker": "cat", "defender": "c", "effects": []}, [80, 90])
    assert_ended(table, out, "cat attacks c")
    assert table.who("b")["conditions"]["prone"] == {"turns": None}
    out = table("act", {"combatant": "b", "action": "regain_footing"})
    assert out["footing"] == {
        "opponent": None,
        "stood": True,
        "note": "unengaged: stands without a roll",
    }
    assert table.rolled == []


def test_attacking_his_own_victim_keeps_the_leaper_astride(table: Table) -> None:
    leapt_on(table)
    out = table("exchange", {"attacker": "cat", "defender": "b", "effects": []}, [80, 90])
    assert_kept(table, out)


def test_being_attacked_by_someone_else_keeps_the_leaper_astride(table: Table) -> None:
    leapt_on(table)
    out = table("exchange", {"attacker": "c", "defender": "cat", "effects": []}, [80, 90])
    assert_kept(table, out)


def test_a_sweep_that_spares_the_victim_leaves_him(table: Table) -> None:
    leapt_on(table)
    body = {"attacker": "cat", "targets": [{"defender": "c", "effects": []}]}
    out = table("sweep_attack", body, [80, 90])
    assert_ended(table, out, "cat attacks c")


def test_a_sweep_that_takes_in_the_victim_keeps_the_leaper_astride(table: Table) -> None:
    leapt_on(table)
    targets = [{"defender": "b", "effects": []}, {"defender": "c", "effects": []}]
    out = table("sweep_attack", {"attacker": "cat", "targets": targets}, [80, 90, 90])
    assert_kept(table, out)


def test_leaping_on_someone_else_leaves_the_first_victim(table: Table) -> None:
    leapt_on(table)
    out = table("leaping_attack", {"attacker": "cat", "defender": "c", "effects": []}, [20, 50])
    assert out["astride_ended"] == [{"leaper": "cat", "victim": "b", "why": "cat attacks c"}]
    assert table.who("b")["conditions"]["prone"] == {"turns": None}
    assert table.who("cat")["conditions"]["astride"] == {"turns": None, "on": "c"}
    assert table.who("c")["conditions"]["prone"] == {"turns": None, "held_down_by": "cat"}


def test_outmanoeuvring_leaves_the_victim(table: Table) -> None:
    leapt_on(table)
    out = table("outmaneuver", {"combatant": "cat", "opponents": ["c"]}, [10, 90])
    assert table.rolled == [("1d100 evade cat", 10), ("1d100 evade c", 90)]
    assert_ended(table, out, "cat outmanoeuvres")


def test_mounting_leaves_the_victim(table: Table) -> None:
    leapt_on(table, fighter("horse", quadruped=True, movement=10))
    out = table("mount", {"rider": "cat", "mount": "horse"})
    assert_ended(table, out, "cat is mounted")


def test_moving_away_leaves_the_victim_but_bracing_does_not(table: Table) -> None:
    leapt_on(table)
    assert_kept(table, table("act", {"combatant": "cat", "action": "brace"}))
    out = table("act", {"combatant": "cat", "action": "move"})
    assert_ended(table, out, "cat takes the move action")


def test_the_actions_that_leave_the_victim_come_from_the_rule_data(
    model: RulesetBase, tmp_path: Path
) -> None:
    rules = with_combat_rule(model, tmp_path, "leaping_attack", leaving_actions=["brace"])
    table = Table(rules)
    leapt_on(table)
    assert_kept(table, table("act", {"combatant": "cat", "action": "move"}))
    out = table("act", {"combatant": "cat", "action": "brace"})
    assert_ended(table, out, "cat takes the brace action")


def test_a_leaper_tripped_by_another_foe_is_off_his_victim(table: Table) -> None:
    leapt_on(table)
    out = table(
        "exchange",
        {"attacker": "c", "defender": "cat", "effects": [{"id": "trip_opponent"}]},
        [30, 90, 1, 10, 50],
    )
    assert out["effects"][0]["outcome"] == "prone"  # cat's Evade 40 fails against 50
    assert_ended(table, out, "cat is prone")


def test_a_leaper_knocked_back_is_off_his_victim_even_on_his_feet(table: Table) -> None:
    leapt_on(table, fighter("d", weapons=["great_hammer"]))
    out = table(
        "exchange", {"attacker": "d", "defender": "cat", "effects": []}, [50, 90, 10, 10, 5]
    )
    assert out["knockback"]["metres"] == 1  # 13 damage against SIZ 12
    assert out["knockback"]["check"]["success"] is True  # he keeps his feet, a metre away
    assert_ended(table, out, "cat is no longer astride him")


def test_a_victim_knocked_back_is_out_from_under_the_leaper(table: Table) -> None:
    leapt_on(table, fighter("d", weapons=["great_hammer"]))
    out = table("exchange", {"attacker": "d", "defender": "b", "effects": []}, [50, 90, 10, 10, 5])
    assert out["knockback"]["metres"] == 1
    assert_ended(table, out, "b is no longer under him")


def test_a_victim_who_wins_arise_stands_and_the_leaper_is_off_him(table: Table) -> None:
    leapt_on(table)
    out = table("exchange", {"attacker": "cat", "defender": "b"}, [80, 30])
    assert "arise" in {e["id"] for e in out["eligible"]}
    out = table("choose_effects", {"token": out["token"], "effects": [{"id": "arise"}]})
    assert_ended(table, out, "b is back on his feet")
    assert "prone" not in table.who("b")["conditions"]


def test_a_victim_who_wins_withdraw_is_out_from_under_the_leaper_but_still_prone(
    table: Table,
) -> None:
    leapt_on(table)
    out = table(
        "exchange", {"attacker": "cat", "defender": "b", "effects": [{"id": "withdraw"}]}, [80, 30]
    )
    assert out["effects"][0]["outcome"] == "withdraws out of cat's reach, out from under cat"
    assert_ended(table, out, None)
    assert "astride_ended" not in out  # the effect ended the pair itself
    assert table.who("b")["conditions"]["prone"] == {"turns": None}


def test_a_leaper_who_wins_withdraw_leaves_his_victim(table: Table) -> None:
    leapt_on(table)
    out = table(
        "exchange", {"attacker": "b", "defender": "cat", "effects": [{"id": "withdraw"}]}, [80, 30]
    )
    assert out["effects"][0]["outcome"] == "withdraws out of b's reach, no longer astride b"
    assert_ended(table, out, None)


def test_a_stale_pair_in_a_stored_state_is_settled_by_the_next_request(table: Table) -> None:
    leapt_on(table)
    assert table.state is not None
    # A state stored before this rule: the leaper was knocked out and nothing cleared the pair.
    table.who("cat")["conditions"]["unconscious"] = {"turns": None}
    stored = table.state
    out = table("state", {})
    assert_ended(table, out, "cat is unconscious")
    assert stored["combatants"]["cat"]["conditions"]["astride"] == {"turns": None, "on": "b"}


def test_a_victim_held_by_a_leaper_who_is_not_astride_him_is_released(table: Table) -> None:
    leapt_on(table)
    del table.who("cat")["conditions"]["astride"]
    out = table("state", {})
    assert_ended(table, out, "cat is no longer astride him")


def test_an_unknown_leaving_action_names_file_entry_and_field(tmp_path: Path) -> None:
    root = tmp_path / "rules"
    bundled = RULES_ROOT / "combat-styles"
    (root / "combat-styles").mkdir(parents=True)
    for f in bundled.iterdir():
        text = f.read_text(encoding="utf-8")
        if f.name == "combat.toml":
            text = text.replace('leaving_actions = ["move",', 'leaving_actions = ["fly_away",')
        (root / "combat-styles" / f.name).write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as info:
        load_ruleset("combat-styles", root=root)
    (msg,) = [str(p) for p in info.value.problems]
    assert msg.startswith(
        "combat-styles/combat.toml: entry combat > leaping_attack > leaving_actions #1"
    )
    assert "unknown action 'fly_away'" in msg


def test_a_prone_or_mounted_fighter_cannot_leap(table: Table) -> None:
    leapt_on(table, fighter("horse", quadruped=True, movement=10))
    with pytest.raises(EngineError, match="b is prone: he must regain his footing to leap"):
        table("leaping_attack", {"attacker": "b", "defender": "c"})
    table("mount", {"rider": "c", "mount": "horse"})
    with pytest.raises(EngineError, match="c is mounted: he must dismount to leap"):
        table("leaping_attack", {"attacker": "c", "defender": "cat"})
