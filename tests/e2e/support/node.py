"""Run a module script of the client in node (no browser): for the parts of the Foundry module
that need no Foundry (``connection.mjs``, ``vault.mjs``), driven by a scripted stand-in."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.e2e.support.paths import ROOT

SCRIPTS = ROOT / "templates" / "module" / "scripts"


def script_url(name: str) -> str:
    """The ``file:`` URL a node script imports ``templates/module/scripts/<name>`` by, as JSON."""
    return json.dumps((SCRIPTS / name).as_uri())


def run_node(script: str) -> Any:
    """Run ``script`` as an ES module in node; the JSON it writes to stdout."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return json.loads(done.stdout)
