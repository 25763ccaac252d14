"""The stat-block vault: a store table of the GM's blocks, and references in requests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from arbiter.bridge.cli import main
from arbiter.bridge.protocol import RequestMessage
from arbiter.bridge.protocol_parsing import ProtocolError
from arbiter.bridge.rules import RuleSource, snapshot
from arbiter.bridge.stat_block_vault import (
    MUST_BE_STORED,
    SHIELDED,
    Vault,
    is_reference,
    matches,
    references,
    substitute,
)
from arbiter.bridge.store import Store
from arbiter.bridge.views import GM, Viewer
from arbiter.compiler.model.loader import RULES_ROOT
from tests.bridge.support import bundled_config, running
from tests.security.support import Client
from tests.security.test_stat_block_vault import ANA, ORC, REFERENCE, ask, attack, get, put

PAT = Viewer(False, frozenset({"ana"}), "pat")


def message(body: dict[str, object], rid: str = "r-1") -> RequestMessage:
    request = {"id": rid, "ruleset": "hmk", "type": "attack", "body": body}
    return RequestMessage.model_validate({"v": 1, "type": "request", "request": request})


def test_a_reference_is_exactly_an_id_and_stored_true() -> None:
    assert is_reference({"id": "orc", "stored": True})
    assert not is_reference({"id": "orc", "stored": 1})
    assert not is_reference({"id": "orc", "stored": True, "name": "Orc"})
    assert not is_reference({"id": 7, "stored": True})
    assert not is_reference(["orc"])


def test_references_are_found_anywhere_in_a_body_and_replaced_by_their_blocks() -> None:
    body = {"attacker": "ana", "combatants": [{"id": "ana", "x": 1}, REFERENCE], "d": REFERENCE}
    assert list(references(body)) == [("body.combatants.1", "orc"), ("body.d", "orc")]
    replaced = substitute(body, {"orc": ORC})
    assert replaced["combatants"] == [{"id": "ana", "x": 1}, ORC] and replaced["d"] == ORC
    assert body["d"] == REFERENCE  # the sent body is left as it was


def test_a_logged_body_matches_the_sent_one_whatever_the_referenced_block_held() -> None:
    sent = {"attacker": ANA, "defender": REFERENCE, "modifier": 0}
    assert matches(sent, {"attacker": ANA, "defender": {**ORC, "ip": 1}, "modifier": 0})
    assert not matches(sent, {"attacker": ANA, "defender": {**ORC, "id": "elf"}, "modifier": 0})
    assert not matches(sent, {"attacker": ANA, "defender": ORC, "modifier": 0.0})
    assert not matches(sent, {"attacker": ANA, "defender": ORC})


def test_stored_blocks_survive_closing_the_store(tmp_path: Path) -> None:
    store = Store(tmp_path / "arbiter.sqlite3")
    Vault(store).put("hmk", ORC, "Actor.x", 1.0)
    store.close()
    again = Vault(Store(tmp_path / "arbiter.sqlite3"))
    found = again.get("hmk", "orc")
    assert found is not None and found.block == ORC and found.actor == "Actor.x"
    assert again.get("karmic", "orc") is None
    assert [(s.ruleset, s.participant) for s in again.entries()] == [("hmk", "orc")]


def test_resolving_names_the_field_of_a_reference_to_no_stored_block(tmp_path: Path) -> None:
    vault = Vault(Store(tmp_path / "arbiter.sqlite3"))
    with pytest.raises(ProtocolError) as refused:
        vault.resolve(message({"attacker": ANA, "defender": REFERENCE}), GM)
    assert refused.value.code == "invalid_request"
    assert "body.defender: no hmk stat block of 'orc' is stored" in refused.value.message


def test_a_player_s_refusals_are_shielded_only_when_he_used_a_block_he_does_not_hold(
    tmp_path: Path,
) -> None:
    vault = Vault(Store(tmp_path / "arbiter.sqlite3"))
    vault.put("hmk", ORC, None, 1.0)
    vault.put("hmk", ANA, None, 1.0)
    theirs = vault.resolve(message({"attacker": ANA, "defender": REFERENCE}), PAT)
    # Pat holds a second fighter too, whose block he writes in.
    both = Viewer(False, frozenset({"ana", "dummy"}), "pat")
    dummy = {**ORC, "id": "dummy"}
    own = vault.resolve(
        message({"attacker": {"id": "ana", "stored": True}, "defender": dummy}), both
    )
    gm = vault.resolve(message({"attacker": ANA, "defender": REFERENCE}), GM)
    why = ProtocolError("rules_forbid", "the orc has no dagger skill", "r-1")
    assert theirs.read.request.body["defender"] == ORC
    assert own.read.request.body["attacker"] == ANA
    assert theirs.error(why).message == SHIELDED and theirs.error(why).code == "invalid_request"
    assert own.error(why) is why and gm.error(why) is why
    assert theirs.refusal(("dice_error", "too many dice")) == ("invalid_request", SHIELDED)


def test_a_block_a_player_writes_in_for_somebody_he_does_not_hold_is_the_stored_one(
    tmp_path: Path,
) -> None:
    vault = Vault(Store(tmp_path / "arbiter.sqlite3"))
    fudged = {**ORC, "ip": 1, "skills": {"war-hammer": 1}}
    with pytest.raises(ProtocolError) as unstored:
        vault.resolve(message({"attacker": ANA, "defender": fudged}), PAT)
    vault.put("hmk", ORC, None, 1.0)
    theirs = vault.resolve(message({"attacker": ANA, "defender": fudged}), PAT)
    gm = vault.resolve(message({"attacker": ANA, "defender": fudged}), GM)
    assert unstored.value.code == "invalid_request"
    assert unstored.value.message == MUST_BE_STORED.format(
        type="attack", path="body.defender", ruleset="hmk", participant="orc"
    )
    assert theirs.read.request.body == {"attacker": ANA, "defender": ORC}
    assert theirs.shielded and theirs.foreign
    # The GM's connection writes in what it likes.
    assert gm.read.request.body["defender"] == fudged


def test_a_resend_after_the_gm_edited_the_block_gets_the_stored_outcome(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        first = ask(gm, attack("a-1", REFERENCE))
        assert put(gm, {**ORC, "ip": 5}, "p-2")["ok"] is True
        again = ask(gm, attack("a-1", REFERENCE))
        fresh = ask(gm, attack("a-2", REFERENCE))
        other = ask(gm, attack("a-1", REFERENCE, modifier=5))
    assert again["replayed"] is True and again["outcome"] == first["outcome"]
    assert fresh["outcome"]["result"]["combatants"]["orc"]["max_ip"] == 5
    assert other["code"] == "id_conflict"


def test_stored_blocks_outlive_the_server(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        deleted = put(gm, ANA, "p-2")
        ask(gm, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                 "participant": "ana"})  # fmt: skip
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        kept = get(gm, "orc", "g-1")
        gone = get(gm, "ana", "g-2")
        listed = ask(gm, {"v": 1, "type": "list_stat_blocks", "id": "l-1"})
    assert deleted["ok"] is True
    assert kept["stat_block"] == ORC and kept["actor"] == "Actor.orc0000000000"
    assert gone["code"] == "not_found"
    assert [(e["ruleset"], e["participant"], e["name"]) for e in listed["entries"]] == [
        ("hmk", "orc", "Orc")
    ]


def test_replay_from_log_re_derives_requests_that_named_stored_blocks_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        assert ask(gm, attack("a-1", REFERENCE))["type"] == "outcome"
        assert ask(gm, attack("a-2", REFERENCE, modifier=-10))["type"] == "outcome"
        # The blocks go; the log alone still decides the same.
        ask(gm, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                 "participant": "orc"})  # fmt: skip
        gm.close()
    assert main(["replay", "--from-log", str(tmp_path / "data")]) == 0
    assert "2 rows re-derived: 2 identical, 0 mismatched" in capsys.readouterr().out


def test_the_gm_cannot_store_a_block_naming_a_weapon_the_rules_lack_and_requests_refuse_it_alike(
    tmp_path: Path,
) -> None:
    # Before: put accepted an unknown weapon among the skills, and a request using the stored
    # block was refused by the engine only (which the vault then had to shield from players).
    odd = {**ORC, "skills": {**ORC["skills"], "broadsword": 60}}
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        stored = put(gm, odd)
        sent = ask(gm, attack("a-1", odd))
        fetched = get(gm, "orc", "g-1")
        logged = srv.call(_count(srv))
    known = ", ".join(w.id for w in srv.server.rules.models["hmk"].weapons)  # type: ignore[attr-defined]
    message = f"unknown weapon 'broadsword' (known: {known})"
    assert stored["ok"] is False
    assert stored["problems"] == [{"field": "skills.broadsword", "message": message}]
    assert fetched["code"] == "not_found"
    assert sent["code"] == "invalid_request"
    assert sent["message"] == (
        "invalid 'attack' request: body.defender.constrained-str: Input should be a valid "
        f"string; body.defender.StatBlock.skills.broadsword: {message}"
    )
    assert logged == 0


async def _count(run: object) -> int:
    return run.server.store.count()  # type: ignore[attr-defined]


def test_the_gm_cannot_store_a_combat_styles_block_naming_a_trait_the_rules_lack(
    tmp_path: Path,
) -> None:
    # Before: put accepted an unknown style trait, and an exchange carrying the block was
    # refused by the engine only (rules_forbid), a different word from the door's.
    foe = {
        "id": "foe",
        "characteristics": {"str": 12, "con": 12, "siz": 12, "dex": 12, "int": 12, "pow": 10},
        "skills": {"combat_style": 60, "evade": 40},
        "weapons": ["dagger"],
    }
    odd = {**foe, "id": "b", "traits": ["jedi"]}
    exchange = {"combatants": [foe, odd], "attacker": "foe", "defender": "b", "effects": []}
    request = {"id": "x-1", "ruleset": "combat-styles", "type": "exchange", "body": exchange}
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        stored = ask(gm, {"v": 1, "type": "put_stat_block", "id": "p-1",
                          "ruleset": "combat-styles", "stat_block": odd})  # fmt: skip
        sent = ask(gm, {"v": 1, "type": "request", "request": request})
        logged = srv.call(_count(srv))
    traits = srv.server.rules.models["combat-styles"].style_traits  # type: ignore[attr-defined]
    known = ", ".join(sorted(t.id for t in traits))
    message = f"unknown style trait 'jedi' (known: {known})"
    assert stored["ok"] is False
    assert stored["problems"] == [{"field": "traits.0", "message": message}]
    assert sent["code"] == "invalid_request"
    assert sent["message"] == (f"invalid 'exchange' request: body.combatants.1.traits.0: {message}")
    assert logged == 0


def test_a_recheck_notes_the_blocks_the_served_rules_refuse_until_they_are_deleted(
    tmp_path: Path,
) -> None:
    vault = Vault(Store(tmp_path / "arbiter.sqlite3"))
    vault.put("hmk", ORC, "Actor.orc", 1.0)
    vault.put("hmk", ANA, None, 1.0)
    served = snapshot(RuleSource().load()).models
    without_hmk = {rid: model for rid, model in served.items() if rid != "hmk"}
    assert vault.recheck({"hmk"}, served) == [] and vault.invalid == {}
    refused = vault.recheck({"hmk", "karmic"}, without_hmk)
    assert [(b.participant, b.name, b.actor) for b in refused] == [
        ("ana", "Ana", None),
        ("orc", "Orc", "Actor.orc"),
    ]
    assert refused[0].problems[0].field == "ruleset"
    assert refused[0].problems[0].message.startswith("no stat block for ruleset 'hmk' here")
    vault.delete("hmk", "ana")
    assert list(vault.invalid) == [("hmk", "orc")]
    assert vault.recheck({"hmk"}, served) == [] and vault.invalid == {}


def test_blocks_the_rules_refuse_after_a_restart_are_flagged_in_the_gm_s_list(
    tmp_path: Path,
) -> None:
    root = tmp_path / "rules-copy"
    shutil.copytree(RULES_ROOT, root)
    with running(bundled_config(tmp_path, rules=RuleSource(root=root))) as srv:
        assert put(Client(srv, srv.server.secret, events=[]), ORC)["ok"] is True
    weapons = root / "hmk" / "weapons.toml"
    entries = weapons.read_text(encoding="utf-8").split("[[weapons]]")
    weapons.write_text(
        "[[weapons]]".join(e for e in entries if 'id = "war-hammer"' not in e), encoding="utf-8"
    )
    with running(bundled_config(tmp_path, rules=RuleSource(root=root))) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        listed = ask(gm, {"v": 1, "type": "list_stat_blocks", "id": "l-1"})
    [entry] = listed["entries"]
    assert [p["field"] for p in entry["problems"]] == ["skills.war-hammer", "weapon"]


def _logged(run: object, rid: str) -> str:
    """The request text of ``rid``'s log row, as the store holds it."""
    row = run.server.store.find(rid)  # type: ignore[attr-defined]
    assert row is not None, rid
    return row.entry.request  # type: ignore[no-any-return]


