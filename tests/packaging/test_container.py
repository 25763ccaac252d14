"""The Dockerfile, kept working without a Docker engine (none runs on this machine or in CI):
its build stage's wheel command and its final stage's pip command are the ones ``conftest.built``
runs, and here the image's entry point runs as it would in the container, with the image's
paths (/data) mapped into a test folder and its port chosen free. What is left unchecked is
Docker's own part: the base images, apt-get in the build stage, useradd, COPY and the volume."""

from __future__ import annotations

import json
import shlex
import socket
import stat
import subprocess
import urllib.request
from pathlib import Path

from websockets.sync.client import connect

from tests.bridge.support import bundled_request, hello_message
from tests.packaging.conftest import Built
from tests.packaging.support import ServeProcess, dockerfile_instructions, outside_env


def instruction(name: str) -> list[str]:
    """The arguments of the final stage's last ``name`` instruction (exec form)."""
    found = [args for kind, args in dockerfile_instructions() if kind == name]
    assert found, f"the Dockerfile has no {name}"
    return json.loads(found[-1]) if found[-1].startswith("[") else shlex.split(found[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def in_test(words: list[str], data: Path, port: int) -> list[str]:
    """An image command with /data under the test's folder, loopback for 0.0.0.0 (this test
    serves no other interface) and ``port`` for 8765."""
    mapped = []
    for word in words:
        word = word.replace("/data", str(data)).replace("8765", str(port))
        mapped.append("127.0.0.1" if word == "0.0.0.0" else word)
    return mapped


def test_the_image_runs_as_an_unprivileged_user_with_its_data_on_a_volume() -> None:
    instructions = dockerfile_instructions()
    stages = [args for kind, args in instructions if kind == "FROM"]
    assert len(stages) == 2 and stages[0].endswith(" AS wheel")
    final = instructions[[i for i, (kind, _) in enumerate(instructions) if kind == "FROM"][-1] :]
    users = [args for kind, args in final if kind == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert json.loads(next(args for kind, args in final if kind == "VOLUME")) == ["/data"]
    # The final stage installs the wheel the first built, and carries no compiler.
    copied = [args for kind, args in final if kind == "COPY"]
    assert copied == ["--from=wheel /wheels/ /wheels/"]
    assert not any("gcc" in args for kind, args in final if kind == "RUN")
    entry = instruction("ENTRYPOINT")
    assert entry[:2] == ["arbiter", "serve"]
    assert entry[entry.index("--data") + 1].startswith("/data/")
    assert entry[entry.index("--module-dir") + 1].startswith("/data/")


def test_the_image_entry_point_serves_outcomes_and_passes_its_healthcheck(
    built: Built, tmp_path: Path
) -> None:
    data, port = tmp_path / "data", free_port()
    data.mkdir(mode=0o700)
    entry = in_test(instruction("ENTRYPOINT"), data, port)
    command = [str(built.bin / entry[0]), *entry[1:], *instruction("CMD")]
    with ServeProcess(command, cwd=data, env=outside_env()) as server:
        [health] = [args for kind, args in dockerfile_instructions() if kind == "HEALTHCHECK"]
        probe = in_test(json.loads(health.split(" CMD ", 1)[1]), data, port)
        checked = subprocess.run(
            [str(built.bin / probe[0]), *probe[1:]], env=outside_env(), timeout=30, check=False
        )
        secret = built.arbiter("token", "--data", str(data / "world")).stdout.strip()
        with connect(server.url) as ws:
            ws.send(json.dumps(hello_message(secret)))
            assert json.loads(ws.recv(10))["type"] == "welcome"
            ws.send(json.dumps(bundled_request("image-1")))
            reply = json.loads(ws.recv(10))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/module.json", timeout=5) as r:
            manifest = json.loads(r.read())
    assert checked.returncode == 0
    assert reply["type"] == "outcome" and reply["outcome"]["id"] == "image-1"
    assert manifest["id"] == "arbiter"
    # Everything the server keeps is under the volume, the world's folder owner-only.
    assert (data / "module" / "arbiter" / "module.json").is_file()
    assert stat.S_IMODE((data / "world").stat().st_mode) == 0o700
    assert sorted(p.name for p in data.iterdir()) == ["module", "world"]
