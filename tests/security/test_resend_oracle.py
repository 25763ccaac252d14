"""A player cannot use a request id as an oracle on what he may not read.

A request id is decided once for the whole world: resending it gets the logged outcome when the
resend is the logged request, ``id_conflict`` when it is not. The logged request holds every
stat block it used in full (the blocks references were filled in with, and the blocks the GM's
client writes in: it reads them, docs/client.md), and the GM's choices for his NPCs (an
exchange's ``defender_luck``). Were the answer to a resend to depend on whether what he wrote
equals the logged request, a player could resend an id with guesses of the orc's block, or of
the GM's choices, and be told which guess was right.

Hostile clients, over real websockets against a real server of the bundled rules: a player
resends his own attack on the orc (made by reference) with guessed blocks in its place; resends
the GM's attack, whose id he read in an ``outcome`` event, with guesses of the block the GM
wrote; resends requests refused after their dice; resends with guesses that are wrong elsewhere
too; and resends combat-styles exchanges, his and the GM's, with guesses of the guard's block
and of the GM's luck choice for the guard. Each time a right guess and a wrong one get the very
same frame.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.stat_block_shield import ANOTHERS
from arbiter.bridge.stat_block_vault import SHIELDED
from tests.bridge.support import running, tiny_config
from tests.security.support import Client, bundled_server, rows, strings
from tests.security.test_rerolls import free_exchange
from tests.security.test_stat_block_vault import (
    ORC,
    REFERENCE,
    SECRETS,
    ask,
    attack,
    orc_blocks,
    put,
    raw_answer,
)

WRONG = {**ORC, "ip": 36}
"""A guess of the orc's block one number off."""


def refusal(rid: str, code: str, message: str) -> dict[str, Any]:
    return {"v": 1, "type": "error", "id": rid, "code": code, "message": message,
            "retry_after": None}  # fmt: skip


def anothers(rid: str) -> dict[str, Any]:
    """The refusal of a player's resend of somebody else's request id, whatever its body."""
    return refusal(rid, "id_conflict", ANOTHERS.format(rid))


def shielded(rid: str) -> dict[str, Any]:
    """The one refusal of a player's request that used a block he may not read."""
    return refusal(rid, "invalid_request", SHIELDED)


def resend(client: Client, message: dict[str, Any]) -> str:
    """``message`` sent and its answer, exactly as the server wrote it (the next frame: the
    client subscribed to no event)."""
    return raw_answer(client, message)


def test_a_player_resending_his_attack_with_guesses_of_the_orc_s_block_hears_the_same(
    tmp_path: Path,
) -> None:
    # The player attacked the orc by reference: the log holds the orc's block. He resends the
    # id with the block itself, guessed right and guessed wrong.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        first = json.loads(resend(pat, attack("o-1", REFERENCE)))
        right = resend(pat, attack("o-1", ORC))
        wrong = resend(pat, attack("o-1", WRONG))
        by_reference = json.loads(resend(pat, attack("o-1", REFERENCE)))
    assert first["type"] == "outcome" and first["replayed"] is False
    assert right == wrong
    # Whatever the block he writes, the orc is the orc: his resend gets the logged outcome,
    # as a resend by reference does.
    assert json.loads(right) == by_reference == {**first, "replayed": True}
    assert orc_blocks(json.loads(right)) == []


def test_a_player_resending_the_gm_s_attack_with_guesses_of_the_block_the_gm_wrote_hears_the_same(
    tmp_path: Path,
) -> None:
    # The GM's client reads the orc's block and writes it into the request; the player, whose
    # character is the attacker, hears the outcome's event and so its id.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=["outcome"])
        told = gm.ask(attack("gm-1", ORC))
        assert told["type"] == "outcome"
        pat.drain()
        [event] = [m for m in pat.received if m.get("event") == "outcome"]
        rid = event["outcome"]["id"]
        assert rid == "gm-1"
        pat.received.clear()
        pat.ws.send(json.dumps({"v": 1, "type": "subscribe", "id": "s-1", "events": []}))
        assert json.loads(pat.ws.recv(5)) == {"v": 1, "type": "pong", "id": "s-1"}
        right = resend(pat, attack(rid, ORC))
        wrong = resend(pat, attack(rid, WRONG))
        blank = resend(pat, attack(rid, {"id": "orc"}))
        by_reference = resend(pat, attack(rid, REFERENCE))
    assert right == wrong == blank == by_reference
    # The GM's id is not his to resend: refused whatever he writes.
    assert json.loads(right) == anothers(rid)
    assert not SECRETS & strings(json.loads(right))


def test_a_player_resending_a_request_refused_after_its_dice_hears_one_fixed_refusal(
    tmp_path: Path,
) -> None:
    # One die a request, and a first die that hits: the damage die is over the budget, so the
    # attack is refused after its dice and the refusal is the id's logged outcome (the GM's
    # refusal names no block here; an engine's may). The GM's attack (the orc's block written
    # in), resent by the player with guesses; and the player's own attacks, the orc by
    # reference and written in (his guess), resent the same way: the first answer and every
    # resend say the same.
    config = tiny_config(
        tmp_path,
        rules=RuleSource(),
        allow_scripted_dice=True,
        limits=Limits(rate_per_second=100_000.0, burst=100_000, max_dice_per_request=1),
    )
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        gm_refused = gm.ask({**attack("d-1", ORC), "dice": [1]})
        own = resend(pat, {**attack("d-2", REFERENCE), "dice": [1]})
        written = resend(pat, {**attack("d-3", WRONG), "dice": [1]})
        answers = [
            resend(pat, attack(rid, block))
            for rid in ("d-1", "d-2", "d-3")
            for block in (ORC, WRONG, REFERENCE)
        ]
        logged = rows(srv)
    assert logged == 3  # the refusals are their ids' outcomes
    assert gm_refused["code"] == "dice_error"
    assert json.loads(own) == shielded("d-2")
    assert json.loads(written) == shielded("d-3")
    assert [json.loads(a) for a in answers] == [anothers("d-1")] * 3 + [
        shielded(rid) for rid in ("d-2", "d-3") for _ in range(3)
    ]


