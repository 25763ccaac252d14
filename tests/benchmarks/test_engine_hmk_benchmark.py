"""The hmk benchmark runs and reports its figures in the shape the engine benchmark expects
(no timing is asserted: speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

from benchmarks.engine_hmk import run


def test_the_benchmark_reports_labelled_positive_figures_beside_its_baseline() -> None:
    rows = run(seconds=0.02)
    labels = [label for label, _, _ in rows]
    assert labels[0].startswith("hmk dice only (baseline")
    assert "hmk attacks, validated body" in labels
    for label, value, unit in rows:
        assert isinstance(label, str) and isinstance(unit, str)
        if unit == "runnable":  # the load average may be 0 on an idle machine
            assert value >= 0
        else:
            assert value > 0, label
