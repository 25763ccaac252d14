"""A world's own rules in its PostgreSQL database (schema 3, docs/scaling.md "A world's own
rules").

What a GM publishes is a house-rule folder, the one ``arbiter build --rules DIR`` lays over the
bundled rules: its files ``<ruleset>/<name>.toml``, as text. They are stored once per
:attr:`RuleSources.hash` in ``rule_sets (hash, sources, published)``, and a world names the
ones it is served with in ``worlds.rules`` (null: the host's ``--rules``).

The hash is of the **sources** (every file's path and text), not of the compiled rules
(``RulesSnapshot.info()``'s per-ruleset hashes): it can be computed without compiling, it names
exactly what is stored, and it does not move when a host's bundled rules differ from the
publisher's (the compiled hash would, so a key computed at publish time could disagree with the
rules a host compiles from the same files). The per-ruleset hashes the protocol carries
(``welcome``, ``rules_updated``, each row's ``rules_hash``) stay the compiled ones.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import psycopg

from arbiter.bridge.stores.postgres_schema import install

SOURCE_PATH = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*/[^/\\\x00]+\.toml")
"""What a stored source's path may be: ``<ruleset>/<name>.toml``, one folder deep, no ``..``."""

LOCK_WAIT = "5s"
"""How long pointing a world at rules waits for its row (its host's group commit holds it for a
commit's length; a host stopped half-way through one would hold it until claimed away)."""


class UnsafeSource(ValueError):
    """A stored source path that is not ``<ruleset>/<name>.toml``."""


@dataclass(frozen=True)
class RuleSources:
    """A house-rule folder's files, by path relative to it (``combat-styles/tables.toml``)."""

    files: Mapping[str, str]

    def __post_init__(self) -> None:
        for path in self.files:
            if SOURCE_PATH.fullmatch(path) is None:
                raise UnsafeSource(f"{path!r} is not a rule source path (<ruleset>/<name>.toml)")
        object.__setattr__(self, "files", MappingProxyType(dict(sorted(self.files.items()))))

    @property
    def hash(self) -> str:
        """Hex SHA-256 of the canonical JSON of every (path, text): the key they are stored by."""
        return hashlib.sha256(self.encoded().encode("utf-8")).hexdigest()

    def encoded(self) -> str:
        """The canonical JSON stored in ``rule_sets.sources`` (keys sorted, compact)."""
        return json.dumps(dict(self.files), sort_keys=True, separators=(",", ":"))

    @classmethod
    def decoded(cls, text: str) -> RuleSources:
        """Read back :meth:`encoded`; raises ValueError (UnsafeSource) on anything else."""
        data: Any = json.loads(text)
        if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()
        ):
            raise ValueError("stored rule sources are not a JSON object of texts")
        return cls(data)

    @classmethod
    def read(cls, folder: Path) -> RuleSources:
        """Every ``folder/<ruleset>/*.toml`` (what the loader overlays), as text. Files that are
        not UTF-8 are read with replacement characters so the loader names them; call after the
        folder validated (:func:`arbiter.compiler.model.loader.load_all`)."""
        found = {
            f"{path.parent.name}/{path.name}": path.read_bytes().decode("utf-8", "replace")
            for path in sorted(folder.glob("*/*.toml"))
            if path.is_file()
        }
        return cls(found)

    def write(self, folder: Path) -> Path:
        """Write the files under ``folder`` (made), so the loader can overlay it; ``folder``."""
        for path, text in self.files.items():
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        folder.mkdir(parents=True, exist_ok=True)
        return folder


async def publish(dsn: str, world: str, sources: RuleSources) -> str:
    """Store ``sources`` (once per hash) and point ``world`` at them, in one transaction; the
    hash. Raises LookupError when the database holds no such world (nothing stored then)."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await install(conn, None)
        async with conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'")
            await conn.execute(
                "INSERT INTO rule_sets (hash, sources, published) VALUES (%s, %s, %s) "
                "ON CONFLICT (hash) DO NOTHING",
                (sources.hash, sources.encoded(), time.time()),
            )
            updated = await conn.execute(
                "UPDATE worlds SET rules = %s WHERE id = %s", (sources.hash, world)
            )
            if updated.rowcount != 1:
                # Rolled back with the transaction: the sources are not stored either.
                raise LookupError(f"no world {world!r} in this database")
    return sources.hash


async def unpublish(dsn: str, world: str) -> str | None:
    """Serve ``world`` with its host's rules again; the hash it named (None: it named none).
    Raises LookupError when the database holds no such world. The sources stay stored (another
    world may name them; publishing them again costs nothing)."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await install(conn, None)
        async with conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_WAIT}'")
            row = await (
                await conn.execute("SELECT rules FROM worlds WHERE id = %s FOR UPDATE", (world,))
            ).fetchone()
            if row is None:
                raise LookupError(f"no world {world!r} in this database")
            await conn.execute("UPDATE worlds SET rules = NULL WHERE id = %s", (world,))
    return None if row[0] is None else str(row[0])


async def rules_of(conn: psycopg.AsyncConnection[Any], worlds: list[str]) -> dict[str, str | None]:
    """The rules hash each of ``worlds`` names (None: the host's), by id; a world the database
    does not hold is left out. One statement; waits for no lock."""
    found = await conn.execute("SELECT id, rules FROM worlds WHERE id = ANY(%s)", (worlds,))
    return {str(w): None if h is None else str(h) for w, h in await found.fetchall()}


async def sources_of(conn: psycopg.AsyncConnection[Any], rules_hash: str) -> RuleSources:
    """The stored sources of ``rules_hash``; raises LookupError if none, ValueError if they do
    not read back (or do not hash to their key)."""
    row = await (
        await conn.execute("SELECT sources FROM rule_sets WHERE hash = %s", (rules_hash,))
    ).fetchone()
    if row is None:
        raise LookupError(f"no stored rules {rules_hash}")
    sources = RuleSources.decoded(str(row[0]))
    if sources.hash != rules_hash:
        raise ValueError(f"the stored rules {rules_hash} hash to {sources.hash}")
    return sources


async def world_sources(dsn: str, world: str) -> tuple[str, RuleSources] | None:
    """The hash and sources ``world`` is served with, None when it names none (the host's).
    Raises LookupError when the database holds no such world. Creates and migrates nothing
    (offline readers use it)."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        try:
            named = await rules_of(conn, [world])
        except psycopg.errors.UndefinedColumn:
            return None  # a database of schema 2, read without migrating it: no world has any
        if world not in named:
            raise LookupError(f"no world {world!r} in this database")
        rules_hash = named[world]
        if rules_hash is None:
            return None
        return rules_hash, await sources_of(conn, rules_hash)


__all__ = [
    "RuleSources",
    "UnsafeSource",
    "publish",
    "rules_of",
    "sources_of",
    "unpublish",
    "world_sources",
]
