"""The data directory of one world: its secret and its store.

``world.secret`` is created on first use (random, file mode 0600) and never changes unless the GM
deletes it; clients authenticate with it. ``arbiter.sqlite3`` is the store (see ``store.py``).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_FILE = "world.secret"
STORE_FILE = "arbiter.sqlite3"
DEFAULT_DATA = Path(".arbiter-data")


def prepare(folder: Path) -> Path:
    """Create the data directory (owner-only) if needed; returns it resolved."""
    folder = folder.expanduser().resolve()
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def world_secret(folder: Path) -> str:
    """The world secret, created on first call. Raises OSError when it cannot be read or made."""
    path = prepare(folder) / SECRET_FILE
    if not path.exists():
        token = secrets.token_urlsafe(32)
        # O_EXCL: two servers starting at once must not overwrite each other's secret.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(token + "\n")
    text = path.read_text(encoding="utf-8").strip()
    if not text:
        raise OSError(f"{path} is empty; delete it to create a new world secret")
    return text


def store_path(folder: Path) -> Path:
    return prepare(folder) / STORE_FILE
