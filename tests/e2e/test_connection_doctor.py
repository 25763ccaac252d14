"""The connection doctor tells the browser's own refusals from a server that is down (issue
#14): Chrome's Local Network Access (a public page reaching this machine or the local network
waits for the user's permission, WebSockets included), Safari's refusal of loopback ``ws://``
from an ``https`` page, and mixed content — each with what to do. The module's own
``network-doctor.mjs`` and ``connection.mjs`` run in node with the browser's pieces stubbed: a
WebSocket that closes without ever opening, the page's location, the user agent and
``navigator.permissions``."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.e2e.support.paths import ROOT

SCRIPTS = ROOT / "templates" / "module" / "scripts"
CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36"
OLD_CHROME = CHROME.replace("Chrome/142", "Chrome/130")
SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

DIAL = """
const [page, agent, permission, url] = JSON.parse(process.argv[1]);
globalThis.location = new URL(page);
Object.defineProperty(globalThis, "navigator", { value: {
  userAgent: agent,
  permissions: { query: async ({ name }) => {
    if (permission === null || !["local-network-access", "loopback-network", "local-network"].includes(name)) throw new TypeError(name);
    return { state: permission };
  } },
}, configurable: true });
globalThis.CloseEvent = class extends Event { constructor(type, init) { super(type); Object.assign(this, init); } };
class RefusedSocket extends EventTarget {
  constructor(url) { super(); this.url = url; setTimeout(() => this.dispatchEvent(new CloseEvent("close", { code: 1006 })), 5); }
  send() {} close() {}
}
const { Connection, resolveUrl } = await import(%(connection)s);
const connection = new Connection({ url: () => resolveUrl(url), token: () => "t", client: () => ({}), heartbeatMs: () => 60000, WebSocket: RefusedSocket });
let key = null;
connection.addEventListener("status", (event) => { key = event.detail.problem?.key ?? key; });
connection.start();
await new Promise((r) => setTimeout(r, 50));
connection.stop();
process.stdout.write(JSON.stringify({ key }));
process.exit(0);
"""


def dial(page: str, agent: str, permission: str | None, url: str) -> Any:
    script = DIAL % {"connection": json.dumps((SCRIPTS / "connection.mjs").as_uri())}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, json.dumps([page, agent, permission, url])],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return json.loads(done.stdout)["key"]


@pytest.mark.parametrize(
    ("page", "agent", "permission", "url", "key"),
    [
        # Foundry on a public host, Arbiter on this machine: Chrome's permission decides.
        ("https://vtt.example/game", CHROME, "prompt", "ws://127.0.0.1:8765", "LocalNetworkPrompt"),
        ("https://vtt.example/game", CHROME, "denied", "ws://127.0.0.1:8765", "LocalNetworkDenied"),
        ("https://vtt.example/game", CHROME, None, "ws://localhost:8765", "LocalNetworkPrompt"),
        (
            "http://vtt.example/game",
            CHROME,
            "prompt",
            "ws://192.168.1.20:8765",
            "LocalNetworkPrompt",
        ),
        # Allowed, or an older Chrome without the prompt: the server is what is missing.
        ("https://vtt.example/game", CHROME, "granted", "ws://127.0.0.1:8765", "ServerDown"),
        ("https://vtt.example/game", OLD_CHROME, None, "ws://127.0.0.1:8765", "ServerDown"),
        ("https://vtt.example/game", FIREFOX, None, "ws://127.0.0.1:8765", "ServerDown"),
        # Foundry on this machine too: same address space, nothing to allow.
        ("http://localhost:30000/game", CHROME, "prompt", "ws://127.0.0.1:8765", "ServerDown"),
        # Safari refuses loopback ws:// from https before dialling; mixed content everywhere.
        ("https://vtt.example/game", SAFARI, None, "ws://127.0.0.1:8765", "SafariLoopback"),
        ("https://vtt.example/game", CHROME, "granted", "ws://192.0.2.7:8765", "MixedContent"),
        ("https://vtt.example/game", SAFARI, None, "wss://arbiter.example", "ServerDown"),
    ],
)
def test_the_doctor_names_the_browser_rule_that_refused_the_socket(
    page: str, agent: str, permission: str | None, url: str, key: str
) -> None:
    assert dial(page, agent, permission, url) == key


def test_every_doctor_key_has_a_sentence_that_says_what_to_do() -> None:
    labels = json.loads((ROOT / "templates" / "module" / "lang" / "en.json").read_text())
    assert "Allow" in labels["ARBITER.Doctor.LocalNetworkPrompt"]
    assert "Site settings" in labels["ARBITER.Doctor.LocalNetworkDenied"]
    assert "wss://" in labels["ARBITER.Doctor.SafariLoopback"]
    assert "wss://" in labels["ARBITER.Doctor.MixedContent"]
    status = (SCRIPTS / "status.mjs").read_text()
    for key in ("LocalNetworkPrompt", "LocalNetworkDenied", "SafariLoopback", "MixedContent"):
        assert f'{key}: "ARBITER.Doctor.{key}"' in status
