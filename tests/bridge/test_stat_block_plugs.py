"""Requests naming stored stat blocks, sent again with the same text: resolved once, and again
whenever anything they were resolved with changes (the block, the viewer, the rules, a failed
commit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from arbiter.bridge.deciding import request_json, strict_body
from arbiter.bridge.engine.dice import Dice, KeyedSource
from arbiter.bridge.engine.envelope import Request
from arbiter.bridge.reading import Sent
from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.bridge.stat_block_kept import Kept
from arbiter.bridge.stat_block_plugs import Plug, Plugs
from arbiter.bridge.stat_block_shield import Resolved
from arbiter.bridge.stat_block_vault import Vault
from arbiter.bridge.views import GM, Viewer
from tests.bridge.test_stat_block_door import by_reference, examples, frame, stored_vault


@pytest.fixture(scope="module")
def rules() -> RulesSnapshot:
    return snapshot(RuleSource().load())


def exchange() -> dict[str, Any]:
    return next(r for r in examples() if r["type"] == "exchange")


def resolved(vault: Vault, rules: RulesSnapshot, request: dict[str, Any], viewer: Viewer = GM,
             rid: str = "r-0") -> Resolved:  # fmt: skip
    """``request`` (its id ``rid``) read by ``rules``' reader and resolved by ``vault``."""
    read = rules.reader.read(frame({**request, "id": rid}), viewer.player)
    assert isinstance(read, Sent)
    return vault.resolve(read, viewer, None, rules)


def body_of(result: Resolved) -> Any:
    assert isinstance(result.read, Sent)
    return result.read.message.request.body


def logged(result: Resolved) -> bytes:
    assert isinstance(result.read, Sent)
    return request_json(result.read.message.request, result.read.text or result.read.request)


