"""What ``arbiter serve`` can be told (:class:`ServerConfig`), and the TLS context it makes."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.world import PostgresWorld

DEFAULT_LEASE_TTL = 10.0
"""Seconds of a lease on a world (``--lease-ttl``), on the database's clock."""
DEFAULT_IDLE_RELEASE = 600.0
"""Seconds a host keeps a world nobody is connected to (``--idle-release``)."""
DEFAULT_POOL_SIZE = 10
"""PostgreSQL connections a host's worlds share (``--pool-size``): one is held for a group
commit (a few milliseconds), so ten carry ten worlds committing at the same instant. The same
as :data:`arbiter.bridge.stores.postgres_pool.DEFAULT_POOL_SIZE` (not imported: psycopg is
optional)."""


@dataclass(frozen=True)
class Hosting:
    """A host of many worlds in one PostgreSQL database (``--host-id``; docs/scaling.md, "Many
    worlds per host"): it claims each world on its first connection and serves it under a
    lease."""

    dsn: str
    host_id: str
    advertise_url: str | None = None
    """Where clients reach this host (named to them by other hosts' "moved" close); None: the
    address it listens on."""
    lease_ttl: float = DEFAULT_LEASE_TTL
    world: str | None = None
    """The world served at the bare path ``/`` too (``--world``), claimed at start; None:
    worlds only at ``/w/<id>``."""
    idle_release: float | None = DEFAULT_IDLE_RELEASE
    """Seconds a served world may go without any connection before the host releases it
    (``--idle-release``; None: never)."""
    pool_size: int = DEFAULT_POOL_SIZE
    """PostgreSQL connections the served worlds' stores share at most (``--pool-size``)."""


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``arbiter serve`` can be told."""

    data: Path
    """The world's data directory (SQLite), unless :attr:`postgres` names the world."""
    host: str = "127.0.0.1"
    port: int = 8765
    """0 picks a free port (tests); :attr:`ArbiterServer.port` tells which."""
    rules: RuleSource = field(default_factory=RuleSource)
    module_dir: Path | None = None
    """The built module (the folder holding module.json); None: no module routes, no builds."""
    build: bool = True
    """Build the module at start and after every valid rule change."""
    origins: tuple[str, ...] | None = None
    """Allowed Origin headers (``"null"``-less browsers' pages); None allows any origin."""
    limits: Limits = field(default_factory=Limits)
    allow_scripted_dice: bool = False
    reload_interval: float | None = 1.0
    """Seconds between polls of the rule sources; None turns hot rules off."""
    synchronous: Literal["NORMAL", "FULL"] = "NORMAL"
    players_interval: float = 1.0
    """Seconds between reads of the player records (a revoked player is closed within it)."""
    certfile: Path | None = None
    """PEM certificate chain: the port then serves ``wss://`` and ``https://`` (with keyfile)."""
    keyfile: Path | None = None
    """The certificate's PEM private key (None: it is in ``certfile``)."""
    public_url: str | None = None
    """The address Foundry's server fetches the module from (``/module.json``'s ``manifest`` and
    ``download``, and the zip's module.json); None: the address each request came by."""
    postgres: PostgresWorld | None = None
    """The world in a PostgreSQL database (``--store postgresql://… --world ID``); None: the
    SQLite store in :attr:`data`. Open the server with :func:`open_server` then."""
    hosting: Hosting | None = None
    """Serve many worlds of a PostgreSQL database under leases (``--host-id``): run a
    :class:`arbiter.bridge.hosting.WorldHost`, not one server; :attr:`postgres` is None then."""

    def tls_context(self) -> ssl.SSLContext | None:
        """The server's TLS context, or None without a certificate. Raises ``OSError`` (an
        ``ssl.SSLError`` among them) naming the file when it cannot be read."""
        if self.certfile is None:
            return None
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        try:
            context.load_cert_chain(self.certfile, self.keyfile)
        except OSError as err:  # ssl.SSLError included
            why = getattr(err, "reason", None) or err.strerror or str(err)
            raise OSError(
                f"cannot use the certificate {self.certfile} with the key "
                f"{self.keyfile or self.certfile}: {why}"
            ) from err
        return context
