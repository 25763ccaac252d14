"""A player's connection acts for its own participants only, and its refusals tell it nothing.

Hostile clients: Devon's player, holding a token for ``devon``, tries to act for the soldier
(pass or declare in his place), and probes ``declare`` for the soldier with every card id of the
deck to learn his hand from the error messages, as the attack of issue #12 did.
"""

from __future__ import annotations

from pathlib import Path

from tests.bridge.support import Running
from tests.security.support import (
    DECK,
    DEVON,
    SOLDIER,
    Client,
    bundled_server,
    encounter_state,
    karmic,
    rows,
)


def deal(srv: Running) -> tuple[Client, Client, Client]:
    """A GM who starts the duel and deals, and the two players' own connections."""
    gm = Client(srv, srv.server.secret, events=[])
    devon_token = srv.player("devon-player", "devon")
    soldier_token = srv.player("soldier-player", "soldier")
    assert devon_token is not None and soldier_token is not None
    devon = Client(srv, devon_token, events=["outcome"])
    soldier = Client(srv, soldier_token, events=[])
    assert gm.ask(karmic("k-01", "start_duel", {"combatants": [DEVON, SOLDIER]}))["type"] == (
        "outcome"
    )
    assert gm.ask(karmic("k-02", "draw_initiative", {"between": ["devon", "soldier"]}))
    assert gm.ask(karmic("k-03", "draw_hands", {}))["type"] == "outcome"
    return gm, devon, soldier


