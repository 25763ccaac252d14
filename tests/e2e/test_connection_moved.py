"""The client follows a "moved" close (4010, docs/protocol.md; ``connection.mjs``, docs/client.md
"Connection"), run in node with a scripted socket: it dials the host the reason names, with the
configured path and at once, says its last seq there as it would to the configured address,
goes back to the configured address after anything else, never downgrades ``wss`` to ``ws`` and
does not spin between two hosts that name each other."""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.support.node import run_node, script_url

PRELUDE = """
globalThis.location = new URL(%(page)s);
Object.defineProperty(globalThis, "navigator", { value: { userAgent: "node" }, configurable: true });
globalThis.CloseEvent = class extends Event { constructor(type, init) { super(type); Object.assign(this, init); } };
const sockets = [];
const dialled = [];
class Socket extends EventTarget {
  constructor(url) {
    super(); this.url = url; this.readyState = 0; this.sent = []; sockets.push(this);
    dialled.push([url, Date.now()]);
    setTimeout(() => { this.readyState = 1; this.dispatchEvent(new Event("open")); }, 0);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close(code = 1006, reason = "") {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.dispatchEvent(new CloseEvent("close", { code, reason }));
  }
}
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const deliver = (socket, message) => socket.dispatchEvent(Object.assign(new Event("message"), { data: JSON.stringify(message) }));
const moved = (owner, url) => JSON.stringify(url === undefined ? { owner } : { owner, url });
const { Connection, resolveUrl, movedTo } = await import(%(connection)s);
const connection = new Connection({ url: () => resolveUrl(%(setting)s), token: () => "t", client: () => ({ name: "t" }), heartbeatMs: () => 60000, WebSocket: Socket });
const hello = (socket) => socket.sent.find((m) => m.type === "hello") ?? null;
const out = {};
"""

FOLLOW = """
connection.start();
await tick(); await tick();
let socket = sockets[0];
deliver(socket, { v: 1, type: "welcome", head: 7, rulesets: {} });
deliver(socket, { v: 1, type: "event", event: "outcome", seq: 8, outcome: { id: "a" } });
const asked = connection.request({ id: "r1", ruleset: "x", type: "y", body: {} });
socket.close(4010, moved("b", "ws://127.0.0.1:9002"));
await tick(); await tick();
socket = sockets.at(-1);
out.second = { url: socket.url, since: hello(socket)?.since ?? null, resent: socket.sent.some((m) => m.request?.id === "r1") };
deliver(socket, { v: 1, type: "welcome", head: 9, rulesets: {} });
out.resent = socket.sent.filter((m) => m.type === "request").map((m) => m.request.id);
deliver(socket, { v: 1, type: "outcome", seq: 9, outcome: { id: "r1" } });
out.answer = (await asked).seq;
socket.close(4009, "this server no longer serves the world");
await tick(700); await tick();
socket = sockets.at(-1);
out.third = { url: socket.url, since: hello(socket)?.since ?? null };
// Two hosts naming each other: the second hop waits like any retry.
socket.close(4010, moved("b", "ws://127.0.0.1:9002"));
await tick(); await tick();
socket = sockets.at(-1);
out.fourth = socket.url;
socket.close(4010, moved("c", "ws://127.0.0.1:9003"));
await tick(50);
out.dialsAfterPingPong = sockets.length;
out.status = connection.status;
await tick(1100);
out.fifth = sockets.at(-1).url;
connection.stop();
out.urls = sockets.map((s) => s.url);
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""

REFUSED = """
connection.start();
await tick(); await tick();
sockets[0].close(4010, moved("b", "ws://127.0.0.1:9002"));
await tick(); await tick();
sockets.at(-1).close(4003, "revoked");
await tick();
out.status = connection.status;
connection.start();
await tick(); await tick();
out.urls = sockets.map((s) => s.url);
connection.stop();
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""

REASONS = """
const configured = "wss://arbiter.example.com/w/table%%207";
out.cases = {
  named: movedTo(configured, moved("b", "wss://b.example.com")),
  prefixed: movedTo(configured, moved("b", "wss://b.example.com/arbiter/")),
  behindProxy: movedTo("wss://proxy.example.com/arbiter/w/t", moved("b", "wss://b.example.com")),
  bare: movedTo("wss://a.example.com/", moved("b", "wss://b.example.com")),
  downgrade: movedTo(configured, moved("b", "ws://b.example.com")),
  noUrl: movedTo(configured, moved("b")),
  notJson: movedTo(configured, "moved"),
  notWebSocket: movedTo(configured, moved("b", "javascript:alert(1)")),
  itself: movedTo(configured, moved("a", "wss://arbiter.example.com")),
  mixedContent: movedTo("ws://127.0.0.1:8765/w/t", moved("b", "ws://10.0.0.2:8765")),
};
process.stdout.write(JSON.stringify(out));
process.exit(0);
"""


def run(script: str, page: str, setting: str) -> Any:
    prelude = PRELUDE % {
        "page": json.dumps(page),
        "setting": json.dumps(setting),
        "connection": script_url("connection.mjs"),
    }
    return run_node(prelude + script % {})


def test_a_moved_close_sends_the_client_to_the_named_host_with_its_path_and_last_seq() -> None:
    got = run(FOLLOW, "http://localhost:30000/game", "ws://127.0.0.1:9001/w/table-7")
    # At once, to the named host under the configured path, saying the seq seen at the first.
    assert got["second"] == {"url": "ws://127.0.0.1:9002/w/table-7", "since": 8, "resent": False}
    # Welcomed there: the request still unanswered is sent again with its id.
    assert got["resent"] == ["r1"]
    assert got["answer"] == 9
    # 4009 from the host we were sent to: back to the configured address, seq kept.
    assert got["third"] == {"url": "ws://127.0.0.1:9001/w/table-7", "since": 9}
    assert got["fourth"] == "ws://127.0.0.1:9002/w/table-7"
    # A host we were sent to naming a third is not followed at once (no spinning).
    assert got["dialsAfterPingPong"] == 4
    assert got["status"] == "retrying"
    # ...but after the backoff it is followed.
    assert got["fifth"] == "ws://127.0.0.1:9003/w/table-7"


def test_a_moved_close_is_followed_only_to_an_address_no_weaker_than_the_configured() -> None:
    got = run(REASONS, "https://foundry.example.com/game", "wss://arbiter.example.com/w/t")["cases"]
    assert got["named"] == {
        "from": "wss://arbiter.example.com/w/table%207",
        "url": "wss://b.example.com/w/table%207",
    }
    assert got["prefixed"]["url"] == "wss://b.example.com/arbiter/w/table%207"
    # A proxy's prefix is the proxy's: the named host serves the world at /w/<id>.
    assert got["behindProxy"]["url"] == "wss://b.example.com/w/t"
    assert got["bare"]["url"] == "wss://b.example.com/"
    assert got["downgrade"] is None
    assert got["noUrl"] is None
    assert got["notJson"] is None
    assert got["notWebSocket"] is None
    assert got["itself"] is None
    # From an https page a ws address to another host is mixed content: not followed.
    assert got["mixedContent"] is None


def test_after_a_refusal_at_the_host_it_was_sent_to_the_client_starts_from_the_configured_address() -> (
    None
):
    got = run(REFUSED, "http://localhost:30000/game", "ws://127.0.0.1:9001/w/t")
    assert got["status"] == "refused"
    assert got["urls"] == [
        "ws://127.0.0.1:9001/w/t",
        "ws://127.0.0.1:9002/w/t",
        "ws://127.0.0.1:9001/w/t",
    ]
