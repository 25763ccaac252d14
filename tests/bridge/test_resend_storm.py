"""Review of the resend path (issue #16: a resend is answered with its row's logged texts).

Hostile clients: four GM connections pipeline the same new ids at once, each id many times.
Exactly one row is logged per id, every reply to an id names that row, and each reply's
outcome is the logged text byte for byte, the first answer's and every replay's alike.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

from tests.bridge.support import bundled_config, bundled_request, running, send

IDS = [f"storm-{n}" for n in range(12)]
ROUNDS = 3


def test_ids_resent_at_once_by_four_connections_log_one_row_each_answered_with_its_text(
    tmp_path: Path,
) -> None:
    raw: dict[int, list[str]] = {}
    with running(bundled_config(tmp_path)) as srv:
        sockets = [srv.hello(events=[])[0] for _ in range(4)]
        start = threading.Barrier(len(sockets))

        def storm(index: int) -> None:
            ws = sockets[index]
            ids = IDS[index:] + IDS[:index]  # each connection starts at another id
            start.wait()
            for _ in range(ROUNDS):
                for rid in ids:
                    send(ws, bundled_request(rid, "check", {"skill": 50}))
            raw[index] = [ws.recv(10) for _ in range(ROUNDS * len(ids))]

        threads = [threading.Thread(target=storm, args=(i,)) for i in range(len(sockets))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        for ws in sockets:
            ws.close()
    with sqlite3.connect(tmp_path / "data" / "arbiter.sqlite3") as db:
        rows = {
            rid: (seq, text)
            for seq, rid, text in db.execute("SELECT seq, request_id, outcome FROM rolls")
        }
        count = db.execute("SELECT count(*) FROM rolls").fetchone()[0]
    assert count == len(IDS) and set(rows) == set(IDS)
    firsts: dict[str, int] = {}
    for frames in raw.values():
        assert len(frames) == ROUNDS * len(IDS)
        for frame in frames:
            reply = json.loads(frame)
            assert reply["type"] == "outcome", reply
            rid = reply["outcome"]["id"]
            seq, logged = rows[rid]
            assert reply["seq"] == seq
            assert f'"outcome":{logged}' in frame  # the logged text itself, byte for byte
            if reply["replayed"] is False:
                firsts[rid] = firsts.get(rid, 0) + 1
    assert firsts == dict.fromkeys(IDS, 1)
