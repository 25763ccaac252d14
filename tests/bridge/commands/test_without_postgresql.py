"""Every `arbiter` command but the PostgreSQL ones runs on a plain install, without the
`postgresql` extra (psycopg, psycopg-pool): the CLI imports each command's module, so none of
them may import psycopg at its top (a regression broke every command of a plain install)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
sys.modules["psycopg"] = None  # as if the postgresql extra were not installed
sys.modules["psycopg_pool"] = None
from arbiter.bridge.cli import main
sys.exit(main(sys.argv[1:]))
"""


def arbiter(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def test_a_data_directory_world_is_made_without_psycopg(tmp_path: Path) -> None:
    helped = arbiter("--help", cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "serve" in helped.stdout
    made = arbiter("token", "--data", str(tmp_path / "w"), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert len(made.stdout.strip()) >= 32


def test_a_postgresql_command_without_psycopg_says_what_is_missing(tmp_path: Path) -> None:
    done = arbiter("rules", "show", "--store", "postgresql://x@127.0.0.1:1/x", "--world", "w",
                   cwd=tmp_path)  # fmt: skip
    assert done.returncode != 0
    assert "psycopg" in done.stderr
