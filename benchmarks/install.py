"""Install benchmark: the wall time of installing Arbiter and compiling its engine, before and after.

Each tree measured is exported to a scratch folder: the working tree as it is (``.``) and any
git revision (``--ref main``). For each, in a fresh virtualenv whose build and runtime
dependencies are installed first (untimed, from pip's cache), it times

* ``compile``: ``pip install --no-deps --no-build-isolation -e TREE``, which runs ``setup.py``:
  mypy's analysis and mypyc's C generation, then the C compiler (what ``scripts/setup`` pays
  after an engine edit);

and with ``--setup``, in another fresh copy, ``scripts/setup`` from nothing (no ``.venv``): the
virtualenv, pip's upgrade, the dependencies and the compile (the goal: under 2 minutes on the
2-core machine; pip's cache is warm, as on any second install).

With ``--engine SECONDS`` it then runs ``benchmarks/engine_combat_styles.py --exchanges-only SECONDS`` with each
tree's compiled engine, alternating the trees, ``--rounds`` times: the compiled engines' speeds
side by side (the figure is the full exchange per CPU-second).

Run: ``.venv/bin/python benchmarks/install.py --ref main --ref . [--setup] [--engine 3]``.
Times are wall clock on a machine other processes share: the 1-minute load average is printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUILD_DEPS = ("setuptools>=77", "wheel", "mypy==2.4.1")
RUNTIME_DEPS = ("pydantic>=2.6,<3", "jinja2>=3.1,<4", "websockets>=13,<16", "orjson>=3.9,<4")


@dataclass
class Tree:
    """One tree measured: its label, its exported folder and what was measured on it."""

    label: str
    folder: Path
    venv: Path
    compile_time: Timing | None = None
    setup_time: Timing | None = None
    exchanges: list[int] = field(default_factory=list)


def export(ref: str, target: Path) -> None:
    """Copy ``ref``'s files (``.``: the working tree's tracked and new files) into ``target``."""
    target.mkdir(parents=True)
    if ref == ".":
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=REPO,
            check=True,
            capture_output=True,
        ).stdout.decode()
        for name in filter(None, listed.split("\0")):
            source = REPO / name
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            if source.is_symlink():  # arbiter/bridge and arbiter/compiler link the folders
                (target / name).symlink_to(os.readlink(source))
            elif source.is_file():
                shutil.copy2(source, target / name)
        return
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


@dataclass(frozen=True)
class Timing:
    """Wall time, and the CPU time (user + system) of every process the command ran: on a
    machine other work shares, the CPU time moves less than the wall time."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.wall:.1f} s (CPU {self.cpu:.1f} s)"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Timing:
    """Run ``command``; its timing. Raises with its output when it fails."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return Timing(elapsed, _children_cpu() - cpu)


def prepare(tree: Tree) -> None:
    """A fresh virtualenv holding the build and runtime dependencies (untimed)."""
    run([sys.executable, "-m", "venv", str(tree.venv)], cwd=tree.folder)
    pip = [str(tree.venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    run([*pip, *BUILD_DEPS, *RUNTIME_DEPS], cwd=tree.folder)


def compile_engine(tree: Tree) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARBITER_ENGINE"}
    pip = [str(tree.venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    tree.compile_time = run(
        [*pip, "--no-deps", "--no-build-isolation", "-e", str(tree.folder)], tree.folder, env
    )


def fresh_setup(ref: str, scratch: Path) -> Timing:
    folder = scratch / "setup"
    export(ref, folder)
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_ENGINE", "VIRTUAL_ENV")}
    return run(["scripts/setup"], folder, env)


def engine_rate(tree: Tree, seconds: float) -> int:
    """Full exchanges per CPU-second of this tree's compiled engine."""
    env = {**os.environ, "ARBITER_ENGINE": "compiled"}
    done = subprocess.run(
        [
            str(tree.venv / "bin" / "python"),
            "benchmarks/engine_combat_styles.py",
            "--exchanges-only",
            str(seconds),
        ],
        cwd=tree.folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return round(float(done.stdout.split()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ref",
        action="append",
        default=[],
        help="a git revision to measure (repeat; `.`: the working tree, the default)",
    )
    parser.add_argument("--setup", action="store_true", help="also time a fresh scripts/setup")
    parser.add_argument("--engine", type=float, default=0.0, help="seconds per engine run")
    parser.add_argument("--rounds", type=int, default=3, help="alternating engine runs per tree")
    args = parser.parse_args(argv)
    refs = args.ref or ["."]
    with tempfile.TemporaryDirectory(prefix="arbiter-install-bench-") as scratch_name:
        scratch = Path(scratch_name)
        trees: list[Tree] = []
        for index, ref in enumerate(refs):
            label = "working tree" if ref == "." else ref
            base = scratch / f"t{index}"
            tree = Tree(label, base / "src", base / "venv")
            export(ref, tree.folder)
            prepare(tree)
            compile_engine(tree)
            print(f"{label}: compile {tree.compile_time}", flush=True)
            if args.setup:
                tree.setup_time = fresh_setup(ref, base)
                print(f"{label}: fresh scripts/setup {tree.setup_time}", flush=True)
            trees.append(tree)
        for _ in range(args.rounds if args.engine else 0):
            for tree in trees:
                tree.exchanges.append(engine_rate(tree, args.engine))
        print(f"\nload average (1 min): {os.getloadavg()[0]:.1f}; cores: {os.cpu_count()}")
        print(f"{'tree':<14} {'compile':>24} {'fresh scripts/setup':>24}  exchanges/CPU-s (each)")
        for tree in trees:
            setup = str(tree.setup_time) if tree.setup_time is not None else "-"
            rates = ", ".join(f"{rate:,}" for rate in tree.exchanges) or "-"
            print(f"{tree.label:<14} {tree.compile_time!s:>24} {setup:>24}  {rates}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