def test_a_request_naming_stored_blocks_logs_the_bytes_of_the_blocks_written_in(
    tmp_path: Path,
) -> None:
    # The blocks' models are kept validated (arbiter.bridge.stat_block_door); the log row
    # still holds the request with the blocks filled in, byte for byte what it held when the
    # filled-in body was validated whole: the same request as the one written in.
    pat_ana = {**ANA, "ip": 31}
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert put(gm, ANA, "p-2")["ok"] is True
        both = {"id": "ana", "stored": True}
        by_reference = ask(gm, {**attack("a-1", REFERENCE), "request": {
            **attack("a-1", REFERENCE)["request"], "body": {"attacker": both, "defender": REFERENCE}}})  # fmt: skip
        written_in = ask(gm, attack("a-2", ORC))
        # A player writes his own block in and names the orc (or writes the orc in, fudged).
        named = ask(pat, {**attack("a-3", REFERENCE), "request": {
            **attack("a-3", REFERENCE)["request"], "body": {"attacker": pat_ana, "defender": REFERENCE}}})  # fmt: skip
        fudged = {**ORC, "ip": 1, "skills": {"war-hammer": 1}}
        overwritten = ask(pat, {**attack("a-4", fudged), "request": {
            **attack("a-4", fudged)["request"], "body": {"attacker": pat_ana, "defender": fudged}}})  # fmt: skip
        rows = {rid: srv.call(_text(srv, rid)) for rid in ("a-1", "a-2", "a-3", "a-4")}
    for answer in (by_reference, written_in, named, overwritten):
        assert answer["type"] == "outcome", answer
    # The slow path logged the request dict with the blocks filled in, through orjson.
    filled = {"id": "a-1", "ruleset": "hmk", "type": "attack",
              "body": {"attacker": ANA, "defender": ORC}, "encounter": None}  # fmt: skip
    assert rows["a-1"].encode() == orjson.dumps(filled)
    # The request written in is logged as the compact JSON of its values: the same request.
    assert rows["a-2"].encode() == orjson.dumps(attack("a-2", ORC)["request"])
    assert orjson.dumps({**json.loads(rows["a-2"]), "id": "a-1", "encounter": None}) == (
        rows["a-1"].encode()
    )
    assert rows["a-3"] == rows["a-4"].replace('"a-4"', '"a-3"')
    assert json.loads(rows["a-3"])["body"] == {"attacker": pat_ana, "defender": ORC}


