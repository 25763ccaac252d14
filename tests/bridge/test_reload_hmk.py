"""Hot rules with a real ruleset: a house-rule edit of an hmk fumble row reaches the next strike."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arbiter.bridge.rules import RuleSource
from arbiter.compiler.model.loader import RULES_ROOT
from tests.bridge.support import receive, running, send, tiny_config
from tests.security.support import Client, remove_hmk_weapon, served_rules_copy
from tests.security.test_stat_block_vault import ORC, ask, put

ANA = {
    "id": "ana",
    "name": "Ana",
    "party": "heroes",
    "attributes": {"STR": 55, "DEX": 60, "AGL": 50, "HEA": 44, "INT": 50, "AWA": 45},
    "ip": 30,
    "defensive_tactics": 30,
    "skills": {"long-sword": 65},
    "weapon": "long-sword",
}
BO = {
    "id": "bo",
    "name": "Bo",
    "party": "bandits",
    "attributes": {"STR": 50, "DEX": 55, "AGL": 45, "HEA": 40, "INT": 40, "AWA": 50},
    "ip": 28,
    "defensive_tactics": 20,
    "skills": {"dagger": 40},
    "weapon": "dagger",
}
FIRST_ROW = "Hit nearest friend or innocent for normal injury + 10."


def fumble(ws, rid: str) -> dict:
    """An hmk strike that fumbles (97) and rolls 3 on the melee fumble table."""
    body = {"attacker": ANA, "defender": BO}
    message = {"v": 1, "type": "request", "dice": [97, 3]}
    message["request"] = {"id": rid, "ruleset": "hmk", "type": "attack", "body": body}
    send(ws, message)
    reply = receive(ws)
    assert reply["type"] == "outcome", reply
    return reply["outcome"]["result"]["fumble"]


def test_an_edited_hmk_fumble_row_reaches_the_next_strike(tmp_path: Path) -> None:
    bundled = (RULES_ROOT / "hmk" / "melee_fumbles.toml").read_text(encoding="utf-8")
    assert FIRST_ROW in bundled
    overlay = tmp_path / "house"
    (overlay / "hmk").mkdir(parents=True)
    edited = overlay / "hmk" / "melee_fumbles.toml"
    config = tiny_config(
        tmp_path,
        rules=RuleSource(overlay=overlay),
        reload_interval=0.05,
        allow_scripted_dice=True,
    )
    with running(config) as srv:
        gm, _ = srv.hello(role="gm", events=["rules"])
        assert fumble(gm, "before")["text"] == FIRST_ROW

        edited.write_text(bundled.replace(FIRST_ROW, "House rule: the blow lands on a friend."))
        assert receive(gm, timeout=30)["event"] == "rules_updated"
        assert fumble(gm, "after")["text"] == "House rule: the blow lands on a friend."

        edited.write_text(bundled.replace("range = [1, 5]", "range = [1, 4]"))
        later = time.time() + 2
        os.utime(edited, (later, later))
        error = receive(gm, timeout=30)
        assert error["event"] == "rules_error"
        assert any("house/hmk/melee_fumbles.toml" in p for p in error["problems"]), error
        assert fumble(gm, "kept")["text"] == "House rule: the blow lands on a friend."
        gm.close()


def test_a_reload_that_removes_a_stored_block_s_weapon_tells_the_gm_which_fields_and_no_player(
    tmp_path: Path,
) -> None:
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=["rules", "outcome"])
        assert put(gm, ORC)["ok"] is True
        assert put(gm, ANA, "p-2")["ok"] is True

        remove_hmk_weapon(root, "war-hammer")
        updated = gm._next(30)
        notice = gm._next(5)
        listed = ask(gm, {"v": 1, "type": "list_stat_blocks", "id": "l-1"})
        assert put(gm, {**ORC, "weapon": "dagger", "skills": {"dagger": 59}}, "p-3")["ok"]
        relisted = ask(gm, {"v": 1, "type": "list_stat_blocks", "id": "l-2"})
        pat.drain()
        known = ", ".join(w.id for w in srv.server.rules.models["hmk"].weapons)  # type: ignore[attr-defined]
    unknown = f"unknown weapon 'war-hammer' (known: {known})"
    problems = [
        {"field": "skills.war-hammer", "message": unknown},
        {"field": "weapon", "message": unknown},
    ]
    assert updated["event"] == "rules_updated"
    assert notice == {
        "v": 1,
        "type": "event",
        "event": "stat_blocks_invalid",
        "blocks": [
            {
                "ruleset": "hmk",
                "participant": "orc",
                "name": "Orc",
                "actor": "Actor.orc0000000000",
                "problems": problems,
            }
        ],
    }
    assert [(e["participant"], e["problems"]) for e in listed["entries"]] == [
        ("ana", None),
        ("orc", problems),
    ]
    assert [e["problems"] for e in relisted["entries"]] == [None, None]
    # The player heard the rules change, and nothing of the GM's blocks.
    assert [m.get("event") for m in pat.received[1:]] == ["rules_updated"]


def test_a_gm_connecting_after_the_reload_is_told_which_stored_blocks_it_invalidated(
    tmp_path: Path,
) -> None:
    root = served_rules_copy(tmp_path)
    config = tiny_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        assert put(gm, ORC)["ok"] is True
        remove_hmk_weapon(root, "war-hammer")
        assert gm._next(30)["event"] == "rules_updated"
        told = gm._next(5)
        late = Client(srv, srv.server.secret, events=["rules"])
        notice = late._next(5)
        late.drain()
        quiet = Client(srv, srv.server.secret, events=["outcome"])  # not subscribed to rules
        quiet.drain()
    assert late.welcome["type"] == "welcome"
    assert told["event"] == "stat_blocks_invalid"
    # The same event the GM connected at the reload heard, right after the welcome.
    assert notice == told
    assert [b["participant"] for b in notice["blocks"]] == ["orc"]
    assert late.received[2:] == []
    assert quiet.received == [quiet.welcome]


def test_a_gm_connecting_when_every_stored_block_is_valid_hears_only_the_welcome(
    tmp_path: Path,
) -> None:
    config = tiny_config(tmp_path, rules=RuleSource())
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        assert put(gm, ORC)["ok"] is True
        late = Client(srv, srv.server.secret, events=["rules"])
        late.drain()
    assert late.received == [late.welcome]
