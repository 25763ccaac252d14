"""Review probes of the envelope route (readpath): what the hashed log row keeps."""

from __future__ import annotations

import json
from pathlib import Path

from arbiter.bridge.deciding import decide
from arbiter.bridge.store import Store
from tests.bridge.test_deciding import CTX, tiny_rules

OPEN = '{"v":1,"type":"request","request":'


def test_the_logged_request_never_holds_a_member_the_decision_did_not_read(
    tmp_path: Path,
) -> None:
    # A hostile client writes the id, the ruleset and the body twice: the first of each is a
    # decoy that the decision never reads (JSON's last member wins).
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    envelope = (
        '{"id":"decoy","ruleset":"tiny","type":"check","body":{"skill":99},'
        '"id":"c1","body":{"skill":40}}'
    )
    decided = decide(rules.reader.read(OPEN + envelope + "}"), rules, store, CTX, 1.0)  # type: ignore[arg-type]
    store.commit()
    [row] = store.rolls()
    assert row.entry.request_id == "c1"
    assert json.loads(row.entry.request)["body"] == {"skill": 40}
    # What the log keeps and hashes should be the request as decided, not a text in which
    # "decoy" and a skill of 99 appear first:
    assert '"decoy"' not in row.entry.request and "99" not in row.entry.request, row.entry.request
    assert decided.row.seq == row.seq


def test_a_shadowed_member_never_validated_is_not_kept_in_the_hashed_log(tmp_path: Path) -> None:
    # The first "body" and "encounter" are never validated (the last wins): any JSON at all,
    # up to the frame's size, would land in the permanent, hash-chained row.
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    envelope = (
        '{"id":"c1","ruleset":"tiny","type":"check",'
        '"body":{"verdict":"GM approved: critical success","user":"GM"},'
        '"encounter":{"forged":"anything at all"},"body":{"skill":40},"encounter":null}'
    )
    decide(rules.reader.read(OPEN + envelope + "}"), rules, store, CTX, 1.0)  # type: ignore[arg-type]
    store.commit()
    [row] = store.rolls()
    assert "GM approved" not in row.entry.request and "forged" not in row.entry.request, (
        row.entry.request
    )


def test_the_logged_request_has_no_whitespace_around_it(tmp_path: Path) -> None:
    # docs/protocol.md: "the characters between "request": and the frame's closing brace,
    # the whitespace around them trimmed".
    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    envelope = '{"id":"c1","ruleset":"tiny","type":"check","body":{"skill":40}}'
    decide(rules.reader.read(OPEN + " \n\t" + envelope + "}"), rules, store, CTX, 1.0)  # type: ignore[arg-type]
    store.commit()
    [row] = store.rolls()
    assert row.entry.request == envelope, repr(row.entry.request)


def test_rows_logged_as_written_replay_from_the_log_and_keep_their_chain(tmp_path: Path) -> None:
    from arbiter.bridge.logreplay import replay_log

    rules, store = tiny_rules(tmp_path), Store(tmp_path / "log.db")
    frames = [
        OPEN
        + ' \n{"id":"c1","ruleset":"tiny","type":"check","body":{"skill":99},"body":{"skill":40}}}',
        OPEN + '{"i\\u0064":"c2","ruleset":"tiny","type":"check","body":{"skill":41}}\r\n}',
    ]
    for at, frame in enumerate(frames):
        decide(rules.reader.read(frame), rules, store, CTX, float(at))  # type: ignore[arg-type]
    store.commit()
    assert store.verify_chain() == []
    report = replay_log(
        store.rolls(),
        {rid: s.ruleset for rid, s in rules.served.items()},
        lambda r: rules.served[r].engine,
    )
    assert report.rows == 2 and report.mismatches == [], report.mismatches