def test_a_player_resend_wrong_elsewhere_is_refused_alike_whatever_his_guess(
    tmp_path: Path,
) -> None:
    # A resend that differs from the logged request outside the orc's block (another
    # modifier) is no resend: refused, in the same words whether his guess of the block was
    # right, wrong or a reference.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert gm.ask(attack("w-1", ORC))["type"] == "outcome"
        assert json.loads(resend(pat, attack("w-2", REFERENCE)))["type"] == "outcome"
        answers = [
            json.loads(resend(pat, attack(rid, block, modifier=5)))
            for rid in ("w-1", "w-2")
            for block in (ORC, WRONG, REFERENCE)
        ]
    assert answers == [anothers("w-1")] * 3 + [shielded("w-2")] * 3


def test_a_player_resending_after_the_gm_deleted_the_orc_hears_what_he_heard_before(
    tmp_path: Path,
) -> None:
    # Whether the orc is still stored shows in no answer to a resend: a resend of the id is
    # answered from the log (the stored outcome, or one refusal), never from the vault.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert json.loads(resend(pat, attack("x-1", REFERENCE)))["type"] == "outcome"
        probes = [attack("x-1", REFERENCE), attack("x-1", WRONG),
                  attack("x-1", REFERENCE, modifier=5), attack("x-1", ORC, modifier=5)]  # fmt: skip
        stored = [resend(pat, probe) for probe in probes]
        deleted = {"v": 1, "type": "delete_stat_block", "id": "d", "ruleset": "hmk",
                   "participant": "orc"}  # fmt: skip
        assert gm.ask(deleted)["type"] == "pong"
        gone = [resend(pat, probe) for probe in probes]
    assert stored == gone
    assert [json.loads(a)["type"] for a in gone] == ["outcome", "outcome", "error", "error"]


def test_the_gm_still_hears_id_conflict_for_a_different_orc(tmp_path: Path) -> None:
    # The GM reads every block: nothing is hidden from him, and a resend of his id with
    # another orc is another request.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert gm.ask(attack("g-1", ORC))["type"] == "outcome"
        again = json.loads(raw_answer(gm, attack("g-1", ORC)))
        other = json.loads(raw_answer(gm, attack("g-1", WRONG)))
    assert again["type"] == "outcome" and again["replayed"] is True
    assert other["type"] == "error" and other["code"] == "id_conflict"


def test_a_player_resending_exchanges_with_guesses_of_the_guard_and_the_gm_s_choices_hears_the_same(
    tmp_path: Path,
) -> None:
    # combat-styles: a free exchange carries both stat blocks in ``combatants``. The player
    # holds the attacker, Vessa. The GM's exchange writes the guard's block in and chooses
    # the guard's luck (``defender_luck``), which no outcome shows unless a die calls on it;
    # the player's own exchange names the guard by reference. He resends both with guesses
    # of the guard's block and of the GM's choice.
    with bundled_server(tmp_path) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "vessa")
        assert token is not None
        pat = Client(srv, token, events=[])
        sent = free_exchange("cs-gm", effects=[], defender_luck="critical")
        guard, vessa = sent["request"]["body"]["combatants"]
        assert guard["id"] == "guard"
        stored = {"v": 1, "type": "put_stat_block", "id": "p-1", "ruleset": "combat-styles",
                  "stat_block": guard}  # fmt: skip
        assert ask(gm, stored)["ok"] is True
        assert gm.ask(sent)["type"] == "outcome"
        reference = {"id": "guard", "stored": True}
        first = json.loads(resend(pat, free_exchange("cs-pat", effects=[],
                                                     combatants=[reference, vessa])))  # fmt: skip
        skills = guard["skills"]
        guesses = [
            guard,
            {**guard, "skills": {**skills, "combat_style": skills["combat_style"] + 1}},
            reference,
        ]
        answers = {
            rid: [
                resend(pat, free_exchange(rid, effects=[], combatants=[g, vessa], **luck))
                for g in guesses
                for luck in ({}, {"defender_luck": "critical"}, {"defender_luck": "success"})
            ]
            for rid in ("cs-gm", "cs-pat")
        }
    assert first["type"] == "outcome"
    # The GM's exchange: nine guesses, one of them right, and one answer.
    assert len(set(answers["cs-gm"])) == 1
    assert [json.loads(a) for a in answers["cs-gm"]] == [anothers("cs-gm")] * 9
    # His own: the guard's block is the guard, right or wrong; his luck choice was "none" and
    # is his own to compare.
    own = [json.loads(a) for a in answers["cs-pat"]]
    assert own[0::3] == [{**first, "replayed": True}] * 3
    assert [a for n, a in enumerate(own) if n % 3] == [shielded("cs-pat")] * 6
