"""zero end to end: real torchrun jobs on 2 CPU processes (gloo, DS_ACCELERATOR=cpu).

The first DeepSpeed run on a machine JIT-builds its shm op with gcc (about a minute, cached afterwards in
~/.cache/torch_extensions), hence the generous subprocess timeout; warm runs take about 25 s.
"""


import conftest


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "zero", *args, timeout=timeout)


def by_part(rep: dict) -> dict[tuple[str, str], dict]:
    return {(r["mode"], r["part"]): r for r in rep["memory"]}


def test_stage0_stage3_fsdp2_bytes_match_theory_and_sharded_resume_is_bit_exact(tmp_path):
    code, rep = run_lab(tmp_path, "--modes", "0,3,fsdp2", "--steps", "4", "--ckpt-step", "2")
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    rows, n = by_part(rep), rep["num_params"]
    for mode in ("0", "3", "fsdp2"):
        for part in ("params", "grads", "optim", "total"):
            assert 0.99 <= rows[mode, part]["ratio"] <= 1.05, rows[mode, part]
    # bf16 mixed precision: 2+2+12 bytes per parameter on ZeRO-0, the same sharded by 2 on ZeRO-3
    assert rows["0", "params"]["measured"] == 2 * n and rows["0", "grads"]["measured"] == 2 * n
    assert rows["3", "params"]["measured"] == n and rows["3", "total"]["theory"] == 16 * n / 2
    assert rows["fsdp2", "params"]["bytes_per_param"] == [4, 4, 8]
    for mode in ("3", "fsdp2"):
        fig = rep["resume"][mode]
        assert fig["bit_exact"] and fig["losses_identical"] and fig["tensors_compared"] > 20
        assert sorted(map(int, fig["resumed_losses"])) == [3, 4]
    assert (tmp_path / "run" / "zero.png").stat().st_size > 10_000
    assert list((tmp_path / "run" / "resume" / "logs").rglob("stderr.log"))


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
