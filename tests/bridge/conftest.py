"""Fixtures for server tests: the tiny ruleset's engine registered in place of the real ones."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine import registry
from tests.bridge.support import tiny_get_engine


@pytest.fixture
def tiny_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Serve the tiny test ruleset (the registry finds its engine; real rulesets are untouched)."""
    monkeypatch.setattr(registry, "get_engine", tiny_get_engine)
