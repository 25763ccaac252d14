"""A hostile client writes members twice in a request so that its first, never validated,
copy would land in the permanent, hash-chained roll log.

JSON keeps a member's last value: the server validates and decides that one. A log that kept the
frame's text as written would also keep the first copy (any JSON up to the frame's size: a
forged verdict, another player's name), hashed into the chain for good. The log keeps the
compact JSON of the values read instead, so nothing the decision did not read is in the row,
whether the body was validated just now or read before (the reader keeps bodies it validated).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.bridge.support import bundled_config, receive, running, send

OPEN = '{"v":1,"type":"request","request":'
FORGED = '{"verdict":"GM approved: critical success","skill":99}'


def frames(rid: str) -> list[str]:
    """Requests for a d100 check against 40, each with a forged first copy of a member."""
    return [
        # The body written twice: the forged one first.
        OPEN + f'{{"id":"{rid}-a","ruleset":"combat-styles","type":"check","body":{FORGED},'
        '"body":{"skill":40}}}',
        # The same, the forged copy also in the id and the encounter (last: null).
        OPEN + f'{{"id":"forged","ruleset":"combat-styles","type":"check","body":{FORGED},'
        f'"encounter":{FORGED},"id":"{rid}-b","body":{{"skill":40}},"encounter":null}}}}',
        # What follows the first body, up to a last encounter, carries a forged encounter.
        OPEN + f'{{"id":"{rid}-c","ruleset":"combat-styles","type":"check","body":{{"skill":40}},'
        f'"encounter":{FORGED},"body":{{"skill":40}},"encounter":null}}}}',
    ]


def test_a_member_written_twice_never_reaches_the_hashed_log(tmp_path: Path) -> None:
    with running(bundled_config(tmp_path)) as srv:
        ws, _ = srv.hello()
        replies = []
        # Twice each, under new ids: the second time the reader may take the body it kept.
        for rid in ("one", "two"):
            for frame in frames(rid):
                send(ws, frame)
                replies.append(receive(ws))
        ws.close()
        store = srv.server.store
        rows = list(store.rolls())
        chain = store.verify_chain()
    assert [r["type"] for r in replies] == ["outcome"] * 6, replies
    assert chain == []
    assert [row.entry.request_id for row in rows] == [
        f"{rid}-{k}" for rid in ("one", "two") for k in "abc"
    ]
    for row in rows:
        logged = row.entry.request
        assert "GM approved" not in logged and "forged" not in logged and "99" not in logged
        assert json.loads(logged)["body"] == {"skill": 40}
