"""The ``check`` message over a real websocket: the server's validation messages for a stat
block, for a GM and a player alike, deciding nothing and logging nothing."""

from __future__ import annotations

from pathlib import Path

from tests.bridge.support import bundled_config, receive, running, send

BAD_HMK = {
    "id": "ana",
    "attributes": {"STR": 55, "DEX": 60, "AGL": 50, "HEA": 44, "INT": 50, "AWA": -1},
    "ip": 30,
    "weapon": 7,
}


def test_a_gm_and_a_player_get_the_same_field_problems_and_nothing_is_logged(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as run:
        token = run.player("pat", "devon")
        gm, _ = run.hello()
        player, welcome = run.hello(role="player", token=token)
        assert welcome["you"]["player"] == "pat"
        answers = []
        for ws in (gm, player):
            send(
                ws, {"v": 1, "type": "check", "id": "c-1", "ruleset": "hmk", "stat_block": BAD_HMK}
            )
            answers.append(receive(ws))
        assert (
            answers[0]
            == answers[1]
            == {
                "v": 1,
                "type": "checked",
                "id": "c-1",
                "ruleset": "hmk",
                "ok": False,
                "problems": [
                    {
                        "field": "attributes.AWA",
                        "message": "Input should be greater than or equal to 0",
                    },
                    {"field": "weapon", "message": "Input should be a valid string"},
                ],
            }
        )
        good = {**BAD_HMK, "attributes": {**BAD_HMK["attributes"], "AWA": 45}, "weapon": "spear"}
        send(player, {"v": 1, "type": "check", "id": "c-2", "ruleset": "hmk", "stat_block": good})
        assert receive(player) == {"v": 1, "type": "checked", "id": "c-2", "ruleset": "hmk",
                                   "ok": True, "problems": []}  # fmt: skip
        assert run.call(_count(run)) == 0
        gm.close()
        player.close()


async def _count(run: object) -> int:
    return run.server.store.count()  # type: ignore[attr-defined]


def test_an_unknown_ruleset_is_a_problem_on_the_ruleset_field_and_the_connection_stays(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as run:
        ws, _ = run.hello()
        send(ws, {"v": 1, "type": "check", "id": "c-9", "ruleset": "dnd5e", "stat_block": {}})
        answer = receive(ws)
        assert answer["ok"] is False
        assert answer["problems"] == [{"field": "ruleset", "message":
            "no stat block for ruleset 'dnd5e' here (known: combat-styles, hmk, karmic)"}]  # fmt: skip
        send(ws, {"v": 1, "type": "ping", "id": "p"})
        assert receive(ws) == {"v": 1, "type": "pong", "id": "p"}
        ws.close()


def test_a_check_before_hello_is_refused_like_any_other_message(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as run:
        ws = run.connect()
        send(ws, {"v": 1, "type": "check", "ruleset": "hmk", "stat_block": {}})
        answer = receive(ws)
        assert answer["type"] == "error"
        ws.close()
