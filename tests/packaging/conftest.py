"""One distribution for every packaging test: an sdist of the working tree, the wheel built from
its contents with the Dockerfile's own build command on a machine without a C compiler, and a
fresh virtualenv outside the checkout with that wheel installed by the Dockerfile's own pip
command. Built once per test session (it takes about a minute)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.packaging.support import (
    dockerfile_instructions,
    export_tree,
    failing_compiler,
    outside_env,
    run_steps,
)


class Built:
    """What the fixture made: the sdist, the wheel, the wheel build's output and the venv."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dist = root / "dist"
        self.wheels = root / "wheels"
        self.venv = root / "venv"
        self.elsewhere = root / "elsewhere"
        self.build_log = ""

    @property
    def sdist(self) -> Path:
        return next(self.dist.glob("*.tar.gz"))

    @property
    def wheel(self) -> Path:
        return next(self.wheels.glob("*.whl"))

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def arbiter(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """The installed ``arbiter`` run from a folder outside the checkout."""
        return subprocess.run(
            [str(self.bin / "arbiter"), *args],
            cwd=self.elsewhere,
            env=outside_env(),
            capture_output=True,
            text=True,
            check=check,
            timeout=300,
        )


def _docker_path(words: list[str], built: Built) -> list[str]:
    """A Dockerfile command with its image paths mapped into the test's folder."""
    mapped = []
    for word in words:
        if word == "/wheels/*.whl":
            mapped.append(str(built.wheel))
        else:
            mapped.append(word.replace("/wheels", str(built.wheels)))
    return mapped


@pytest.fixture(scope="package")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    made = Built(tmp_path_factory.mktemp("distribution"))
    made.elsewhere.mkdir()
    tree = export_tree(made.root / "tree")
    env = {**outside_env(), **failing_compiler(made.root / "no-cc")}
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(made.dist)],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    # The image's build context is the sources: here, the sdist's contents.
    source = made.root / "src"
    with tarfile.open(made.sdist) as archive:
        archive.extractall(source, filter="data")
    [context] = list(source.iterdir())
    instructions = dockerfile_instructions(context / "Dockerfile")
    [build] = [w for w in run_steps(instructions, "python") if w[1:3] == ["-m", "build"]]
    # No network for an isolated build environment here: this test's Python has the build's
    # requirements (the dev extras).
    command = [sys.executable, *_docker_path(build[1:], made), "--no-isolation"]
    done = subprocess.run(
        command, cwd=context, env=env, capture_output=True, text=True, timeout=600
    )
    made.build_log = done.stdout + done.stderr
    assert done.returncode == 0, f"{shlex.join(command)}:\n{made.build_log}"
    subprocess.run([sys.executable, "-m", "venv", str(made.venv)], check=True, timeout=300)
    [install] = [w for w in run_steps(instructions, "pip") if any(".whl" in x for x in w)]
    subprocess.run(
        [str(made.bin / "python"), "-m", *_docker_path(install, made)],
        cwd=made.elsewhere,
        env=outside_env(),
        check=True,
        capture_output=True,
        timeout=600,
    )
    yield made
