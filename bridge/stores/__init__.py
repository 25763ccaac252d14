"""The world's store behind one interface (:mod:`arbiter.bridge.stores.interface`), with two
backends: SQLite (:mod:`arbiter.bridge.store`) and PostgreSQL
(:mod:`arbiter.bridge.stores.postgres`, imported on demand: it needs the ``postgresql`` extra)."""

from arbiter.bridge.stores.interface import RequestLogged, StaleWriter, StatBlock, WorldStore

__all__ = ["RequestLogged", "StaleWriter", "StatBlock", "WorldStore"]
