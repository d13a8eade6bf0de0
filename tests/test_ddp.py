"""ddp end to end: real torchrun jobs on 2 CPU processes, asserting on the report the lab wrote.

The first test runs the lab as a user would and checks its figures: DDP on 2 ranks equals one process on
the whole batch, the buckets match the predicted layout, no_sync all-reduces once per step. The others
show the verification failing for the right reason: all-reducing every micro-batch, and dropout.
"""

import conftest

SMALL = ("--steps", "3", "--timing-steps", "6")


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "ddp", *SMALL, *args, timeout=timeout)


def test_ddp_equals_one_process_with_predicted_buckets_and_one_allreduce_per_step(tmp_path):
    code, rep = run_lab(tmp_path)
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    assert rep["world_size"] == 2
    assert rep["max_abs_diff"]["plain"] < 1e-5 and rep["max_abs_diff"]["accum"] < 1e-5
    assert rep["replica_spread"] == {"plain": 0.0, "accum": 0.0}
    b = rep["buckets"]
    assert b["step1_sizes"] == [rep["param_bytes"]]        # one bucket until the gradient order is known
    assert b["measured_sizes"] == b["predicted_sizes"] and b["measured_count"] > 2
    assert all(s >= b["cap_bytes"] for s in b["measured_sizes"][:-1])
    assert sum(b["measured_sizes"]) == rep["param_bytes"] == 4 * rep["num_params"]
    assert b["ring_bytes_per_rank_per_step"] == rep["param_bytes"]   # 2(n-1)/n = 1 for n = 2
    ns = rep["no_sync"]
    assert ns["allreduce_calls_per_step"] == [b["measured_count"]] * 2
    assert ns["synced_micro_batches_per_step"] == [1, 1, 1]
    t = rep["timing"]
    assert t["step_with_comm_s"] > 0 and t["step_without_comm_s"] > 0
    assert 0 < t["in_flight_comm_share"] <= 1 and t["exposed_comm_share"] < 1
    assert (tmp_path / "run" / "ddp.png").stat().st_size > 10_000
    assert list((tmp_path / "run" / "logs").rglob("stderr.log"))


def test_all_reducing_every_micro_batch_costs_k_times_the_calls_and_fails(tmp_path):
    code, rep = run_lab(tmp_path, "--accum", "sync_each", "--micro-batches", "4")
    assert code == 1 and not rep["passed"]
    ns, n_buckets = rep["no_sync"], rep["buckets"]["measured_count"]
    assert ns["allreduce_calls_per_step"] == [4 * n_buckets] * 2
    assert not rep["checks"]["one_allreduce_per_bucket_per_step"]
    assert rep["checks"]["accum_matches_single_process"]     # same result, k times the communication


def test_dropout_makes_one_process_incomparable(tmp_path):
    code, rep = run_lab(tmp_path, "--dropout", "0.1")
    assert code == 1
    assert not rep["checks"]["plain_matches_single_process"] and rep["max_abs_diff"]["plain"] > 1e-4
    assert rep["checks"]["replicas_identical"] and rep["checks"]["buckets_match_prediction"]
