"""zero end to end: real torchrun jobs on 2 CPU processes (gloo, DS_ACCELERATOR=cpu).

The first DeepSpeed run on a machine JIT-builds its shm op with gcc (about a minute, cached afterwards in
~/.cache/torch_extensions), hence the generous subprocess timeout; warm runs take about 25 s.
One run of every mode serves the first two tests: the second re-checks its measured bytes under the
neighbouring stage's label, which must fail.
"""

import pytest

import conftest
from labs import zero


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "zero", *args, timeout=timeout)


@pytest.fixture(scope="module")
def every_mode(tmp_path_factory) -> tuple[int, dict, object]:
    tmp = tmp_path_factory.mktemp("zero")
    code, rep = run_lab(tmp, "--modes", "0,1,2,3,fsdp2", "--steps", "4", "--ckpt-step", "2", "--controls")
    return code, rep, tmp


def test_deepspeed_and_dcp_checkpoints_commit_through_the_manifest_and_refuse_tampering(every_mode):
    code, rep, tmp = every_mode
    for mode in ("3", "fsdp2"):
        ck = rep["resume"][mode]["checkpoint"]
        assert ck["committed"] and ck["problem"] == "" and ck["files"] > 2, ck
        assert not list((tmp / "run" / "checkpoints" / mode).glob("*.tmp"))      # staging renamed away
        shares = ck["verified_bytes_per_rank"]
        assert sum(shares.values()) == ck["bytes"] and all(0 < b < ck["bytes"] for b in shares.values())
        control = rep["controls"][mode]
        assert control["failed_as_designed"] and control["returncode"] != 0, control
        assert control["every_rank_named_the_file"]
    assert rep["checks"]["controls_refuse_tampered_checkpoints"]


def by_part(rep: dict) -> dict[tuple[str, str], dict]:
    return {(r["mode"], r["part"]): r for r in rep["memory"]}


def test_every_stage_and_fsdp2_bytes_match_theory_and_sharded_resume_is_bit_exact(every_mode):
    code, rep, tmp = every_mode
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    rows, n, tol = by_part(rep), rep["num_params"], rep["config"]["tolerance"]
    assert tol <= 0.05 and sum(rep["param_numels"]) == n
    for r in rows.values():
        assert all(abs(m / e - 1) <= tol for m, e in zip(r["per_rank"], r["expected_per_rank"], strict=True)), r
    for mode in ("0", "1", "3", "fsdp2"):  # the formula itself, on every rank
        for part in ("params", "grads", "optim", "total"):
            assert rows[mode, part]["expected_per_rank"] == [rows[mode, part]["theory"]] * 2
    # bf16 mixed precision: 2+2+12 bytes per parameter on ZeRO-0, the same sharded by 2 on ZeRO-3
    assert rows["0", "params"]["measured"] == 2 * n and rows["0", "grads"]["measured"] == 2 * n
    assert rows["1", "grads"]["per_rank"] == [2 * n] * 2           # every full gradient until the reduce-scatter
    assert rows["3", "params"]["measured"] == n and rows["3", "total"]["theory"] == 16 * n / 2
    # ZeRO-2 holds whole parameters: exactly the predicted layout, which sums to Ψ plus one straddling parameter
    grads2 = rows["2", "grads"]["per_rank"]
    assert grads2 == [2 * k for k in zero.partition_numels(rep["param_numels"], 2)]
    assert sum(grads2) // 2 - n in rep["param_numels"]
    assert rows["fsdp2", "params"]["bytes_per_param"] == [4, 4, 8]
    for mode in ("3", "fsdp2"):
        fig = rep["resume"][mode]
        assert fig["bit_exact"] and fig["losses_identical"] and fig["tensors_compared"] > 20
        assert sorted(map(int, fig["resumed_losses"])) == [3, 4]
    assert (tmp / "run" / "zero.png").stat().st_size > 10_000
    assert list((tmp / "run" / "resume" / "logs").rglob("stderr.log"))


@pytest.mark.parametrize(("real", "label", "part"), [("0", "1", "optim"), ("1", "0", "optim"), ("1", "2", "grads"),
                                                     ("2", "1", "grads"), ("2", "3", "params"),
                                                     ("3", "2", "params")])
def test_a_stage_measured_under_its_neighbours_label_fails(every_mode, real, label, part):
    """The lab's own check, on the run's measured bytes: right under the stage that ran, wrong under the
    neighbouring stage (ZeRO-1's full gradients called ZeRO-2's, ZeRO-3's shards called ZeRO-2's...)."""
    _, rep, _ = every_mode
    measured, tol = by_part(rep)[real, part]["per_rank"], rep["config"]["tolerance"]
    numels, dtype = rep["param_numels"], rep["config"]["dtype"]
    assert zero.within(measured, zero.expected_per_rank(real, part, dtype, numels, 2), tol)
    assert not zero.within(measured, zero.expected_per_rank(label, part, dtype, numels, 2), tol)
    assert not zero.within(by_part(rep)[real, "total"]["per_rank"],
                           zero.expected_per_rank(label, "total", dtype, numels, 2), tol)


def test_partition_layout_counts_straddling_parameters_whole():
    assert zero.partition_numels([4, 4, 4, 4], 2) == [8, 8]       # the cut falls between parameters
    assert zero.partition_numels([6, 6], 2) == [6, 6]             # padded to 2N = 4: shares of 6
    assert zero.partition_numels([2, 8, 2], 2) == [10, 10]        # the middle one straddles: both hold it
    assert zero.partition_numels([3, 5, 7, 9], 3) == [8, 16, 9]  # shares of 8: the last straddles 15..24


def test_deepspeed_default_persistence_threshold_leaves_zero3_params_unsharded(tmp_path):
    """DeepSpeed keeps parameters under 100k elements whole on every rank (plus their shard): every
    parameter of the tiny model is one, so ZeRO-3 holds 3x the formula's parameter bytes and the lab fails."""
    code, rep = run_lab(tmp_path, "--modes", "3", "--steps", "2", "--ckpt-step", "1", "--no-resume",
                        "--persistence-threshold", "100000")
    assert code == 1 and not rep["passed"]
    assert rep["checks"]["jobs_exit_cleanly"] and rep["checks"]["every_mode_measured"]
    rows = by_part(rep)
    assert not rep["checks"]["3_params_within_tolerance"] and rows["3", "params"]["ratio"] > 2.5
    assert rep["checks"]["3_grads_within_tolerance"] and rep["checks"]["3_optim_within_tolerance"]
