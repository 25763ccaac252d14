"""The client's side of the gap replay (``connection.mjs``, docs/client.md "Connection"), run in
node with a scripted socket: the hello of a reconnect says the greatest seq seen as ``since``;
an event seen already, or a replayed event of a request still queued (its own answer follows),
is not handed on; a ``since`` the server refuses, or a gap too large to replay, starts over from
what the server says."""

from __future__ import annotations

from typing import Any

from tests.e2e.support.node import run_node, script_url

SCRIPT = """
globalThis.location = new URL("http://localhost:30000/game");
Object.defineProperty(globalThis, "navigator", { value: { userAgent: "node" }, configurable: true });
globalThis.CloseEvent = class extends Event { constructor(type, init) { super(type); Object.assign(this, init); } };
const sockets = [];
class Socket extends EventTarget {
  constructor(url) {
    super(); this.url = url; this.readyState = 0; this.sent = []; sockets.push(this);
    setTimeout(() => { this.readyState = 1; this.dispatchEvent(new Event("open")); }, 0);
  }
  send(text) { this.sent.push(JSON.parse(text)); }
  close() { if (this.readyState === 3) return; this.readyState = 3; this.dispatchEvent(new CloseEvent("close", { code: 1006 })); }
}
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));
const deliver = (socket, message) => socket.dispatchEvent(Object.assign(new Event("message"), { data: JSON.stringify(message) }));
const welcome = (head) => ({ v: 1, type: "welcome", head, rulesets: {} });
const event = (seq, id, replayed) => ({ v: 1, type: "event", event: "outcome", seq, ...(replayed ? { replayed } : {}), outcome: { id } });
const { Connection, resolveUrl } = await import(%(connection)s);
const connection = new Connection({ url: () => resolveUrl("127.0.0.1:8765"), token: () => "t", client: () => ({ name: "t" }), heartbeatMs: () => 60000, WebSocket: Socket });
const heard = [];
connection.addEventListener("event", ({ detail }) => heard.push(detail.event === "outcome" ? [detail.seq, detail.outcome.id, detail.replayed ?? false] : [detail.event, detail.head]));
const reconnect = async (socket) => { socket.close(); await tick(700); await tick(); return sockets.at(-1); };
const hellos = () => sockets.map((s) => s.sent.find((m) => m.type === "hello")?.since ?? null);
const steps = {};

connection.start();
await tick(); await tick();
let socket = sockets[0];
deliver(socket, welcome(5));
deliver(socket, event(6, "a"));
deliver(socket, event(6, "a"));  // the same event again: not handed on
const answered = connection.request({ id: "mine", ruleset: "x", type: "y", body: {} });
steps.first = connection.lastSeq;

socket = await reconnect(socket);
deliver(socket, welcome(9));
deliver(socket, event(7, "b", true));
deliver(socket, event(8, "mine", true));  // queued here: its own answer follows
deliver(socket, event(9, "c", true));
deliver(socket, { v: 1, type: "outcome", seq: 8, replayed: true, outcome: { id: "mine" } });
steps.answer = (await answered).seq;
deliver(socket, event(10, "d"));
steps.second = connection.lastSeq;

socket = await reconnect(socket);
deliver(socket, welcome(3));  // a log restored from a backup: the server is behind us
deliver(socket, { v: 1, type: "error", id: null, code: "invalid_message", message: "since: 10 is beyond the last outcome of this world's log (3)" });
deliver(socket, event(4, "e"));
steps.restored = connection.lastSeq;

socket = await reconnect(socket);
deliver(socket, welcome(900));
deliver(socket, { v: 1, type: "event", event: "gap_too_large", since: 4, head: 900, limit: 500, message: "…" });
deliver(socket, event(901, "f"));
steps.gap = connection.lastSeq;
connection.stop();
process.stdout.write(JSON.stringify({ hellos: hellos(), heard, steps }));
process.exit(0);
"""


def run() -> Any:
    return run_node(SCRIPT % {"connection": script_url("connection.mjs")})


def test_the_client_says_its_last_seq_on_reconnect_and_hands_on_each_outcome_event_once() -> None:
    got = run()
    # The first hello has nothing to say; each reconnect says the greatest seq seen.
    assert got["hellos"] == [None, 6, 10, 4]
    assert got["heard"] == [
        [6, "a", False],
        [7, "b", True],
        [9, "c", True],
        [10, "d", False],
        [4, "e", False],
        ["gap_too_large", 900],
        [901, "f", False],
    ]
    assert got["steps"] == {"first": 6, "answer": 8, "second": 10, "restored": 4, "gap": 901}
