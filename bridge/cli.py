"""``arbiter``: one command line for the compiler and the server.

Each subcommand lives in its own module exposing ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``; modules are imported only when they exist, so the CLI grows with the code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

COMMANDS: dict[str, str] = {
    "build": "arbiter.compiler.foundry.command",
    "serve": "arbiter.bridge.commands.serve",
    "token": "arbiter.bridge.commands.token",
    "log": "arbiter.bridge.commands.log",
    "reveal": "arbiter.bridge.commands.reveal",
    "replay": "arbiter.bridge.commands.replay",
    "rules": "arbiter.bridge.commands.rules",
}


def _load(module: str) -> ModuleType | None:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module.startswith(err.name):
            return None
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arbiter", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules: dict[str, ModuleType] = {}
    for name, module_name in COMMANDS.items():
        module = _load(module_name)
        if module is None:
            continue
        modules[name] = module
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
    args = parser.parse_args(argv)
    return int(modules[args.command].run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
