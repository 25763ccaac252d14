"""The tiny-rules server in a process of its own, with chosen limits, for tests that measure it.

    python -m tests.security.serving RULES [--send-buffer BYTES] [--close-timeout S] [serve options]

prints ``arbiter serve: ws://127.0.0.1:PORT`` like the real command once it listens.
:class:`ServerProcess` starts it and reads its resident memory from ``/proc``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from arbiter.bridge.commands import serve
from arbiter.bridge.engine import registry
from arbiter.bridge.limits import Limits
from tests.bridge.serving import ServeProcess
from tests.bridge.support import tiny_get_engine, tiny_source


def main(argv: list[str]) -> int:
    registry.get_engine = tiny_get_engine  # type: ignore[assignment]
    parser = argparse.ArgumentParser()
    parser.add_argument("rules_root", type=Path)
    parser.add_argument("--send-buffer", type=int, default=Limits.max_send_buffer_bytes)
    parser.add_argument("--close-timeout", type=float, default=Limits.close_timeout_seconds)
    serve.add_arguments(parser)
    args = parser.parse_args(argv)
    config = serve.config_from(args)
    limits = replace(
        config.limits,
        max_send_buffer_bytes=args.send_buffer,
        close_timeout_seconds=args.close_timeout,
    )
    config = replace(
        config, rules=tiny_source(args.rules_root, args.rules), module_dir=None, limits=limits
    )
    return serve.serve_config(config)


class ServerProcess(ServeProcess):
    """``python -m tests.security.serving`` running; ``url`` is where it listens."""

    def __init__(self, data: Path, rules: Path, *options: str) -> None:
        super().__init__(
            [sys.executable, "-m", "tests.security.serving", str(rules)], data, *options
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
