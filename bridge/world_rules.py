"""The rules of each world a host serves (docs/scaling.md, "A world's own rules").

A world names its own rules in its database (``worlds.rules``, a hash of published sources:
:mod:`arbiter.bridge.stores.postgres_rules`), or none: then it is served with the host's
``--rules``, as every world was before. :class:`WorldRules` loads each distinct hash once, laid
over the host's bundled rules, and hands every world naming it the same
:class:`~arbiter.bridge.rules.RulesSnapshot` object; a snapshot no served world uses is dropped.
:func:`follow` polls the served worlds' hashes and swaps a world whose rules changed, that world
only, as hot reload does (``rules_updated`` to its clients).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg

from arbiter.bridge.rules import RuleSource, RulesSnapshot, snapshot
from arbiter.bridge.stores.postgres_rules import RuleSources, rules_of, sources_of
from arbiter.compiler.errors import RuleError

if TYPE_CHECKING:
    from arbiter.bridge.hosting import WorldHost

log = logging.getLogger("arbiter.host")

RETRY_AFTER = 60.0
"""Seconds a load that failed for another reason than the rules themselves (a full ``/tmp``,
memory, a crash in a model's own checks) is refused without a new attempt: then tried again
(a :class:`RuleError` of the rules is remembered for good)."""

RULES_UNLOADABLE = "the world's rules do not load on this host: its GM must publish them again"
"""The close reason (code 1013) of a connection to a world whose published rules do not load."""


class RulesUnloadable(Exception):
    """A world's stored rules do not load on this host (the world is not served on them)."""

    def __init__(self, rules_hash: str, problems: list[str]) -> None:
        self.rules_hash = rules_hash
        self.problems = problems
        super().__init__(f"rules {rules_hash[:12]} do not load: " + "; ".join(problems))


def compile_sources(source: RuleSource, sources: RuleSources, rules_hash: str) -> RulesSnapshot:
    """Compile ``sources`` laid over ``source``'s bundled rules (its root and models; not its
    overlay: a world's rules replace the host's house rules). Blocking: run it in a thread.
    Problems name the files as ``rules-<hash prefix>/<ruleset>/<file>``."""
    with tempfile.TemporaryDirectory(prefix="arbiter-rules-") as tmp:
        folder = sources.write(Path(tmp) / f"rules-{rules_hash[:12]}")
        loaded = RuleSource(root=source.root, overlay=folder, models=source.models).load()
    rules = snapshot(loaded)
    _ = rules.reader  # built here, off the event loop
    return rules


async def published_rules(dsn: str, world: str, source: RuleSource) -> RulesSnapshot | None:
    """The rules ``world`` names (compiled as on a host), None when it names none: what one
    world served without ``--host-id`` is served with from its start. Raises RuleError naming
    the problems when they do not load."""
    from arbiter.bridge.stores.postgres_rules import world_sources

    found = await world_sources(dsn, world)
    if found is None:
        return None
    rules_hash, sources = found
    log.info("world %r is served with its own rules %s", world, rules_hash[:12])
    return await asyncio.to_thread(compile_sources, source, sources, rules_hash)


class WorldRules:
    """Each served world's rules hash, and one snapshot per hash, shared."""

    def __init__(self, dsn: str, source: RuleSource, application_name: str = "arbiter") -> None:
        self.dsn = dsn
        self.application_name = application_name
        """What ``pg_stat_activity`` names its connections (the host's name)."""
        self.source = source
        self.snapshots: dict[str, RulesSnapshot] = {}
        """One snapshot per rules hash some world uses (or is being opened with)."""
        self.users: dict[str, int] = {}
        """How many served (or opening) worlds use each hash."""
        self.serving: dict[str, str] = {}
        """The hash each served world with rules of its own is served with, by world."""
        self.refused: dict[str, str] = {}
        """A served world's newest hash that did not load (reported once, not every poll)."""
        self.unloadable: dict[str, RulesUnloadable] = {}
        """Hashes whose sources the compiler refused here (:class:`RuleError`), and why: the
        same sources on the same host fail the same way, so a connection to such a world costs
        no second compile, for the life of the process."""
        self.failed: dict[str, tuple[RulesUnloadable, float]] = {}
        """Hashes whose load failed otherwise (the host's state, not the rules'), and until
        when (``time.monotonic``) that is the answer: tried again after :data:`RETRY_AFTER`."""
        self._loading: dict[str, asyncio.Task[RulesSnapshot]] = {}
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()

    async def named(self, world: str) -> str | None:
        """The hash ``world`` names now (None: the host's rules, or no such world)."""
        return (await self.poll([world])).get(world)

    async def poll(self, worlds: list[str]) -> dict[str, str | None]:
        """The hash each of ``worlds`` names, in one statement on this host's connection for it
        (opened again after a failure)."""
        # One at a time (claims and the follower share the connection): two connecting at
        # once would leave one connection open and unreferenced.
        async with self._lock:
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = await psycopg.AsyncConnection.connect(
                        self.dsn,
                        autocommit=True,
                        connect_timeout=10,
                        application_name=self.application_name,
                    )
                return await rules_of(self._conn, worlds)
            except BaseException:
                await self.close()
                raise

    async def acquire(self, rules_hash: str) -> RulesSnapshot:
        """The snapshot of ``rules_hash``, loaded once however many worlds ask; the caller counts
        as a user until :meth:`release`. Raises :class:`RulesUnloadable`."""
        known = self.known_unloadable(rules_hash)
        if known is not None:
            raise known
        self.users[rules_hash] = self.users.get(rules_hash, 0) + 1
        try:
            found = self.snapshots.get(rules_hash)
            if found is not None:
                return found
            loading = self._loading.get(rules_hash)
            if loading is None:
                loading = asyncio.create_task(self._load(rules_hash), name="load world rules")
                self._loading[rules_hash] = loading
                loading.add_done_callback(lambda done: self._loaded(rules_hash, done))
            rules = await asyncio.shield(loading)
            # Every waiter gets the first one's object (kept while anyone uses it).
            return self.snapshots.setdefault(rules_hash, rules)
        except BaseException:
            self.release(rules_hash)
            raise

    def known_unloadable(self, rules_hash: str | None) -> RulesUnloadable | None:
        """Why ``rules_hash`` is known not to load on this host now (None: not known so)."""
        if rules_hash is None:
            return None
        known = self.unloadable.get(rules_hash)
        if known is None:
            failed = self.failed.get(rules_hash)
            if failed is None:
                return None
            if time.monotonic() >= failed[1]:
                del self.failed[rules_hash]
                return None
            known = failed[0]
        return RulesUnloadable(known.rules_hash, known.problems)

    def _loaded(self, rules_hash: str, task: asyncio.Task[RulesSnapshot]) -> None:
        if self._loading.get(rules_hash) is task:
            del self._loading[rules_hash]
        if not task.cancelled():
            task.exception()  # retrieved: each waiter was given it

    async def _load(self, rules_hash: str) -> RulesSnapshot:
        try:
            async with await psycopg.AsyncConnection.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=10,
                application_name=self.application_name,
            ) as conn:
                sources = await sources_of(conn, rules_hash)
        except (LookupError, ValueError) as err:
            raise RulesUnloadable(rules_hash, [str(err)]) from None
        try:
            return await asyncio.to_thread(compile_sources, self.source, sources, rules_hash)
        except RuleError as err:
            refused = RulesUnloadable(rules_hash, [str(p) for p in err.problems])
            self.unloadable[rules_hash] = refused
        except Exception as err:
            # The host's trouble (OSError writing the sources to /tmp, MemoryError), or a crash
            # in a model's own checks: refused now and for RETRY_AFTER, then tried again.
            log.exception("rules %s could not be loaded", rules_hash[:12])
            refused = RulesUnloadable(rules_hash, [f"the rules could not be loaded: {err}"])
            self.failed[rules_hash] = (refused, time.monotonic() + RETRY_AFTER)
        raise refused

    def release(self, rules_hash: str) -> None:
        """One user fewer; the snapshot is dropped when nobody uses it."""
        left = self.users.get(rules_hash, 0) - 1
        if left > 0:
            self.users[rules_hash] = left
            return
        self.users.pop(rules_hash, None)
        self.snapshots.pop(rules_hash, None)

    def attach(self, world: str, rules_hash: str | None) -> None:
        """``world`` is served with ``rules_hash`` (acquired), or with the host's (None)."""
        self.detach(world)
        if rules_hash is not None:
            self.serving[world] = rules_hash

    def detach(self, world: str) -> None:
        """``world`` is served no more (or moves to other rules): release what it used."""
        self.refused.pop(world, None)
        used = self.serving.pop(world, None)
        if used is not None:
            self.release(used)

    async def close(self) -> None:
        """Close the polling connection (a later poll opens another)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()


async def open_rules(
    rules: WorldRules, world: str, host_rules: Callable[[], RulesSnapshot]
) -> tuple[str | None, RulesSnapshot]:
    """The rules to open ``world`` with: its own (acquired: :meth:`WorldRules.attach` once
    served, :meth:`WorldRules.release` if it is not) or the host's. Raises
    :class:`RulesUnloadable` (logged for the operator) when its own do not load."""
    rules_hash = await rules.named(world)
    if rules_hash is None:
        return None, host_rules()
    try:
        return rules_hash, await rules.acquire(rules_hash)
    except RulesUnloadable as err:
        log.warning(
            "world %r is not served: its rules %s do not load on this host:\n  %s",
            world,
            rules_hash[:12],
            "\n  ".join(err.problems),
        )
        raise


async def follow(host: WorldHost) -> None:
    """Every ``--reload-interval`` seconds (a third of the lease with hot rules off), read the
    served worlds' rules hashes and swap each world whose hash changed (to its own rules, or
    back to the host's). Runs until cancelled."""
    assert host.owner is not None, "the host has not started"
    period = host.config.reload_interval or host.owner.ttl / 3
    while True:
        await asyncio.sleep(period)
        try:
            await check(host)
        except Exception as err:
            # The database may be away; the worlds go on with the rules they have.
            log.warning("the worlds' rules could not be checked: %s", str(err) or repr(err))


