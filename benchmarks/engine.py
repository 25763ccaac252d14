"""Engine speed for every ruleset, each figure beside a baseline measured in the same run.

Run: ``.venv/bin/python benchmarks/engine.py [--seconds S]``. Each ruleset's benchmark lives in
``benchmarks/engine_<ruleset>.py`` and exposes ``run(seconds) -> [(label, value, unit)]``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

RULESETS = ("combat_styles", "hmk", "karmic")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args(argv)
    here = Path(__file__).resolve().parent
    sys.path[:0] = [str(here.parent), str(here)]  # the package bridge, not benchmarks/bridge.py
    from arbiter.bridge import native

    print(native.describe())
    print(f"{'ruleset':<14} {'measure':<58} {'value':>14}  unit")
    for name in RULESETS:
        module = importlib.import_module(f"engine_{name}")
        for label, value, unit in module.run(args.seconds):
            print(f"{name:<14} {label:<58} {value:>14,.1f}  {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
