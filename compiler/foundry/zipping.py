"""The module as Foundry installs it from a zip: one folder holding ``module.json``.

Both the build's ``--zip`` and the server's ``/module.zip`` route write it, so both give the
same bytes for the same module: entries sorted, dated 1980-01-01 (the earliest date a zip can
hold) and ``0644``. A module published at a URL carries that URL in its zipped ``module.json``
as ``manifest`` and ``download``: Foundry keeps the installed copy's manifest and checks it for
updates.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def with_urls(manifest: dict[str, Any], base: str) -> dict[str, Any]:
    """The manifest as published from ``base``: ``manifest`` and ``download`` URLs added."""
    base = base.rstrip("/")
    return {**manifest, "manifest": f"{base}/module.json", "download": f"{base}/module.zip"}


def published_manifest(module_dir: Path, base: str) -> bytes:
    """``module_dir``'s ``module.json`` as published from ``base``, in the build's format
    (two-space JSON, UTF-8, final newline)."""
    manifest = json.loads((module_dir / "module.json").read_bytes())
    return (json.dumps(with_urls(manifest, base), indent=2, ensure_ascii=False) + "\n").encode()


def write_module_zip(module_dir: Path, out: BinaryIO, manifest: bytes | None = None) -> None:
    """Write the zip of ``module_dir`` (entries under ``module_dir.name/``) to ``out``;
    ``manifest``, when given, is the zipped ``module.json`` in place of the file's own."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in module_dir.rglob("*") if p.is_file()):
            rel = path.relative_to(module_dir).as_posix()
            info = zipfile.ZipInfo(f"{module_dir.name}/{rel}", ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            data = manifest if rel == "module.json" and manifest is not None else path.read_bytes()
            archive.writestr(info, data)


def module_zip(module_dir: Path, manifest: bytes | None = None) -> bytes:
    """The zip :func:`write_module_zip` writes, as bytes."""
    buffer = io.BytesIO()
    write_module_zip(module_dir, buffer, manifest)
    return buffer.getvalue()
