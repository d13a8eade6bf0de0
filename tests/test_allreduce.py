"""allreduce end to end: the hand-written ring against dist.all_reduce on real torchrun workers.

On 2 processes the lab must pass: same sums, bytes sent exactly 2(n-1)/n·S, busbw as nccl-tests defines
it, an alpha-beta fit within 30% at every size (and the same check rejects a model without latency). On 3
processes the ring still sums right with uneven chunks, and the naive algorithm (whole tensor to every
peer) fails the bytes check: 2S sent where the ring needs 4/3·S.
"""


import pytest

import conftest
from labs import allreduce


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "allreduce", *args, timeout=timeout)


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory) -> tuple[int, dict, object]:
    tmp = tmp_path_factory.mktemp("allreduce")
    code, rep = run_lab(tmp)
    return code, rep, tmp


def test_ring_matches_all_reduce_theory_bytes_and_bandwidth(two_ranks):
    code, rep, tmp_path = two_ranks
    assert code == 0, (rep["checks"], {k: f["measured_over_fit"] for k, f in rep["fit"].items()})
    assert rep["passed"] and all(rep["checks"].values())
    rows = rep["sizes"]
    assert [r["bytes"] for r in rows] == [1024 * 4**i for i in range(8)]      # 1 KiB .. 16 MiB
    for r in rows:
        assert r["allclose"] and r["max_abs_diff"] == 0.0                     # n = 2: a + b either way
        assert r["sent_bytes"] == r["theory_bytes"] == r["bytes"]            # 2(n-1)/n·S = S for n = 2
        assert r["algbw_hand_GBps"] == pytest.approx(r["bytes"] / r["t_hand_s"] / 1e9)
        assert r["busbw_hand_GBps"] == pytest.approx(r["algbw_hand_GBps"])   # 2(n-1)/n = 1
        assert r["t_hand_fit_s"] > 0
    tol = rep["config"]["fit_tol"]
    for k, fit in rep["fit"].items():  # every size within 30% of the log-space fit, not just a good R²
        assert fit["alpha_s"] > 0 and fit["beta_s_per_byte"] > 0
        assert len(fit["measured_over_fit"]) == len(rows) and all(abs(x - 1) <= tol for x in fit["measured_over_fit"])
        assert [r[f"t_{k}_measured_over_fit"] for r in rows] == pytest.approx(fit["measured_over_fit"])
    assert (tmp_path / "run" / "allreduce.png").stat().st_size > 10_000


@pytest.mark.parametrize("k", ["hand", "lib"])
def test_the_fit_check_rejects_a_model_without_latency_on_the_measured_times(two_ranks, k):
    """The lab's own check on the run's times: the α-β fit passes; the same data fitted with α = 0 (pure
    bandwidth) misses the small sizes by far more than the tolerance."""
    _, rep, _ = two_ranks
    sizes, times = [r["bytes"] for r in rep["sizes"]], [r[f"t_{k}_s"] for r in rep["sizes"]]
    tol = rep["config"]["fit_tol"]
    assert allreduce.fit_ok(allreduce.fit_alpha_beta(sizes, times), tol)
    no_latency = allreduce.fit_alpha_beta(sizes, times, latency=False)
    assert not allreduce.fit_ok(no_latency, tol) and no_latency["measured_over_fit"][0] > 1 + tol


def test_ring_sums_right_on_three_ranks_with_uneven_chunks(tmp_path):
    code, rep = run_lab(tmp_path, "--nproc", "3", "--min-bytes", "1000", "--max-bytes", "27000", "--factor", "3",
                        "--passes", "1", "--budget-s", "0.1")
    assert rep["checks"]["results_allclose"] and rep["checks"]["bytes_match_theory"], rep["checks"]
    by_size = {r["bytes"]: r for r in rep["sizes"]}
    assert by_size[3000]["sent_bytes"] == 2 * 2 / 3 * 3000             # n divides 750 elements: exact
    assert by_size[1000]["sent_bytes"] != by_size[1000]["theory_bytes"]  # 250 elements: chunks of 84/83
    assert rep["max_abs_diff"] < 1e-5


def test_naive_all_reduce_sends_more_than_the_ring_and_fails(tmp_path):
    code, rep = run_lab(tmp_path, "--nproc", "3", "--algorithm", "naive", "--min-bytes", "3072",
                        "--max-bytes", "49152", "--passes", "1", "--budget-s", "0.1")
    assert code == 1 and not rep["passed"]
    assert rep["checks"]["results_allclose"] and not rep["checks"]["bytes_match_theory"]
    assert all(r["sent_bytes"] == 2 * r["bytes"] and r["sent_over_theory"] == pytest.approx(1.5)
               for r in rep["sizes"])
