"""Whose a logged request is never depends on a name a client chooses.

A player's resend of his own request id is compared with the logged request (references and
all); a resend of an id logged for somebody else is refused in fixed words
(:data:`~arbiter.bridge.stat_block_shield.ANOTHERS`), since the logged request holds what he may
not read (the orc's block the GM's client wrote in) and a compared resend would tell him whether
his guess of it is right. The log's ``user`` column is text for people: the GM's client names
its user as it likes, and a relayed request is logged ``NAME (relayed by GM-USER)``, which a
player's name may spell too. So whose a row is comes from the row's ``player`` (the player
record the request was decided for, his own connection or the GM's relay; none for the GM's own
requests), never from that text.

Hostile clients, over real websockets against a real server of the bundled rules: a player
whose name is the GM's user name, and players named like another's relayed label, resend the
ids they were told, with the orc's block guessed right and wrong. Each gets the fixed refusal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.security.support import Client, bundled_server, strings
from tests.security.test_resend_oracle import WRONG, anothers, resend
from tests.security.test_stat_block_vault import ORC, REFERENCE, SECRETS, attack, put


def relayed(player: str, message: dict[str, Any]) -> dict[str, Any]:
    """``message`` as the GM's client relays it for ``player``."""
    return {**message, "player": player}


def guesses(client: Client, rid: str) -> list[dict[str, Any]]:
    """The answers to ``rid`` resent with the orc's block right, wrong and by reference."""
    return [json.loads(resend(client, attack(rid, block))) for block in (ORC, WRONG, REFERENCE)]


def test_a_player_named_as_the_gm_s_user_cannot_compare_the_gm_s_request(tmp_path: Path) -> None:
    # The GM's client says hello as user "pat"; a player is named "pat" too. The GM's
    # attack, the orc's block written in, is logged with user "pat".
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[], user="pat")
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert gm.ask(attack("gm-1", ORC))["type"] == "outcome"
        answers = guesses(pat, "gm-1")
    assert answers == [anothers("gm-1")] * 3
    assert not SECRETS & strings(answers)


def test_a_player_named_like_a_relayed_label_cannot_compare_the_relayed_request(
    tmp_path: Path,
) -> None:
    # The GM (user "Gm") relays bo's attack on the orc by reference: the log holds the orc's
    # block and the user text "bo (relayed by Gm)", which is another player's very name.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[], user="Gm")
        assert srv.player("bo", "ana") is not None
        token = srv.player("bo (relayed by Gm)", "ana")
        assert token is not None
        mimic = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert gm.ask(relayed("bo", attack("r-1", REFERENCE)))["type"] == "outcome"
        answers = guesses(mimic, "r-1")
    assert answers == [anothers("r-1")] * 3
    assert not SECRETS & strings(answers)


def test_a_player_whose_name_starts_another_s_relayed_label_cannot_compare_his_request(
    tmp_path: Path,
) -> None:
    # The other way round: player "bo (relayed by Gm)" attacks from his own connection, the
    # orc written in (the GM's block is his to name, never to read: it becomes a reference);
    # player "bo" resends that id.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[], user="Gm")
        assert put(gm, ORC)["ok"] is True
        mimic_token = srv.player("bo (relayed by Gm)", "ana")
        bo_token = srv.player("bo", "ana")
        assert mimic_token is not None and bo_token is not None
        mimic = Client(srv, mimic_token, events=[])
        bo = Client(srv, bo_token, events=[])
        assert mimic.ask(attack("m-1", REFERENCE))["type"] == "outcome"
        answers = guesses(bo, "m-1")
    assert answers == [anothers("m-1")] * 3


def test_a_player_still_replays_his_own_request_and_the_one_the_gm_relayed_for_him(
    tmp_path: Path,
) -> None:
    # The honest retries the identity must keep: his own connection's request, and the GM's
    # relay of his, resent from his own connection, get their logged outcomes.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[], user="Gm")
        assert put(gm, ORC)["ok"] is True
        token = srv.player("bo", "ana")
        assert token is not None
        bo = Client(srv, token, events=[])
        own = bo.ask(attack("o-1", REFERENCE))
        via_gm = gm.ask(relayed("bo", attack("o-2", REFERENCE)))
        again = [json.loads(resend(bo, attack(rid, REFERENCE))) for rid in ("o-1", "o-2")]
    assert own["type"] == via_gm["type"] == "outcome"
    assert [a["type"] for a in again] == ["outcome", "outcome"]
    assert [a["replayed"] for a in again] == [True, True]
