"""Plain HTTP GETs served on the websocket port: ``/healthz``, ``/module.json``, ``/module.zip``.

A GM installs the module by pasting ``http://HOST:PORT/module.json`` into Foundry; its
``download`` points at ``/module.zip`` on the same host (behind a TLS proxy, the
``X-Forwarded-Proto`` and ``X-Forwarded-Prefix`` headers give the public scheme and path). The
``module.json`` inside the zip carries the same ``manifest`` and ``download``: Foundry keeps the
installed copy's manifest, and checks it for updates.
Anything that is not one of these routes and not a websocket upgrade gets 404.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from arbiter.compiler.foundry.zipping import module_zip, published_manifest, with_urls

"""Every zip entry carries this time, so the same module always zips to the same bytes."""


def response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("Access-Control-Allow-Origin", "*"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def json_response(status: HTTPStatus, value: Any) -> Response:
    return response(status, (json.dumps(value, indent=2) + "\n").encode(), "application/json")


def problem(status: HTTPStatus, message: str) -> Response:
    return json_response(status, {"error": message})


@dataclass
class ModuleFiles:
    """The built module folder, zipped on demand (cached until its manifest changes)."""

    folder: Path | None
    _cache_key: tuple[int, int, str] | None = None
    _cache: bytes = b""

    def manifest(self) -> dict[str, Any] | None:
        if self.folder is None:
            return None
        try:
            return json.loads((self.folder / "module.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def zipped(self, base: str = "") -> bytes | None:
        """The module as a zip whose entries sit under the module id's folder; its
        ``module.json`` names ``base`` (the public URL prefix) as its manifest and download."""
        if self.folder is None:
            return None
        try:
            stat = (self.folder / "module.json").stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size, base)
        if key != self._cache_key:
            manifest = self.manifest()
            if manifest is None:
                return None
            published = published_manifest(self.folder, base) if base else None
            self._cache = module_zip(self.folder, published)
            self._cache_key = key
        return self._cache


def public_base(request: Request, scheme: str = "http") -> str:
    """The URL prefix clients reached us by, e.g. ``http://127.0.0.1:8765`` (``scheme``: ours,
    ``https`` when we serve TLS ourselves; a proxy's ``X-Forwarded-Proto`` overrides it)."""
    headers = request.headers
    scheme = headers.get("X-Forwarded-Proto", scheme).split(",")[0].strip() or scheme
    host = headers.get("X-Forwarded-Host") or headers.get("Host") or "127.0.0.1"
    prefix = headers.get("X-Forwarded-Prefix", "").rstrip("/")
    return f"{scheme}://{host}{prefix}"


def routes(
    module: ModuleFiles,
    health: Callable[[], dict[str, Any]],
    public_url: str | None = None,
    tls: bool = False,
) -> Callable[..., Any]:
    """A ``process_request`` hook for ``websockets.asyncio.server.serve``. ``public_url``
    (``arbiter serve --public-url``) is the address every manifest names, whatever the request's
    Host: Foundry's server fetches the manifest and the zip itself, maybe from another machine.
    ``tls``: this port serves TLS itself (``--certfile``), so its own addresses are https."""
    scheme = "https" if tls else "http"

    def base_of(request: Request) -> str:
        return public_url.rstrip("/") if public_url else public_base(request, scheme)

    def process_request(connection: object, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return None
        if path == "/healthz":
            return json_response(HTTPStatus.OK, health())
        if path == "/module.json":
            manifest = module.manifest()
            if manifest is None:
                return problem(
                    HTTPStatus.SERVICE_UNAVAILABLE,
                    "the module has not been built: run `arbiter build` (or restart "
                    "`arbiter serve`, which builds it)",
                )
            return json_response(HTTPStatus.OK, with_urls(manifest, base_of(request)))
        if path == "/module.zip":
            data = module.zipped(base_of(request))
            if data is None:
                return problem(HTTPStatus.SERVICE_UNAVAILABLE, "the module has not been built")
            return response(HTTPStatus.OK, data, "application/zip")
        return problem(
            HTTPStatus.NOT_FOUND,
            f"no route {path!r}: this server answers /healthz, /module.json, /module.zip "
            "and websocket connections",
        )

    return process_request
