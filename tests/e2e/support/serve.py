"""Run the real ``arbiter serve`` code path with the ``duel`` test ruleset's engine registered.

``python -m tests.e2e.support.serve --port P --data DIR --rules ROOT`` serves ``ROOT/duel``
through ``bridge.commands.serve.serve_config`` (the function ``arbiter serve`` runs), so the
e2e tests can kill and restart it like the real command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bridge.commands.serve import serve_config
from bridge.engine import registry
from bridge.limits import Limits
from bridge.rules import RuleSource
from bridge.server import ServerConfig
from tests.e2e.support.duel import RULESET, DuelRules, get_engine


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rules", type=Path, required=True)
    parser.add_argument("--rate", type=float, default=Limits.rate_per_second)
    parser.add_argument("--burst", type=int, default=Limits.burst)
    parser.add_argument("--reload-interval", type=float, default=0.2)
    args = parser.parse_args()
    registry.get_engine = get_engine
    config = ServerConfig(
        data=args.data,
        port=args.port,
        rules=RuleSource(root=args.rules, models={RULESET: DuelRules}),
        module_dir=None,
        build=False,
        limits=Limits(rate_per_second=args.rate, burst=args.burst),
        reload_interval=args.reload_interval or None,
    )
    return serve_config(config)


if __name__ == "__main__":
    raise SystemExit(main())
