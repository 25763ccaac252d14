"""Put a freshly built module in place without ever leaving a half-written one.

The build writes into a temporary folder next to the target (same file system, so renames are
cheap and cannot fail half-way through a file). :func:`swap_in` then renames the old module
aside, renames the new one into place and deletes the old one; if the second rename fails the
old module is put back. :func:`locked_packs` finds packs a running Foundry world holds open:
LevelDB takes an exclusive lock on ``<pack>/LOCK``, and replacing a pack under a running world
would corrupt what that world sees.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from arbiter.compiler.foundry.leveldb import DatabaseLockedError
from arbiter.compiler.foundry.leveldb.lock import LOCK_NAME, hold_lock
from arbiter.compiler.foundry.zipping import published_manifest, write_module_zip

"""Every zip entry gets this timestamp (the earliest zip allows) so zips are reproducible."""


class PacksLocked(RuntimeError):
    """The module's packs are open in a running Foundry world; the build refuses to replace them."""

    def __init__(self, packs: list[Path]) -> None:
        self.packs = packs
        names = ", ".join(p.name for p in packs)
        super().__init__(
            f"the packs {names} of {packs[0].parent.parent} are open in a running Foundry "
            "world (their LevelDB LOCK is held); close the world or stop Foundry, then build again"
        )


class BuildBusy(RuntimeError):
    """Another ``arbiter build`` is writing into the same output folder right now."""


BUILD_LOCK = ".arbiter-building"
"""Folder under the output folder whose LevelDB-style ``LOCK`` one build at a time holds."""

# File locks exclude other processes only; builds on threads of this process (the server
# rebuilds off its event loop) are excluded by this registry of folders being built.
_building: set[Path] = set()
_building_guard = threading.Lock()


@contextmanager
def exclusive_build(out_dir: Path, name: str) -> Iterator[None]:
    """Hold the output folder for one build; raise BuildBusy if another build holds it.

    While held, leftovers of an interrupted build (staging and old folders) are removed:
    no other build can be using them.
    """
    busy = BuildBusy(
        f"another arbiter build is writing into {out_dir}; try again when it has finished"
    )
    lock_dir = out_dir / BUILD_LOCK
    lock_dir.mkdir(parents=True, exist_ok=True)
    key = lock_dir.resolve()
    with ExitStack() as held:
        with _building_guard:
            if key in _building:
                raise busy
            _building.add(key)
        held.callback(_building.discard, key)
        try:
            held.enter_context(hold_lock(lock_dir))
        except DatabaseLockedError:
            raise busy from None
        for stale in (*out_dir.glob(f".{name}-build-*"), *out_dir.glob(f".{name}-old-*")):
            shutil.rmtree(stale, ignore_errors=True)
        yield


def locked_packs(module_dir: Path) -> list[Path]:
    """The pack folders under ``module_dir/packs`` whose LevelDB lock another process holds."""
    locked: list[Path] = []
    packs = module_dir / "packs"
    if not packs.is_dir():
        return locked
    for pack in sorted(p for p in packs.iterdir() if p.is_dir()):
        if (pack / LOCK_NAME).is_file() and _is_locked(pack):
            locked.append(pack)
    return locked


def _is_locked(pack: Path) -> bool:
    # Taking LevelDB's own lock for an instant fails exactly when a live process (a Foundry
    # world, the official CLI) has the database open.
    try:
        with hold_lock(pack):
            return False
    except DatabaseLockedError:
        return True


def staging_dir(out_dir: Path, name: str) -> Path:
    """A new empty folder next to ``out_dir/name`` to build into."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{name}-build-", dir=out_dir))


def swap_in(staged: Path, target: Path) -> None:
    """Replace ``target`` by ``staged`` (both in the same folder); the old target is removed."""
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
        old.rmdir()
        target.rename(old)
    try:
        staged.rename(target)
    except BaseException:
        if old is not None:
            old.rename(target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file, then rename)."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def zip_module(module_dir: Path, zip_path: Path, public_url: str | None = None) -> None:
    """A reproducible zip of ``module_dir`` at ``zip_path``, written aside and renamed in place.

    With ``public_url`` (where the module will be published: ``<url>/module.json`` and
    ``<url>/module.zip``) the zipped ``module.json`` carries those as ``manifest`` and
    ``download`` (:mod:`arbiter.compiler.foundry.zipping`).
    """
    tmp = zip_path.with_name(f".{zip_path.name}.tmp-{os.getpid()}")
    manifest = published_manifest(module_dir, public_url) if public_url else None
    with tmp.open("wb") as out:
        write_module_zip(module_dir, out, manifest)
    os.replace(tmp, zip_path)