async def _text(run: object, rid: str) -> str:
    return _logged(run, rid)


def test_a_request_naming_stored_blocks_is_refused_in_the_words_of_the_blocks_written_in(
    tmp_path: Path,
) -> None:
    # A body problem beside a reference, a reference to no stored block, and a reference to a
    # block the rules refuse since a reload: each refusal is word for word the one the same
    # request gets with the block written in (or the vault's own, as before).
    root = tmp_path / "rules-copy"
    shutil.copytree(RULES_ROOT, root)
    config = bundled_config(tmp_path, rules=RuleSource(root=root), reload_interval=0.05)
    with running(config) as srv:
        gm = Client(srv, srv.server.secret, events=["rules"])
        assert put(gm, ORC)["ok"] is True
        bad_ref = ask(gm, attack("b-1", REFERENCE, modifier="5"))
        bad_inline = ask(gm, attack("b-2", ORC, modifier="5"))
        missing = ask(gm, attack("b-3", {"id": "zed", "stored": True}))
        weapons = root / "hmk" / "weapons.toml"
        entries = weapons.read_text(encoding="utf-8").split("[[weapons]]")
        weapons.write_text(
            "[[weapons]]".join(e for e in entries if 'id = "war-hammer"' not in e),
            encoding="utf-8",
        )
        assert gm._next(30)["event"] == "rules_updated"
        stale_ref = ask(gm, attack("b-4", REFERENCE))
        stale_inline = ask(gm, attack("b-5", ORC))
        logged = srv.call(_count(srv))
    assert bad_ref["code"] == bad_inline["code"] == "invalid_request"
    assert bad_ref["message"] == bad_inline["message"]
    assert "body.modifier: Input should be a valid integer" in bad_ref["message"]
    assert missing["code"] == "invalid_request"
    assert missing["message"] == (
        "invalid 'attack' request: body.defender: no hmk stat block of 'zed' is stored (the GM "
        "saves one with the stat-block editor)"
    )
    assert stale_ref["code"] == stale_inline["code"] == "invalid_request"
    assert stale_ref["message"] == stale_inline["message"]
    assert "unknown weapon 'war-hammer'" in stale_ref["message"]
    assert logged == 0