def test_a_player_who_passes_or_declares_for_his_opponent_is_refused_and_nothing_is_logged(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm, devon, soldier = deal(srv)
        before, logged = encounter_state(srv), rows(srv)
        card = before["combatants"]["soldier"]["hand"][0]
        passing = devon.ask(karmic("x-1", "declare", {"combatant": "soldier", "maneuvers": []}))
        attack = {"maneuver": "attack", "card": card, "target": "devon"}
        declaring = devon.ask(
            karmic("x-2", "declare", {"combatant": "soldier", "maneuvers": [attack]})
        )
        # A table action is the GM's: a player cannot reveal or resolve a register either.
        revealing = devon.ask(karmic("x-3", "reveal", {}))
        after, still = encounter_state(srv), rows(srv)
        # The soldier's own player still decides his move (after Devon, if Devon holds the
        # initiative and so declares first).
        if before["pairs"]["devon|soldier"]["initiative"] == "devon":
            devon.ask(karmic("d-1", "declare", {"combatant": "devon", "maneuvers": []}))
        own = soldier.ask(karmic("s-1", "declare", {"combatant": "soldier", "maneuvers": []}))
        for client in (gm, devon, soldier):
            client.close()
    for refused in (passing, declaring):
        assert refused["type"] == "error" and refused["code"] == "forbidden"
        assert refused["message"] == "this connection does not act for 'soldier'"
    assert (
        revealing["code"] == "forbidden" and revealing["message"] == "'reveal' is the GM's to send"
    )
    assert after == before and still == logged
    assert own["type"] == "outcome" and own["outcome"]["result"]["passed"] is True


def test_probing_declare_for_the_opponent_with_every_card_id_gets_one_message_and_logs_nothing(
    tmp_path: Path,
) -> None:
    with bundled_server(tmp_path) as srv:
        gm, devon, soldier = deal(srv)
        hand = set(encounter_state(srv)["combatants"]["soldier"]["hand"])
        logged = rows(srv)
        answers: dict[str, tuple[str, str]] = {}
        for n, card in enumerate(DECK):
            for kind, body in (
                (
                    "declare",
                    {
                        "combatant": "soldier",
                        "maneuvers": [{"maneuver": "attack", "card": card, "target": "devon"}],
                    },
                ),
                ("hit_draw", {"combatant": "soldier", "card": card}),
            ):
                reply = devon.ask(karmic(f"probe-{kind}-{n}", kind, body))
                answers[f"{kind} {card}"] = (reply["code"], reply["message"])
        # Asking for the soldier's odds is asking to see with his eyes.
        odds = devon.ask(
            karmic(
                "probe-odds",
                "odds",
                {"viewer": "soldier", "attacker": "devon", "target": "soldier"},
            )
        )
        still = rows(srv)
        for client in (gm, devon, soldier):
            client.close()
    assert hand and hand <= set(DECK)
    # One answer whatever the card: in his hand, in the pile or in Devon's own hand.
    assert set(answers.values()) == {("forbidden", "this connection does not act for 'soldier'")}
    assert (odds["code"], odds["message"]) == answers[f"declare {DECK[0]}"]
    assert still == logged


def test_a_gm_relaying_for_a_player_acts_with_that_player_s_rights_only(tmp_path: Path) -> None:
    with bundled_server(tmp_path) as srv:
        gm, devon, soldier = deal(srv)
        relay = Client(srv, srv.server.secret, events=[])
        bound = relay.ask(
            {"v": 1, "type": "bind", "id": "b-1", "player": "devon-user", "participants": ["devon"]}
        )
        for_soldier = relay.ask(
            karmic("r-1", "declare", {"combatant": "soldier", "maneuvers": []})
            | {"player": "devon-user"}
        )
        for_devon = relay.ask(karmic("r-2", "view", {"viewer": "devon"}) | {"player": "devon-user"})
        nobody = relay.ask(
            karmic("r-3", "declare", {"combatant": "devon", "maneuvers": []})
            | {"player": "mallory"}
        )
        # A player cannot relay, nor make himself a player record.
        relaying_player = devon.ask(
            karmic("r-4", "declare", {"combatant": "devon", "maneuvers": []})
            | {"player": "soldier-player"}
        )
        binding_player = devon.ask(
            {"v": 1, "type": "bind", "id": "b-2", "player": "me", "participants": ["soldier"]}
        )
        for client in (gm, devon, soldier, relay):
            client.close()
    assert bound == {"v": 1, "type": "pong", "id": "b-1"}
    assert for_soldier["code"] == "forbidden"
    assert for_soldier["message"] == "this connection does not act for 'soldier'"
    assert for_devon["type"] == "outcome"
    # The relayed reply is what Devon's own connection would get: his hand, nobody else's.
    assert set(for_devon["outcome"]["private"]) == {"devon"}
    assert nobody["code"] == "unknown_player" and "mallory" in nobody["message"]
    assert relaying_player["code"] == "forbidden"
    assert binding_player["code"] == "forbidden"


GUARD = {
    "id": "guard",
    "name": "Gate guard",
    "characteristics": {"str": 12, "con": 12, "siz": 13, "dex": 10, "int": 11, "pow": 9},
    "skills": {"combat_style": 55, "evade": 40, "endurance": 35, "willpower": 30},
    "weapons": ["shortspear", "heater"],
}
VESSA = {
    "id": "vessa",
    "name": "Vessa",
    "characteristics": {"str": 11, "con": 12, "siz": 11, "dex": 16, "int": 14, "pow": 12},
    "skills": {"combat_style": 70, "evade": 60, "endurance": 40, "willpower": 45},
    "weapons": ["dagger"],
}


def test_a_combat_styles_player_attacks_as_his_own_fighter_only_even_in_a_free_exchange(
    tmp_path: Path,
) -> None:
    def exchange(rid: str, attacker: str, defender: str, **more: object) -> dict[str, object]:
        body = {"attacker": attacker, "defender": defender, "effects": [], **more}
        request = {"id": rid, "ruleset": "combat-styles", "type": "exchange", "body": body}
        return {"v": 1, "type": "request", "request": request}

    with bundled_server(tmp_path) as srv:
        token = srv.player("vessa-player", "vessa")
        assert token is not None
        vessa = Client(srv, token, events=[])
        # The guard is the GM's: a player's request is decided with the block the GM stored.
        Client(srv, srv.server.secret, events=[]).store("combat-styles", GUARD)
        blocks = {"combatants": [GUARD, VESSA]}
        # The guard's blow, sent by Vessa's player: refused before a die is rolled.
        as_guard = vessa.ask(exchange("x-1", "guard", "vessa", **blocks))
        # Her own blow, stat blocks inline (no encounter): the attacker's id is who acts.
        own = vessa.ask(exchange("x-2", "vessa", "guard", **blocks))
        # Spending the guard's luck points is acting for him.
        luck = vessa.ask(exchange("x-3", "vessa", "guard", mitigate_damage=["guard"], **blocks))
        vessa.close()
    assert as_guard["code"] == "forbidden"
    assert as_guard["message"] == "this connection does not act for 'guard'"
    assert own["type"] == "outcome", own
    assert luck["code"] == "forbidden"
