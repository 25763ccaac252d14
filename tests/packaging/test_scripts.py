"""``scripts/run`` (and the ``scripts/setup`` it starts with) on a machine without apt and
without a C compiler: the Debian steps are skipped with a message, the Python steps stand alone,
the engine is installed interpreted with one line saying why, and the server serves."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from websockets.sync.client import connect

from tests.bridge.support import hello_message
from tests.packaging.support import ServeProcess, export_tree, failing_compiler, outside_env

TOOLS = (
    "bash", "env", "dirname", "sha256sum", "cut", "find", "sort", "cat", "grep", "id",
    "rm", "mkdir", "uname", "ls", "sed",
)  # fmt: skip
"""What the scripts call besides Python: coreutils, findutils and grep (no apt-get, no dpkg,
no compiler, no xargs)."""


def bare_path(folder: Path) -> str:
    """A PATH holding only ``TOOLS``, this Python as ``python3``, and failing ``cc``/``gcc``."""
    failing_compiler(folder)
    for tool in TOOLS:
        found = shutil.which(tool)
        if found is not None:
            (folder / tool).symlink_to(found)
    (folder / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    return str(folder)


def test_scripts_run_sets_up_and_serves_on_a_machine_without_apt_or_a_c_compiler(
    tmp_path: Path,
) -> None:
    tree = export_tree(tmp_path / "tree")
    path = bare_path(tmp_path / "bin")
    assert shutil.which("apt-get", path=path) is None and shutil.which("gcc", path=path)
    env = outside_env(PATH=path, CC=str(tmp_path / "bin" / "cc"))
    env["LDSHARED"] = f"{env['CC']} -shared"
    data = tmp_path / "world"
    command = ["scripts/run", "--port", "0", "--data", str(data)]
    with (
        ServeProcess(command, cwd=tree, env=env, timeout=900) as server,
        connect(server.url) as ws,
    ):
        ws.send(json.dumps(hello_message(_secret(tree, data, env))))
        welcome = json.loads(ws.recv(10))
    banner = server.banner
    assert (
        "setup: no apt-get here: skipping the Debian packages of scripts/debian-build-packages.txt (gcc)"
        in banner
    )
    said = [line for line in banner.splitlines() if line.startswith("setup: engine:")]
    assert said == [
        "setup: engine: interpreted (not compiled at install: no working C compiler: "
        "'cc' cannot compile against Python.h)"
    ], banner
    assert welcome["type"] == "welcome", welcome
    assert (tree / "module_output" / "arbiter" / "module.json").is_file()


def _secret(tree: Path, data: Path, env: dict[str, str]) -> str:
    """The world secret, from the ``arbiter token`` the script installed."""
    done = subprocess.run(
        [str(tree / ".venv" / "bin" / "arbiter"), "token", "--data", str(data)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()
