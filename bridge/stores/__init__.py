"""The world's store behind one interface (:mod:`arbiter.bridge.stores.interface`), with two
backends: SQLite (:mod:`arbiter.bridge.store`; its schema in
:mod:`arbiter.bridge.stores.sqlite_schema`, its WAL checkpoints in
:mod:`arbiter.bridge.stores.sqlite_checkpointer`) and PostgreSQL
(:mod:`arbiter.bridge.stores.postgres`, imported on demand: it needs the ``postgresql`` extra;
its schema in :mod:`arbiter.bridge.stores.postgres_schema`, its copy of a world in memory in
:mod:`arbiter.bridge.stores.postgres_cache`, the fenced ownership of its worlds by hosts in
:mod:`arbiter.bridge.stores.ownership`)."""

from arbiter.bridge.stores.interface import (
    RequestLogged,
    RowNotCached,
    StaleWriter,
    StatBlock,
    UnstorableText,
    WorldStore,
)

__all__ = [
    "RequestLogged",
    "RowNotCached",
    "StaleWriter",
    "StatBlock",
    "UnstorableText",
    "WorldStore",
]
