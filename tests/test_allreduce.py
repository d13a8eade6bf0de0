"""allreduce end to end: the hand-written ring against dist.all_reduce on real torchrun workers.

On 2 processes the lab must pass: same sums, bytes sent exactly 2(n-1)/n·S, busbw as nccl-tests defines
it, a good alpha-beta fit. On 3 processes the ring still sums right with uneven chunks, and the naive
algorithm (whole tensor to every peer) fails the bytes check: 2S sent where the ring needs 4/3·S.
"""


import pytest

import conftest


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "allreduce", *args, timeout=timeout)


def test_ring_matches_all_reduce_theory_bytes_and_bandwidth(tmp_path):
    code, rep = run_lab(tmp_path)
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    rows = rep["sizes"]
    assert [r["bytes"] for r in rows] == [1024 * 4**i for i in range(8)]      # 1 KiB .. 16 MiB
    for r in rows:
        assert r["allclose"] and r["max_abs_diff"] == 0.0                     # n = 2: a + b either way
        assert r["sent_bytes"] == r["theory_bytes"] == r["bytes"]            # 2(n-1)/n·S = S for n = 2
        assert r["algbw_hand_GBps"] == pytest.approx(r["bytes"] / r["t_hand_s"] / 1e9)
        assert r["busbw_hand_GBps"] == pytest.approx(r["algbw_hand_GBps"])   # 2(n-1)/n = 1
        assert r["t_hand_fit_s"] > 0
    for fit in rep["fit"].values():
        assert fit["r2"] >= 0.9 and fit["beta_s_per_byte"] > 0
    assert (tmp_path / "run" / "allreduce.png").stat().st_size > 10_000


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
