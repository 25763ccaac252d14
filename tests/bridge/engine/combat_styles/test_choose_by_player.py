"""Who may answer a parked exchange's choice of effects, played as hostile and honest clients
over real websockets against ``arbiter serve``'s server with the bundled rules.

The choice names its chooser in ``by`` (declared in ``acting``), so the player holding the
winner may send it on his own connection, or through the GM's relay. Another player may not: a
``by`` he does not hold is ``forbidden`` before anything is read; a ``by`` he holds that is not
the winner is refused by the engine before any die (who won is on the public card, so the
refusal tells him nothing new); leaving ``by`` out makes it the GM's alone. On the code before
``by`` existed, the winner's own player could not choose at all (a table action)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection

from arbiter.bridge.rules import RuleSource
from tests.bridge.support import Running, receive, running, send, tiny_config

ROOT = Path(__file__).resolve().parents[4]


def example() -> dict[str, dict[str, Any]]:
    data = json.loads((ROOT / "docs" / "examples" / "combat-styles.json").read_text("utf-8"))
    return {entry["id"]: entry for entry in data["requests"]}


def parked(srv: Running, gm: ClientConnection) -> dict[str, Any]:
    """Vessa's dagger (70) hits the guard (30 against his failed parry, 80): she wins an
    effect; the exchange waits in encounter ``alley``. Returns its pending choice."""
    requests = example()
    body = {**requests["cs-3"]["body"], "combatants": requests["cs-1"]["body"]["combatants"]}
    request = {
        "id": "x-1",
        "ruleset": "combat-styles",
        "type": "exchange",
        "encounter": "alley",
        "body": body,
    }
    send(gm, {"v": 1, "type": "request", "request": request, "dice": [30, 80]})
    reply = receive(gm)
    assert reply["type"] == "outcome", reply
    [choice] = reply["outcome"]["result"]["pending"]
    assert (choice["by"], choice["type"]) == ("vessa", "choose_effects")
    return choice


def answer(choice: dict[str, Any], rid: str, **body: Any) -> dict[str, Any]:
    """The request a client builds from the choice: its body, the field filled, overrides."""
    full = {**choice["body"], choice["field"]: [], **body}
    full = {k: v for k, v in full.items() if v is not None}
    return {
        "id": rid,
        "ruleset": "combat-styles",
        "type": choice["type"],
        "encounter": "alley",
        "body": full,
    }


def config(tmp_path: Path) -> Any:
    return tiny_config(tmp_path, rules=RuleSource(), allow_scripted_dice=True)


def test_the_winners_own_player_chooses_and_nobody_else_can(tmp_path: Path) -> None:
    with running(config(tmp_path)) as srv:
        bram = srv.player("bram", "guard")
        devon = srv.player("devon", "vessa")
        gm, _ = srv.hello(events=[])
        choice = parked(srv, gm)
        loser, _ = srv.hello(token=bram, events=[])

        send(loser, {"v": 1, "type": "request", "request": answer(choice, "c-1")})
        reply = receive(loser)
        assert (reply["type"], reply["code"]) == ("error", "forbidden")
        assert reply["message"] == "this connection does not act for 'vessa'"

        send(loser, {"v": 1, "type": "request", "request": answer(choice, "c-2", by="guard")})
        reply = receive(loser)
        assert (reply["type"], reply["code"]) == ("error", "rules_forbid")
        assert reply["message"] == "guard does not choose the effects of 'x1': vessa does"
        assert srv.server.store.find("c-2") is None  # refused before any die: nothing logged

        send(loser, {"v": 1, "type": "request", "request": answer(choice, "c-3", by=None)})
        reply = receive(loser)
        assert (reply["code"], reply["message"]) == (
            "forbidden",
            "'choose_effects' is the GM's to send",
        )

        winner, _ = srv.hello(token=devon, events=[])
        send(winner, {"v": 1, "type": "request", "request": answer(choice, "c-4")})
        reply = receive(winner)
        assert reply["type"] == "outcome", reply
        assert reply["outcome"]["result"]["status"] == "complete"


def test_the_gm_relays_the_winners_choice_and_not_the_losers(tmp_path: Path) -> None:
    with running(config(tmp_path)) as srv:
        srv.player("bram", "guard")
        srv.player("devon", "vessa")
        gm, _ = srv.hello(events=[])
        choice = parked(srv, gm)

        relayed = {"v": 1, "type": "request", "player": "bram", "request": answer(choice, "r-1")}
        send(gm, relayed)
        reply = receive(gm)
        assert (reply["code"], reply["message"]) == (
            "forbidden",
            "this connection does not act for 'vessa'",
        )

        relayed = {"v": 1, "type": "request", "player": "devon", "request": answer(choice, "r-2")}
        send(gm, relayed)
        reply = receive(gm)
        assert reply["type"] == "outcome", reply
        assert reply["outcome"]["result"]["status"] == "complete"
