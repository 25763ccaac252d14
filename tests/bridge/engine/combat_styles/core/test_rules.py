"""The engine's view of a rules model: built once per model, kept while the model is in use."""

from __future__ import annotations

from arbiter.bridge.engine.combat_styles.core import rules
from arbiter.bridge.engine.combat_styles.core.rules import view_of
from arbiter.compiler.model.common import RulesetBase


def test_a_model_in_use_keeps_its_view_while_many_other_models_come_and_go(
    model: RulesetBase,
) -> None:
    served = view_of(model)
    for _ in range(3 * rules._KEEP):
        view_of(model.model_copy())  # an overlay, a test's edited rules …
        assert view_of(model) is served


def test_the_least_recently_used_view_is_dropped_not_the_whole_cache(
    model: RulesetBase,
) -> None:
    first = model.model_copy()
    old = view_of(first)
    others = [model.model_copy() for _ in range(rules._KEEP - 1)]
    views = [view_of(other) for other in others]
    assert view_of(first) is old  # still among the last _KEEP: the same view
    view_of(model.model_copy())  # one more: the least recently used (others[0]) goes
    assert view_of(first) is old
    assert all(view_of(o) is v for o, v in zip(others[1:], views[1:], strict=True))
    assert view_of(others[0]) is not views[0]
