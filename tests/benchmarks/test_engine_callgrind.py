"""The engine's instruction-count benchmark (``benchmarks/engine_callgrind.py``) runs its lines in
this checkout and counts them under callgrind (no figure is asserted beyond being positive:
speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from benchmarks.engine_callgrind import LINES, ROOT, header, per_call, row


def test_every_line_runs_in_this_checkout_outside_callgrind() -> None:
    for line in LINES:
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "benchmarks" / "engine_callgrind.py"),
                "--child",
                line,
                "3",
                "1",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (line, done.stderr)


def test_a_call_costs_a_positive_number_of_instructions_under_callgrind() -> None:
    assert shutil.which("valgrind"), (
        "valgrind is missing: scripts/setup --test installs it (Debian)"
    )
    figure = per_call(ROOT, Path(sys.executable), "interpreted", "full", 1, warmup=0)
    assert figure > 0


def test_the_table_puts_each_tree_beside_the_first_with_its_ratio() -> None:
    assert header([Path("/x/pre18"), Path("/y/now")]).split() == [
        "mode",
        "line",
        "pre18",
        "now",
        "ratio",
    ]
    assert row("interpreted json", [500_000, 550_000]).split() == [
        "interpreted",
        "json",
        "500,000",
        "550,000",
        "1.100",
    ]
