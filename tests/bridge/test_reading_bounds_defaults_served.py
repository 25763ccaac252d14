"""Over real websockets, a world whose house rules tighten a stat-block bound past a field's
default: a block leaving that field out is refused, the error naming the field and the bound,
and nothing is logged; written within the bound, the same block is decided. A rule change that
tightens a bound under a stored block leaving the field out tells the GM which block and field,
and a request naming that block is refused the same way (docs/requests.md, "Stat-block bounds").
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from arbiter.bridge.rules import RuleSource
from arbiter.bridge.stat_block_shield import SHIELDED
from tests.bridge.support import running, tiny_config
from tests.security.support import Client, rows, served_rules_copy
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE, ask, attack, put

ROOT = Path(__file__).resolve().parents[2]

HOUSE = {
    "hmk": ("actions = { min = 2, max = 10 }", "combatants.0.actions", 2),
    "karmic": ("size = { min = 2, max = 1000 }", "combatants.0.size", 2),
    # The example's guard writes POW, not CHA: CHA is named as the client writes it.
    "combat-styles": ("characteristics = { min = 1, max = 200 }", "combatants.0.characteristics.cha", 1),
}  # fmt: skip
"""Per ruleset: the house bound (the bundled min is the field's default), where the refusal
names the first combatant's left-out number, and the house min."""
WRITTEN = {"hmk": ["actions"], "karmic": ["size"], "combat-styles": ["characteristics.cha"]}
"""What a block must write to be within the house bound (every combatant of the example)."""
LEFT_OUT = "left out, its default 1 is outside the served bound: "
"""How a refusal of hmk ``actions``' default 1 begins (after the field)."""


def house(folder: Path) -> Path:
    """A house-rule folder tightening one bound of each ruleset past its field's default."""
    for ruleset, (line, _, _) in HOUSE.items():
        (folder / ruleset).mkdir(parents=True)
        text = f"[stat_block_limits]\n{line}\n"
        (folder / ruleset / "stat_block_limits.toml").write_text(text, encoding="utf-8")
    return folder


def start(ruleset: str, rid: str, value: int | None = None) -> dict[str, Any]:
    """The example's first request carrying stat blocks (its own dice left out, its encounter
    kept), as ``rid``; with ``value`` written at each :data:`WRITTEN` path of every block."""
    entries = json.loads((ROOT / f"docs/examples/{ruleset}.json").read_text())["requests"]
    found = next(e for e in entries if "combatants" in e["body"])
    request = {k: found[k] for k in ("ruleset", "type", "body", "encounter")} | {"id": rid}
    if value is not None:
        for combatant in request["body"]["combatants"]:
            for path in WRITTEN[ruleset]:
                *parents, last = path.split(".")
                node = combatant
                for key in parents:
                    node = node[key]
                node[last] = value
    return {"v": 1, "type": "request", "request": request}


def test_a_house_bound_past_a_default_refuses_a_block_leaving_it_out_naming_field_and_bound(
    tmp_path: Path,
) -> None:
    config = tiny_config(tmp_path, rules=RuleSource(overlay=house(tmp_path / "house")))
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        refused = {rid: gm.ask(start(rid, f"{rid}-1")) for rid in HOUSE}
        logged_after_refusals = rows(srv)
        decided = {rid: gm.ask(start(rid, f"{rid}-2", HOUSE[rid][2])) for rid in HOUSE}
        logged = rows(srv)
        gm.close()
    for ruleset, (_, place, low) in HOUSE.items():
        error = refused[ruleset]
        assert error["type"] == "error" and error["code"] == "invalid_request", error
        words = f"body.{place}: left out, its default {low - 1} is outside the served bound: "
        assert words + f"Input should be greater than or equal to {low}" in error["message"]
        assert decided[ruleset]["type"] == "outcome", decided[ruleset]
    assert logged_after_refusals == 0  # refused before any die: nothing decided with a default
    assert logged == len(HOUSE)


def test_a_rule_change_past_a_stored_block_s_default_names_it_to_the_gm_and_refuses_the_block(
    tmp_path: Path,
) -> None:
    root = served_rules_copy(tmp_path)
    limits = root / "hmk" / "stat_block_limits.toml"
    bundled = limits.read_text(encoding="utf-8")
    assert "actions = { min = 1, max = 10 }" in bundled and "actions" not in ORC
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        assert put(gm, ORC)["ok"] is True  # its actions left out: 1, within the bundled bound
        limits.write_text(bundled.replace("{ min = 1, max = 10 }", "{ min = 2, max = 10 }"))
        later = time.time() + 2
        os.utime(limits, (later, later))
        updated = gm._next(30)
        notice = gm._next(5)
        refused = gm.ask(attack("a-1", REFERENCE))
        logged = rows(srv)
        gm.close()
    assert updated["event"] == "rules_updated"
    assert notice["event"] == "stat_blocks_invalid"
    [block] = notice["blocks"]
    assert block["participant"] == "orc"
    assert block["problems"] == [
        {"field": "actions", "message": f"{LEFT_OUT}Input should be greater than or equal to 2"}
    ]
    assert refused["type"] == "error" and refused["code"] == "invalid_request", refused
    assert f"actions: {LEFT_OUT}Input should be greater than or equal to 2" in refused["message"]
    assert logged == 0


def test_a_player_hears_only_the_shielded_words_when_the_orc_s_left_out_actions_are_refused(
    tmp_path: Path,
) -> None:
    # The refusal a house bound gives the GM's stored block's default is shielded from a player,
    # as every refusal of a request using that block is; the GM hears it by name.
    root = served_rules_copy(tmp_path)
    limits = root / "hmk" / "stat_block_limits.toml"
    bundled = limits.read_text(encoding="utf-8")
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "ana")
        assert token is not None
        assert put(gm, ORC)["ok"] is True
        limits.write_text(bundled.replace("{ min = 1, max = 10 }", "{ min = 2, max = 10 }"))
        later = time.time() + 2
        os.utime(limits, (later, later))
        assert gm._next(30)["event"] == "rules_updated"
        pat = Client(srv, token, events=["outcome"])
        body = {"attacker": {**ANA, "actions": 2}, "defender": REFERENCE}
        request = {"id": "a-1", "ruleset": "hmk", "type": "attack", "body": body}
        answer = ask(pat, {"v": 1, "type": "request", "request": request})
        as_gm = ask(gm, {"v": 1, "type": "request", "request": {**request, "id": "a-2"}})
        logged = rows(srv)
        pat.close()
        gm.close()
    assert answer["type"] == "error" and answer["message"] == SHIELDED, answer
    words = f"body.defender.StatBlock.actions: {LEFT_OUT}Input should be greater than or equal to 2"
    assert as_gm["type"] == "error" and words in as_gm["message"], as_gm
    assert logged == 0
