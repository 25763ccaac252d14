"""A text naming stored blocks sent again and again (a new id each time) is resolved by
``Resolver.again`` straight from the session: what resolving it afresh gives, and afresh
whenever a block is edited or deleted between two requests, or the rules are reloaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.bridge.stat_block_shield import ANOTHERS, Resolved
from arbiter.bridge.views import GM
from tests.bridge.support import Running, bundled_config, running
from tests.bridge.test_stat_block_door import by_reference, examples, frame, stored_vault
from tests.security.support import Client
from tests.security.test_stat_block_vault import ORC, REFERENCE, ask, attack, put


@pytest.fixture(scope="module")
def rules() -> RulesSnapshot:
    return snapshot(RuleSource().load())


def read_of(rules: RulesSnapshot, request: dict[str, Any], rid: str, keeper: Any = None) -> Sent:
    read = rules.reader.read(frame({**request, "id": rid}), keeper)
    assert isinstance(read, Sent)
    return read


def sameness(result: Resolved) -> tuple[Any, ...]:
    """What the decision and the log take of a resolution."""
    read = result.read
    assert isinstance(read, Sent)
    return (read.message.request, read.text, read.dice, read.player, result.shielded,
            result.foreign, result.unlogged)  # fmt: skip


def test_a_text_resolved_before_is_taken_again_as_resolving_it_afresh_gives(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    for request in examples():
        (tmp_path / request["id"] / "a").mkdir(parents=True)
        (tmp_path / request["id"] / "b").mkdir()
        kept = stored_vault(tmp_path / request["id"] / "a", [request])
        fresh = stored_vault(tmp_path / request["id"] / "b", [request])
        sent = by_reference(request)
        for n in range(4):  # the reader keeps the body, then the vault its resolution
            kept.resolve(read_of(rules, sent, f"{request['id']}-{n}"), GM, None, rules)
        taken = kept.resolver.again(read_of(rules, sent, "same-id"), GM, rules, None)
        assert taken is not None, request["type"]
        afresh = fresh.resolve(read_of(rules, sent, "same-id"), GM, None, rules)
        assert sameness(taken) == sameness(afresh), request["type"]
        # The kept resolution's body itself, around the new id.
        plug = next(iter(kept.resolver.plugs._entries.values()))
        assert taken.read.message.request.body is plug.plugged


def test_a_body_the_reader_did_not_keep_is_never_taken_nor_plugged_in_place(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    request = next(r for r in examples() if r["type"] == "exchange")
    vault = stored_vault(tmp_path, [request])
    sent = {**by_reference(request), "body": {**by_reference(request)["body"], "effects": []}}
    first = read_of(rules, sent, "n-0", keeper="nobody-else")  # the first of its text
    assert not first.kept
    assert vault.resolver.again(first, GM, rules, None) is None
    with pytest.raises(ValueError, match="kept"):
        first.plug_in(None, "{}")


def logged(srv: Running, rid: str) -> dict[str, Any]:
    """The request ``rid``'s log row holds, read on the server's loop."""

    async def find() -> Any:
        return srv.server.store.find(rid)

    row = srv.call(find())
    assert row is not None, rid
    return json.loads(row.entry.request)  # type: ignore[no-any-return]


def entries(srv: Running) -> int:
    """How many resolutions the vault keeps (a request of a kept text takes one)."""
    return len(srv.server.vault.resolver.plugs._entries)


def test_the_gm_s_repeated_text_uses_the_block_as_edited_or_deleted_just_before(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        before = [ask(gm, attack(f"a-{n}", REFERENCE)) for n in range(1, 5)]
        assert entries(srv) == 1  # the text's resolution is kept, and taken
        assert put(gm, {**ORC, "ip": 5}, "p-2")["ok"] is True
        edited = [ask(gm, attack(f"a-{n}", REFERENCE)) for n in range(5, 8)]
        resent = ask(gm, attack("a-4", REFERENCE))
        gone = ask(gm, {"v": 1, "type": "delete_stat_block", "id": "d-1", "ruleset": "hmk",
                        "participant": "orc"})  # fmt: skip
        missing = ask(gm, attack("a-8", REFERENCE))
        assert put(gm, ORC, "p-3")["ok"] is True
        back = ask(gm, attack("a-9", REFERENCE))
        rows = {n: logged(srv, f"a-{n}")["body"]["defender"] for n in (1, 4, 5, 7, 9)}
    orc = [a["outcome"]["result"]["combatants"]["orc"]["max_ip"] for a in before + edited]
    assert orc == [37] * 4 + [5] * 3
    assert rows == {1: ORC, 4: ORC, 5: {**ORC, "ip": 5}, 7: {**ORC, "ip": 5}, 9: ORC}
    # A resend of a decided id gets its logged outcome, the block edited since or not.
    assert resent["replayed"] is True and resent["outcome"] == before[3]["outcome"]
    assert gone["type"] == "pong"  # deleted
    assert missing["code"] == "invalid_request"
    assert "no hmk stat block of 'orc' is stored" in missing["message"]
    assert back["outcome"]["result"]["combatants"]["orc"]["max_ip"] == 37


def test_the_repeated_text_is_resolved_afresh_under_reloaded_rules(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        assert put(gm, ORC)["ok"] is True
        before = [ask(gm, attack(f"r-{n}", REFERENCE)) for n in range(4)]
        old = srv.server.vault.resolver.plugs._entries.copy()
        reloaded = snapshot(srv.server.config.rules.load())
        srv.call(srv.server.swap_rules(reloaded))
        after = [ask(gm, attack(f"r-{n}", REFERENCE)) for n in range(4, 8)]
        new = srv.server.vault.resolver.plugs._entries.copy()
        rows = [logged(srv, f"r-{n}")["body"]["defender"] for n in range(8)]
    assert [a["type"] for a in before + after] == ["outcome"] * 8
    assert old and all(p.rules is not reloaded for p in old.values())
    assert [p.rules for p in new.values()] == [reloaded]
    assert rows == [ORC] * 8


def test_a_player_s_repeated_text_stays_shielded_and_his_resends_and_another_s_ids_are_resolve_s(
    tmp_path: Path,
) -> None:
    with running(bundled_config(tmp_path)) as srv:
        gm = Client(srv, srv.server.secret, events=[])
        token = srv.player("pat", "ana")
        assert token is not None
        pat = Client(srv, token, events=[])
        assert put(gm, ORC)["ok"] is True
        assert ask(gm, attack("gm-1", REFERENCE))["type"] == "outcome"
        mine = [ask(pat, attack(f"b-{n}", REFERENCE)) for n in range(5)]
        # His text's resolution is kept for him alone (the GM's, sent once, is not kept).
        held = [
            (p.shielded, key[1:]) for key, p in srv.server.vault.resolver.plugs._entries.items()
        ]
        resent = ask(pat, attack("b-4", REFERENCE))
        others = ask(pat, attack("gm-1", REFERENCE))
        assert put(gm, {**ORC, "ip": 5}, "p-2")["ok"] is True
        edited = ask(pat, attack("b-5", REFERENCE))
        rows = [logged(srv, f"b-{n}")["body"]["defender"] for n in range(6)]
    assert [a["type"] for a in [*mine, edited]] == ["outcome"] * 6
    assert held == [(True, (False, "pat", frozenset({"ana"})))]
    assert resent["replayed"] is True and resent["outcome"] == mine[4]["outcome"]
    assert others == {"v": 1, "type": "error", "id": "gm-1", "code": "id_conflict",
                      "message": ANOTHERS.format("gm-1"), "retry_after": None}  # fmt: skip
    assert rows == [ORC] * 5 + [{**ORC, "ip": 5}]
