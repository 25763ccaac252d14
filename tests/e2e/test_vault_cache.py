"""The GM's vault reads stored stat blocks anew once its browser stopped holding the world's
connection (``vault.mjs``, docs/client.md), run in node with a scripted connection: while
another GM's browser holds the connection (or it is down) that GM may store a new version of a
block, so a block read before is neither shown nor sent by reference afterwards: the server is
asked again, and the request carries what it answers."""

from __future__ import annotations

from typing import Any

from tests.e2e.support.node import run_node, script_url

SCRIPT = """
globalThis.foundry = { utils: { randomID: () => Math.random().toString(36).slice(2, 18) } };
const { createVault } = await import(%(vault)s);
const stored = { orm: { id: "orm", name: "Orm", ml: 60 } };
const asked = [];
const connection = {
  status: "open",
  welcome: { you: { gm: true } },
  async control(message) {
    asked.push(message.participant);
    return { stat_block: structuredClone(stored[message.participant]) };
  },
};
let connector = true;
const vault = createVault({ module: "arbiter", i18n: (k) => k, connection: () => (connector ? connection : null), isGM: () => true });
const out = {};
out.first = await vault.get("hmk", "orm");
out.firstSent = vault.referenced("hmk", { defender: out.first });
// Another GM's browser becomes the active GM and stores a new Orm.
connector = false;
stored.orm = { id: "orm", name: "Orm", ml: 75 };
out.whileAway = await vault.get("hmk", "orm");
out.awaySent = vault.referenced("hmk", { defender: { id: "orm", name: "Orm", ml: 60 } });
// This browser is the active GM again, its connection never closed (no new welcome).
connector = true;
out.staleSent = vault.referenced("hmk", { defender: { id: "orm", name: "Orm", ml: 60 } });
out.again = await vault.get("hmk", "orm");
out.againSent = vault.referenced("hmk", { defender: out.again });
// Away again with no call meanwhile, and back under a new welcome: read anew.
connector = false;
stored.orm = { id: "orm", name: "Orm", ml: 80 };
connection.welcome = { you: { gm: true } };
connector = true;
out.quietSent = vault.referenced("hmk", { defender: out.again });
out.quiet = await vault.get("hmk", "orm");
out.asked = asked;
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""


def run() -> Any:
    return run_node(SCRIPT % {"vault": script_url("vault.mjs")})


def test_a_block_read_before_another_gm_held_the_connection_is_read_anew_not_referenced() -> None:
    got = run()
    old = {"id": "orm", "name": "Orm", "ml": 60}
    assert got["first"] == old
    assert got["firstSent"] == {"defender": {"id": "orm", "stored": True}}
    # Not this browser's connection: nothing read, nothing sent by reference.
    assert got["whileAway"] is None
    assert got["awaySent"] == {"defender": old}
    # Back, with no new welcome: the old block is not taken for the stored one...
    assert got["staleSent"] == {"defender": old}
    # ...the server is asked again, and the new block is the one referenced.
    assert got["again"] == {"id": "orm", "name": "Orm", "ml": 75}
    assert got["againSent"] == {"defender": {"id": "orm", "stored": True}}
    # Away with no call meanwhile, back under another welcome: not taken for the stored one.
    assert got["quietSent"] == {"defender": {"id": "orm", "name": "Orm", "ml": 75}}
    assert got["quiet"] == {"id": "orm", "name": "Orm", "ml": 80}
    assert got["asked"] == ["orm", "orm", "orm"]
