"""pipeline end to end: one real torchrun job of 2 CPU processes = 2 pipeline stages (gloo).

One run of 1F1B and interleaved at m = 2 and 4 serves the first two tests: the first checks it against its
own cases, the second re-checks every measured bubble as the neighbouring case (interleaved as 1F1B, m = 2
as m = 4...), which must fail. GPipe shares 1F1B's formula: activation memory tells them apart, checked on
the cheap tiny-compute run of the last test.
"""

import pytest

import conftest
from labs import pipeline

MS = [2, 4]


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "pipeline", *args, timeout=timeout)


def failed(rep: dict) -> list[str]:
    return [k for k, v in rep["checks"].items() if not v]


@pytest.fixture(scope="module")
def two_schedules(tmp_path_factory) -> tuple[int, dict, object]:
    tmp = tmp_path_factory.mktemp("pipeline")
    # 5 timed repeats, not the lab's 3: the median of 3 once landed 0.002 outside 1F1B m=2's allowance on 2 busy
    # cores (0.271 vs 0.333 - 0.06). 128 samples per micro-batch, not 64: on 2 cores gloo's threads wait for a
    # core the pinned compute holds, a fixed ~2 ms per chunk; at 64 the clean-clone CI measured interleaved
    # m=2 at 0.242 (theory 0.2, allowance 0.04), at 128 that share halves (measured - replayed 0.036 -> 0.017).
    code, rep = run_lab(tmp, "--schedules", "1f1b,interleaved", "--microbatches", ",".join(map(str, MS)),
                        "--repeats", "5", "--microbatch-size", "128")
    return code, rep, tmp


def bubbles(rep: dict) -> dict:
    return {(r["schedule"], r["m"]): (round(r["bubble_measured"], 3), round(r["bubble_theory"], 3),
                                      round(r["bubble_tol"], 3)) for r in rep["rows"]}


def test_schedules_match_reference_and_bubble_is_nearer_its_theory_than_any_neighbour(two_schedules):
    code, rep, tmp = two_schedules
    assert code == 0, (failed(rep), bubbles(rep))
    assert rep["passed"] and all(rep["checks"].values())
    rows = {(r["schedule"], r["m"]): r for r in rep["rows"]}
    assert set(rows) == {(s, m) for s in ("1f1b", "interleaved") for m in MS}
    for r in rows.values():
        gaps = [abs(r["bubble_theory"] - v) for v in r["neighbours"].values()]
        assert gaps and all(r["bubble_tol"] < gap / 2 for gap in gaps)  # under half the way to any neighbour
        assert abs(r["bubble_measured"] - r["bubble_theory"]) <= r["bubble_tol"]
        assert abs(r["bubble_of_order"] - r["bubble_theory"]) < 1e-9  # the recorded order is the textbook one
        assert r["grad_rel_err"] <= rep["config"]["grad_tol"] and abs(r["loss"] - r["ref_loss"]) < 1e-5
    assert rows["1f1b", 2]["bubble_theory"] == 1 / 3 and rows["interleaved", 2]["bubble_theory"] == 0.2
    assert round(rows["1f1b", 4]["peak_in_microbatches"], 2) == 2.0  # at most p = 2 in flight
    for png in ("timeline.png", "bubble.png"):
        assert (tmp / "run" / png).stat().st_size > 10_000


def test_each_measured_bubble_fails_as_its_neighbouring_case(two_schedules):
    """The lab's own check on the run's medians: interleaved measured against 1F1B's theory at the same m,
    m = 2 against m = 4 (and back) must fail, each with the neighbour's own allowance."""
    _, rep, _ = two_schedules
    p, rows = rep["stages"], {(r["schedule"], r["m"]): r for r in rep["rows"]}
    tried = 0
    for (name, m), r in rows.items():
        assert pipeline.bubble_ok(r["bubble_measured"], p, name, m, r["bubble_tol"]), bubbles(rep)
        for other, k in pipeline.neighbouring_cases(name, m, MS):
            assert (other, k) in rows
            assert not pipeline.bubble_ok(r["bubble_measured"], p, other, k, rows[other, k]["bubble_tol"]), \
                (name, m, other, k, bubbles(rep))
            tried += 1
    assert tried == 8  # 4 cases x (other interleaving + other m)


def test_neighbouring_cases_and_their_allowance():
    assert pipeline.neighbouring_cases("gpipe", 4, [2, 4, 8]) == [("interleaved", 4), ("gpipe", 2), ("gpipe", 8)]
    assert pipeline.neighbouring_cases("interleaved", 8, [4, 8]) == [("1f1b", 8), ("interleaved", 4)]
    # p = 2: interleaved m = 8 is 1/17, its neighbours 1/9 (1F1B m = 8 and interleaved m = 4)
    assert pipeline.bubble_tolerance(2, "interleaved", 8, [4, 8], 0.9) == pytest.approx(0.9 * (1 / 9 - 1 / 17) / 2)


def test_tiny_compute_per_microbatch_makes_overhead_the_bubble_and_fails(tmp_path):
    """With 16-wide layers and 1-sample micro-batches, communication and Python dwarf the compute: the
    measured idle share is far above (p-1)/(m+p-1), so the lab fails, while the gradients still match."""
    code, rep = run_lab(tmp_path, "--width", "16", "--microbatch-size", "1", "--layers", "4",
                        "--schedules", "gpipe,1f1b", "--microbatches", "2,4", "--repeats", "2")
    assert code == 1 and not rep["passed"]
    assert rep["checks"]["job_exit_clean"]
    # bubble aside, GPipe and 1F1B differ in what they keep: GPipe all m micro-batches, 1F1B at most p = 2
    assert rep["checks"]["gpipe_peak_is_m_microbatches"] and rep["checks"]["1f1b_peak_at_most_p_microbatches"]
    rows = {(r["schedule"], r["m"]): r for r in rep["rows"]}
    assert round(rows["gpipe", 4]["peak_in_microbatches"], 2) == 4.0
    assert round(rows["1f1b", 4]["peak_in_microbatches"], 2) == 2.0
    assert rows["1f1b", 4]["peak_activation_bytes"] * 2 == rows["gpipe", 4]["peak_activation_bytes"]
    for r in rep["rows"]:
        # above theory by more than the lab's allowance (0.26-0.49 above in local runs, CI once 0.197,
        # against allowances of 0.04-0.06)
        assert r["bubble_measured"] > r["bubble_theory"] + r["bubble_tol"] and not r["bubble_ok"]
        assert r["grad_rel_err"] < 1e-5
        assert rep["checks"][f"{r['schedule']}_m{r['m']}_order_is_textbook"]  # right schedule, wrong proportions
