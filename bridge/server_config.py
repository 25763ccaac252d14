"""What ``arbiter serve`` can be told (:class:`ServerConfig`), and the TLS context it makes."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from arbiter.bridge.limits import Limits
from arbiter.bridge.rules import RuleSource
from arbiter.bridge.world import PostgresWorld


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
