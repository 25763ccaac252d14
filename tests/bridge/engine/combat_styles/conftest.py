"""Shared fixtures: the bundled combat-styles rules and a helper that resolves one request."""

from __future__ import annotations

import pytest

from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.bridge.engine.combat_styles.core.view import RulesView
from arbiter.compiler.model.common import RulesetBase
from arbiter.compiler.model.loader import load_ruleset
from tests.bridge.engine.combat_styles.helpers import Table


@pytest.fixture(scope="session")
def model() -> RulesetBase:
    return load_ruleset("combat-styles").model


@pytest.fixture(scope="session")
def view(model: RulesetBase) -> RulesView:
    return view_of(model)


@pytest.fixture
def table(model: RulesetBase) -> Table:
    return Table(model)
