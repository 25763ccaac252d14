"""Run ``arbiter serve`` in its own process with the tiny test ruleset (for the crash test).

    python -m tests.bridge.serve_tiny DATA RULES [serve options...]

prints ``arbiter serve: ws://127.0.0.1:PORT`` like the real command once it listens.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from bridge.commands import serve
from bridge.engine import registry
from tests.bridge.support import tiny_get_engine, tiny_source


def main(argv: list[str]) -> int:
    registry.get_engine = tiny_get_engine  # type: ignore[assignment]
    parser = argparse.ArgumentParser()
    parser.add_argument("rules_root", type=Path)
    serve.add_arguments(parser)
    args = parser.parse_args(argv)
    config = serve.config_from(args)
    config = replace(config, rules=tiny_source(args.rules_root, args.rules), module_dir=None)
    return serve.serve_config(config)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