async def check(host: WorldHost) -> list[str]:
    """One poll (:func:`follow`): the worlds whose rules were swapped."""
    rules = host.world_rules
    served = dict(host.worlds)
    if not served:
        return []
    named = await rules.poll(list(served))
    swapped = []
    for world_id, world in served.items():
        wanted = named.get(world_id)
        if world_id not in named or wanted == rules.serving.get(world_id):
            continue
        if host.worlds.get(world_id) is not world:
            continue  # given up, or opened again since the poll: on what it names now
        if wanted is not None and rules.refused.get(world_id) == wanted:
            continue  # reported already
        if await swap(host, world_id, wanted):
            swapped.append(world_id)
    return swapped


async def swap(host: WorldHost, world_id: str, wanted: str | None) -> bool:
    """Serve ``world_id`` with ``wanted`` (None: the host's rules) from its next request; False
    when they do not load (its GM clients hear ``rules_error``, the old rules keep serving)."""
    rules = host.world_rules
    world = host.worlds.get(world_id)
    if world is None:
        return False
    if wanted is None:
        new = host.rules
    else:
        try:
            new = await rules.acquire(wanted)
        except RulesUnloadable as err:
            rules.refused[world_id] = wanted
            log.warning(
                "world %r keeps its rules: its new rules %s do not load on this host:\n  %s",
                world_id,
                wanted[:12],
                "\n  ".join(err.problems),
            )
            await world.report_error(err.problems)
            return False
    if host.worlds.get(world_id) is not world:  # given up while its rules loaded
        if wanted is not None:
            rules.release(wanted)
        return False
    before = world.rules.info()
    rules.attach(world_id, wanted)
    world.rules_swapped(before, new)
    return True


__all__ = [
    "RETRY_AFTER",
    "RULES_UNLOADABLE",
    "RulesUnloadable",
    "WorldRules",
    "check",
    "compile_sources",
    "follow",
    "open_rules",
    "published_rules",
    "swap",
]
