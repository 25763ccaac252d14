"""Security tests serve the tiny test ruleset, as the server tests do."""

from __future__ import annotations

from tests.bridge.conftest import tiny_engine

__all__ = ["tiny_engine"]
