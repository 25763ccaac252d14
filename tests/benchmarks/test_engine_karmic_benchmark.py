"""The karmic benchmark runs and reports its figures in the shape benchmarks/engine.py expects
(no timing is asserted: speed is read from the benchmark's output, not tested)."""

from __future__ import annotations

from benchmarks.engine_karmic import run


def test_the_benchmark_reports_our_registers_per_second_beside_its_baselines() -> None:
    rows = run(seconds=0.04)
    labels = [label for label, _, _ in rows]
    assert labels[0] == "resolve_register (ours)"
    assert any(label.startswith("baseline: copy.deepcopy") for label in labels)
    for label, value, unit in rows:
        assert isinstance(label, str) and isinstance(unit, str)
        if unit == "runnable":  # the load average may be 0 on an idle machine
            assert value >= 0
        else:
            assert value > 0, label
