"""The combat-styles benchmark runs and reports each figure beside its baseline (no timing is
asserted: speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

from benchmarks.engine_combat_styles import run


def test_the_benchmark_reports_positive_figures_beside_their_baselines() -> None:
    rows = run(seconds=0.05)
    labels = [label for label, _, _ in rows]
    assert labels[0] == "full exchanges per second (engine)"
    assert any(label.startswith("dice floor") for label in labels)
    assert any("brute force" in label for label in labels)
    for label, value, unit in rows:
        assert unit in ("exchanges/s", "ms")
        assert value > 0, label
