"""Instructions per request of a server under callgrind: the figure the machine's load cannot move.

Run: ``.venv/bin/python benchmarks/bridge_callgrind.py {arbiter,durable} [--root DIR]
[--connections N] [--requests M] [--subscribed] [--references]`` (valgrind must be installed).
``--references``: the exchange names its two stat blocks by reference to blocks the GM stored
first (``benchmarks/bridge.py``'s ``arbiter-ref``).

The server runs under ``valgrind --tool=callgrind`` (``--root``: another checkout's server, run
from that folder); the same client as ``benchmarks/bridge.py`` sends it 300 combat-styles
exchanges to warm up, opens ``N`` new connections, the counters are zeroed (``callgrind_control
-z``), then it sends ``M`` more over them and the counters are dumped (``callgrind_control -d``)
before they close: the dump holds exactly those ``M`` requests (no handshake, hello or close),
server-side, user space (the kernel's share of a socket write is not counted). Printed:
instructions per request, and the dump's path for ``callgrind_annotate --inclusive=yes``
(per-function inclusive costs).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import bridge as bench  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", choices=("arbiter", "durable"))
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--connections", type=int, default=10)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--reply-bytes", type=int, default=900, help="the durable echo's reply")
    parser.add_argument(
        "--subscribed",
        action="store_true",
        help="every connection subscribes to outcome events (arbiter only) and skips them",
    )
    parser.add_argument(
        "--references",
        action="store_true",
        help="the exchange names its stat blocks by reference to blocks the GM stored first",
    )
    args = parser.parse_args()
    bench._load_exchange_body()
    data = Path(tempfile.mkdtemp(prefix="arbiter-callgrind-"))
    out = data / "callgrind.out"
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
    secret: str | None = None
    if args.server == "arbiter":
        serve = [sys.executable, "-m", "arbiter.bridge.cli", "serve", "--data", str(data / "world")]
        bench.Process([*serve, *bench.SERVE_ARGS], args.root.resolve()).stop()  # its secret
        secret = (data / "world" / "world.secret").read_text().strip()
        command = [*valgrind, *serve, *bench.SERVE_ARGS]
    else:
        durable = [sys.executable, str(bench.DURABLE_SERVER), str(args.reply_bytes)]
        command = [*valgrind, *durable, str(data / "durable.sqlite")]
    proc = subprocess.Popen(
        command,
        cwd=args.root.resolve(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    url = next(w for w in proc.stdout.readline().split() if w.startswith("ws://"))
    counter = iter(range(10**9))
    make = bench.combat_styles_exchange
    if args.references:
        make = bench.combat_styles_exchange_by_reference
        if secret is not None:
            asyncio.run(bench.store_blocks(url, secret))

    def frame(_: int) -> str:
        request = make(next(counter))
        return json.dumps({"v": 1, "type": "request", "request": request})

    def control(option: str) -> None:
        subprocess.run(
            ["callgrind_control", option, str(proc.pid)], check=True, capture_output=True
        )

    async def drive(count: int, counted: bool = False) -> None:
        """``count`` requests over fresh connections; ``counted``: only the requests are in the
        dump (the connections open before the counters are zeroed and close after the dump,
        so 100 connections of 10 requests each do not count 100 handshakes and hellos)."""
        events = ("outcome",) if args.subscribed and secret is not None else ()
        sockets = [await bench._open(url, secret, events) for _ in range(args.connections)]
        left = [count]

        async def loop(ws: bench.ClientConnection) -> None:
            while left[0] > 0:
                left[0] -= 1
                await ws.send(frame(0))
                reply = str(await ws.recv())
                while reply.startswith('{"v":1,"type":"event"'):
                    reply = str(await ws.recv())
                if secret is not None and '"type":"outcome"' not in reply:
                    raise RuntimeError(f"not an outcome: {reply[:300]}")

        if counted:
            control("-z")
        await asyncio.gather(*(loop(ws) for ws in sockets))
        if counted:
            control("-d")
        await asyncio.gather(*(ws.close() for ws in sockets))

    try:
        asyncio.run(drive(300))
        asyncio.run(drive(args.requests, counted=True))
        time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(120)
    engine = f"; {bench.engine_of(args.root.resolve())}" if args.server == "arbiter" else ""
    dumps = sorted(glob.glob(f"{out}.{proc.pid}.*"), key=os.path.getmtime)
    for line in Path(dumps[0]).read_text().splitlines():
        if line.startswith("summary:"):
            total = int(line.split()[1])
            print(
                f"{args.server} ({args.root}{engine}), {args.connections} connections"
                f"{', blocks by reference' if args.references else ''}: "
                f"{total / args.requests / 1000:.0f}k instructions per request ({dumps[0]})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