def test_a_request_sent_again_with_the_same_text_is_resolved_once_into_the_same_body_and_log(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    for request in examples():
        (tmp_path / request["id"]).mkdir()
        vault = stored_vault(tmp_path / request["id"], [request])
        sent = by_reference(request)
        results = [resolved(vault, rules, sent, rid=f"{request['id']}-{n}") for n in range(5)]
        # The reader keeps the body the second time the text comes and gives it from the
        # third on (sooner when another test sent it to this snapshot's reader): the vault
        # keeps its resolution then, and takes it around each new id.
        assert body_of(results[4]) is body_of(results[3]) is body_of(results[2])
        model = rules.served[request["ruleset"]].engine.requests[request["type"]]
        expected = strict_body(model, Request(**request), rules.context).body
        for n, result in enumerate(results):
            assert body_of(result) == expected and result.unlogged and not result.shielded
            written = {**request, "id": f"{request['id']}-{n}", "encounter": None}
            assert logged(result) == orjson.dumps(written), request["type"]


def test_a_block_put_or_deleted_is_used_or_missed_from_the_very_next_request(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    request = exchange()
    vault = stored_vault(tmp_path, [request])
    sent = by_reference(request)
    kept = [resolved(vault, rules, sent, rid=f"k-{n}") for n in range(4)]
    assert body_of(kept[3]) is body_of(kept[2])
    theirs = request["body"]["combatants"][1]
    changed = {**theirs, "name": "Changed"}
    vault.put("combat-styles", changed, None, 2.0)
    after = resolved(vault, rules, sent, rid="k-4")
    assert body_of(after) is not body_of(kept[-1])
    assert body_of(after).combatants[1].name == "Changed"
    assert orjson.loads(logged(after))["body"]["combatants"][1] == changed
    vault.delete("combat-styles", theirs["id"])
    with pytest.raises(Exception, match="no combat-styles stat block of"):
        resolved(vault, rules, sent, rid="k-5")


def test_a_failed_commit_or_new_rules_resolve_afresh(rules: RulesSnapshot, tmp_path: Path) -> None:
    request = exchange()
    vault = stored_vault(tmp_path, [request])
    sent = by_reference(request)
    kept = [resolved(vault, rules, sent, rid=f"f-{n}") for n in range(4)]
    assert body_of(kept[3]) is body_of(kept[2])
    vault.forget()  # the server's answer to a failed commit: the store may have rolled back
    fresh = resolved(vault, rules, sent, rid="f-4")
    assert body_of(fresh) is not body_of(kept[3]) and body_of(fresh) == body_of(kept[3])
    again = snapshot(RuleSource().load())
    reloaded = [resolved(vault, again, sent, rid=f"g-{n}") for n in range(3)]
    assert all(body_of(r) is not body_of(fresh) for r in reloaded)


def test_one_viewer_s_resolution_is_never_taken_for_another_s(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    # The same text, so the same body object (one keeper's frames: the GM's, who relays for
    # players), resolved for a player holding the first fighter and then for the GM: the
    # second fighter written in is the GM's own writing for the GM, the stored block for the
    # player, whatever was resolved first.
    request = exchange()
    vault = stored_vault(tmp_path, [request])
    mine, theirs = request["body"]["combatants"]
    fudged = {**theirs, "name": "Fudged"}
    sent = {**request, "body": {**request["body"],
                                "combatants": [{"id": mine["id"], "stored": True}, fudged]}}  # fmt: skip
    text = frame({**sent, "id": "v-0"})
    pat = Viewer(False, frozenset({mine["id"]}), "pat")
    reads = [rules.reader.read(text.replace('"v-0"', f'"v-{n}"')) for n in range(8)]
    assert all(isinstance(r, Sent) for r in reads)
    as_pat = [vault.resolve(r, pat, None, rules) for r in reads[:4]]
    assert body_of(as_pat[3]) is body_of(as_pat[2])  # kept for him, taken
    as_gm = [vault.resolve(r, GM, None, rules) for r in reads[4:]]
    assert [body_of(r).combatants[1].name for r in as_pat] == [theirs["name"]] * 4
    assert [r.shielded for r in as_pat] == [True] * 4
    assert [body_of(r).combatants[1].name for r in as_gm] == ["Fudged"] * 4
    assert [r.shielded for r in as_gm] == [False] * 4
    # And the other way round: taking the orc away from somebody changes his key.
    both = Viewer(False, frozenset({mine["id"], theirs["id"]}), "pat")
    as_both = vault.resolve(rules.reader.read(text.replace('"v-0"', '"v-8"')), both, None, rules)
    assert body_of(as_both).combatants[1].name == "Fudged"


def test_the_engines_leave_the_resolved_bodies_they_decide_with_as_they_were(
    rules: RulesSnapshot, tmp_path: Path
) -> None:
    # A kept resolution's body is decided again and again: no engine may change it.
    for request in examples():
        (tmp_path / request["id"]).mkdir()
        vault = stored_vault(tmp_path / request["id"], [request])
        sent = by_reference(request)
        results = [resolved(vault, rules, sent, rid=f"e-{n}") for n in range(4)]
        body = body_of(results[3])
        assert body is body_of(results[2])
        before = repr(body), body.model_dump()
        served = rules.served[request["ruleset"]]
        dice = Dice(KeyedSource(b"plug" * 8))
        for _ in range(2):
            served.engine.resolve(served.ruleset.model, request["type"], body, None, dice)
        assert (repr(body), body.model_dump()) == before, request["type"]


def test_resolutions_kept_are_bounded_in_number_and_bytes(rules: RulesSnapshot) -> None:
    plugs = Plugs(Kept(None))  # type: ignore[arg-type]  # never read: only keep() is called
    bodies = [Request(id=f"b-{n}", ruleset="x", type="y") for n in range(Plugs.KEPT + 5)]

    def plug(body: Any, tail: str) -> Plug:
        return Plug(body, rules, ("x", "y", None), (), body, tail, 0, False, False)

    for body in bodies:
        plugs.keep(plug(body, "t"), GM)
        assert len(plugs._entries) <= Plugs.KEPT
    long = "x" * (Plugs.HELD // 3)
    for body in bodies[:4]:
        plugs.keep(plug(body, long), GM)
        assert plugs._held <= Plugs.HELD
    plugs.keep(plug(bodies[5], "y" * (Plugs.HELD + 1)), GM)
    assert plugs._held <= Plugs.HELD
