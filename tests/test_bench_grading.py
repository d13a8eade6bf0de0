"""The grading benchmark runs and reports its percentiles. Timing is not asserted here (a shared CI machine is
noisy); `python -m coach.bench_grading` states the p95 against the 50 ms target."""

from __future__ import annotations

import re

from coach.bench_grading import percentile, run


def test_percentile_picks_the_rank() -> None:
    xs = [float(i) for i in range(1, 101)]
    assert percentile(xs, 50) == 51.0 and percentile(xs, 95) == 95.0 and percentile([3.0], 95) == 3.0


def test_the_benchmark_reports_cold_and_warm_percentiles() -> None:
    report, p95 = run(1)
    assert re.search(r"^\d+ answers \(\d+ questions\)", report)
    assert re.search(r"^cold: p50 [\d.]+ ms  p95 [\d.]+ ms", report, re.MULTILINE)
    assert re.search(r"^warm: p50 [\d.]+ ms  p95 [\d.]+ ms", report, re.MULTILINE)
    assert p95 > 0 and ("OK" in report) == (p95 < 50)
