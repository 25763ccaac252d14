"""``arbiter serve``: build the module if stale and serve rolls over websockets."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import urllib.parse
from pathlib import Path

from arbiter.bridge import datadir, native
from arbiter.bridge.building import DEFAULT_MODULE_DIR
from arbiter.bridge.host_paths import check_reason_fits
from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.server import LOOPBACK, ServerConfig, open_server
from arbiter.bridge.server_config import (
    DEFAULT_IDLE_RELEASE,
    DEFAULT_LEASE_TTL,
    DEFAULT_POOL_SIZE,
    Hosting,
)
from arbiter.bridge.world import PostgresWorld, add_store_arguments, redact, where_from
from arbiter.compiler.errors import RuleError
from arbiter.compiler.model.loader import RULES_ROOT

HELP = "serve rolls to Foundry over websockets (and the module at /module.json)"


TLS_ADVICE = """\
arbiter serve: listening beyond loopback on {host}:{port} without TLS.
  Browsers on https pages refuse ws:// to other hosts, and the world secret would cross the
  network in clear text. Serve TLS yourself (--certfile F --keyfile F), or put the server
  behind the same TLS reverse proxy as Foundry (docs/hosting.md), e.g. Caddy:
      example.com {{
          handle_path /arbiter/* {{
              reverse_proxy 127.0.0.1:{port}
          }}
          reverse_proxy 127.0.0.1:30000
      }}
  and point the module at wss://example.com/arbiter/ (nginx: a location with
  proxy_http_version 1.1 and the Upgrade/Connection headers; set X-Forwarded-Proto and
  X-Forwarded-Prefix so /module.json advertises the public URL)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 = any free)")
    add_store_arguments(
        parser, "world data directory: secret and roll log (default ./.arbiter-data)"
    )
    parser.add_argument("--rules", type=Path, default=None, help="house-rule folder to overlay")
    parser.add_argument(
        "--module-dir",
        type=Path,
        default=DEFAULT_MODULE_DIR,
        help="where the module is built and served from (default: the project's "
        "module_output/arbiter)",
    )
    parser.add_argument(
        "--no-build", action="store_true", help="do not build the module at start or on change"
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="allowed browser Origin, e.g. http://localhost:30000 (repeat; default any)",
    )
    parser.add_argument("--rate", type=float, default=Limits.rate_per_second, help="messages/s")
    parser.add_argument("--burst", type=int, default=Limits.burst, help="burst of messages")
    parser.add_argument(
        "--reload-interval",
        type=float,
        default=1.0,
        help="seconds between checks of the rule files (0 turns hot rules off)",
    )
    parser.add_argument(
        "--durable",
        action="store_true",
        help="fsync every roll (survives power loss, not just a crash; slower)",
    )
    parser.add_argument(
        "--allow-scripted-dice",
        action="store_true",
        help="TESTS ONLY: accept dice results sent by clients",
    )
    parser.add_argument(
        "--certfile",
        type=Path,
        default=None,
        help="PEM certificate (chain): serve wss:// and https:// on the same port",
    )
    parser.add_argument(
        "--keyfile", type=Path, default=None, help="PEM private key of --certfile (if separate)"
    )
    parser.add_argument(
        "--public-url",
        type=public_url,
        default=None,
        metavar="URL",
        help="where Foundry's server fetches the module, e.g. https://arbiter.example.com "
        "(/module.json's manifest and download, and the zip's module.json, name it; "
        "default: the address each request came by)",
    )
    parser.add_argument(
        "--host-id",
        default=None,
        metavar="ID",
        help="serve many worlds of a PostgreSQL --store, each at /w/<world id>, claiming each "
        "under a lease on its first connection; ID names this host to the others "
        "(docs/scaling.md). --world ID is then also served at /",
    )
    parser.add_argument(
        "--advertise-url",
        default=None,
        metavar="URL",
        help="with --host-id: where clients reach this host, named to them by other hosts "
        "(close 4010, 'moved'), e.g. wss://arbiter-3.example.com (default: the address it "
        "listens on)",
    )
    parser.add_argument(
        "--lease-ttl",
        type=float,
        default=DEFAULT_LEASE_TTL,
        metavar="SECONDS",
        help=f"with --host-id: each world's lease, on the database's clock (default "
        f"{DEFAULT_LEASE_TTL:g}); renewed every third of it, and a dead host's worlds are "
        "claimed elsewhere after it",
    )
    parser.add_argument(
        "--cache-rows",
        type=int,
        default=None,
        metavar="N",
        help="with a PostgreSQL --store: the most recent rows of each world held whole in "
        "memory (default 1000); every request id is held, older rows are read from the "
        "database when a resend or a reconnect needs them (docs/scaling.md)",
    )
    parser.add_argument(
        "--idle-release",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"with --host-id: release a world no connection has used for this long (default "
        f"{DEFAULT_IDLE_RELEASE:g}; 0: never)",
    )
    parser.add_argument(
        "--pool-size",
        type=int,
        default=None,
        metavar="N",
        help=f"with --host-id: PostgreSQL connections the worlds served share at most (default "
        f"{DEFAULT_POOL_SIZE}; the host holds four more: claims, renewals, player records, world rules)",
    )
    parser.add_argument("--quiet", action="store_true", help="log warnings only")


def public_url(text: str) -> str:
    """``--public-url``: an absolute http(s) URL without query or fragment; no final slash."""
    parsed = urllib.parse.urlsplit(text.strip())
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an http:// or https:// address (e.g. https://arbiter.example.com)"
        )
    if parsed.query or parsed.fragment:
        raise argparse.ArgumentTypeError(f"{text!r}: no query (?…) or fragment (#…), please")
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))


def config_from(args: argparse.Namespace, rules_root: Path = RULES_ROOT) -> ServerConfig:
    """The server's config; raises ValueError when the options contradict each other."""
    limits = Limits(rate_per_second=args.rate, burst=args.burst)
    hosting = hosting_from(args)
    where = where_from(args) if hosting is None else datadir.DEFAULT_DATA
    return ServerConfig(
        data=where if isinstance(where, Path) else datadir.DEFAULT_DATA,
        postgres=where if isinstance(where, PostgresWorld) else None,
        hosting=hosting,
        host=args.host,
        port=args.port,
        rules=RuleSource(root=rules_root, overlay=args.rules),
        module_dir=args.module_dir,
        build=not args.no_build,
        origins=tuple(args.allow_origin) if args.allow_origin else None,
        limits=limits,
        allow_scripted_dice=args.allow_scripted_dice,
        reload_interval=args.reload_interval or None,
        synchronous="FULL" if args.durable else "NORMAL",
        certfile=args.certfile,
        keyfile=args.keyfile,
        public_url=args.public_url,
    )


def hosting_from(args: argparse.Namespace) -> Hosting | None:
    """The host of many worlds ``--host-id`` asks for (None without it); raises ValueError
    when the options contradict it."""
    host_id = getattr(args, "host_id", None)
    if host_id is None:
        if args.advertise_url is not None:
            raise ValueError("--advertise-url is for a host of many worlds: give --host-id too")
        if args.lease_ttl != DEFAULT_LEASE_TTL:
            raise ValueError("--lease-ttl is for a host of many worlds: give --host-id too")
        if args.idle_release is not None:
            raise ValueError("--idle-release is for a host of many worlds: give --host-id too")
        if getattr(args, "pool_size", None) is not None:
            raise ValueError("--pool-size is for a host of many worlds: give --host-id too")
        return None
    if not isinstance(args.store, str):
        raise ValueError("--host-id serves worlds of a PostgreSQL --store postgresql://…")
    if args.data is not None:
        raise ValueError("--data is for a data directory: drop it with a PostgreSQL --store")
    if not host_id.strip() or not host_id.isprintable():
        raise ValueError(f"--host-id {host_id!r}: give a printable, non-empty name")
    if args.lease_ttl <= 0:
        raise ValueError(f"--lease-ttl {args.lease_ttl:g}: a lease needs a positive length")
    idle = DEFAULT_IDLE_RELEASE if args.idle_release is None else args.idle_release
    if idle < 0:
        raise ValueError(f"--idle-release {idle:g}: give seconds, or 0 for never")
    pool_size = getattr(args, "pool_size", None)
    pool_size = DEFAULT_POOL_SIZE if pool_size is None else pool_size
    if pool_size < 1:
        raise ValueError(f"--pool-size {pool_size}: the worlds need at least one connection")
    if args.advertise_url is not None:
        parsed = urllib.parse.urlsplit(args.advertise_url)
        if parsed.scheme not in ("ws", "wss", "http", "https") or not parsed.hostname:
            raise ValueError(
                f"--advertise-url {args.advertise_url!r}: give a ws:// or wss:// address"
            )
        check_reason_fits(host_id, args.advertise_url)
    return Hosting(
        dsn=args.store,
        host_id=host_id,
        advertise_url=args.advertise_url,
        lease_ttl=args.lease_ttl,
        world=args.world,
        idle_release=idle or None,
        pool_size=pool_size,
    )


class HttpAnswersFilter(logging.Filter):
    """Drops websockets' "connection rejected (200 OK)" lines: websockets logs every plain HTTP
    answer (``/healthz``, ``/module.json``, ``/module.zip``) as a rejected websocket, which reads
    like a failure to a GM watching the console. Real refusals (4xx, 5xx) are kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "connection rejected (%d %s)" or not isinstance(record.args, tuple):
            return True
        status = record.args[0] if record.args else None
        return not (isinstance(status, int) and status < 400)


def run(args: argparse.Namespace) -> int:
    if args.keyfile is not None and args.certfile is None:
        print(
            "arbiter serve: --keyfile needs --certfile (the certificate it is the key of)",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    logging.getLogger("websockets.server").addFilter(HttpAnswersFilter())
    try:
        config = config_from(args)
        cache_rows(args)
    except ValueError as err:
        print(f"arbiter serve: {err}", file=sys.stderr)
        return 2
    return serve_config(config)


def cache_rows(args: argparse.Namespace) -> None:
    """``--cache-rows``: the rows each PostgreSQL world holds whole (every store opened from now
    on); raises ValueError without a PostgreSQL store or for a negative count."""
    rows = getattr(args, "cache_rows", None)
    if rows is None:
        return
    if not isinstance(args.store, str):
        raise ValueError("--cache-rows is for worlds in PostgreSQL: give --store postgresql://…")
    from arbiter.bridge.stores.postgres import set_default_cache_rows

    set_default_cache_rows(rows)


def serve_config(config: ServerConfig) -> int:
    """Run a server until SIGINT/SIGTERM; prints where it listens. Exit status."""
    try:
        return asyncio.run(_serve(config))
    except RuleError as err:
        print(err.report(), file=sys.stderr)
        return 2
    except OSError as err:
        print(f"arbiter serve: {err}", file=sys.stderr)
        return 2
    except Exception as err:
        if type(err).__module__.startswith("psycopg"):
            # The PostgreSQL store cannot be reached or refuses us: say so, no traceback.
            print(f"arbiter serve: the PostgreSQL store: {err}", file=sys.stderr)
            return 2
        raise


def _signalled() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM (where the loop can handle signals)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def _serve(config: ServerConfig) -> int:
    if config.hosting is not None:
        return await _host(config, config.hosting)
    server = await open_server(config)
    try:
        await server.start()
    except BaseException:
        await server.close()
        raise
    stop = _signalled()
    host = config.host
    tls = config.certfile is not None
    if host not in LOOPBACK and not tls:
        print(TLS_ADVICE.format(host=host, port=server.port), file=sys.stderr)
    served = ", ".join(f"{k} {v.version}" for k, v in server.rules.info().items()) or "none"
    # A wildcard address is where we listen, not where to connect: show loopback for this machine.
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)
    shown = f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown
    ws, http = ("wss", "https") if tls else ("ws", "http")
    print(f"arbiter serve: {ws}://{shown}:{server.port} (rulesets: {served})", flush=True)
    if server.rules.skipped:
        print(f"  not served (no engine yet): {', '.join(server.rules.skipped)}", flush=True)
    if config.module_dir is not None:
        base = config.public_url or f"{http}://{shown}:{server.port}"
        print(f"  module manifest: {base}/module.json", flush=True)
    if config.postgres is not None:
        world = f"--store {config.postgres.shown()} --world {config.postgres.world}"
        print(f"  world {config.postgres.world!r} in {config.postgres.shown()}", flush=True)
        print(f"  world secret (the GM's): `arbiter token {world}`", flush=True)
    else:
        print(f"  world secret (the GM's): `arbiter token --data {config.data}`", flush=True)
        print(
            f"  a player's token: `arbiter token --data {config.data} --player NAME "
            "--participant ID`",
            flush=True,
        )
    print(f"  {native.describe()}", flush=True)
    if config.allow_scripted_dice:
        print("  WARNING: scripted dice allowed (tests only)", flush=True)
    stopped = asyncio.create_task(stop.wait())
    lost = asyncio.create_task(server.lost.wait())
    try:
        await asyncio.wait((stopped, lost), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
        lost.cancel()
        await server.close()
    if server.stale is not None:
        print(f"arbiter serve: stopped: {server.stale}", file=sys.stderr)
        return 3
    return 0


async def _host(config: ServerConfig, hosting: Hosting) -> int:
    """Run a host of many worlds until SIGINT/SIGTERM, then release its worlds."""
    from arbiter.bridge.hosting import WorldHost

    host = WorldHost(config)
    try:
        await host.start()
    except BaseException:
        await host.close()
        raise
    stop = _signalled()
    tls = config.certfile is not None
    if config.host not in LOOPBACK and not tls:
        print(TLS_ADVICE.format(host=config.host, port=host.port), file=sys.stderr)
    served = ", ".join(f"{k} {v.version}" for k, v in host.rules.info().items()) or "none"
    url = host.listening_url()
    print(f"arbiter serve: {url} (rulesets: {served})", flush=True)
    assert host.owner is not None
    print(
        f"  host {hosting.host_id!r} serving worlds of {redact(hosting.dsn)} at {url}/w/<world id>"
        f" (advertised as {host.owner.advertise_url}; leases of {hosting.lease_ttl:g} s)",
        flush=True,
    )
    if hosting.world is not None:
        print(f"  world {hosting.world!r} also at {url}/", flush=True)
    if config.module_dir is not None:
        base = config.public_url or url.replace("ws", "http", 1)
        print(f"  module manifest: {base}/module.json", flush=True)
    print(
        f"  a world's secret (the GM's): `arbiter token --store {redact(hosting.dsn)} --world ID`",
        flush=True,
    )
    print(f"  {native.describe()}", flush=True)
    if config.allow_scripted_dice:
        print("  WARNING: scripted dice allowed (tests only)", flush=True)
    try:
        await stop.wait()
    finally:
        await host.close()
    return 0
