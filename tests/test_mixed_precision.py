"""mixed_precision end to end: fp32, bf16 autocast and fp16 + GradScaler under DDP on 2 CPU processes.

The first test checks the figures the lab measured from the tensors: overflowed steps skipped on every
rank with the parameters unchanged, the scale halving and growing exactly as GradScaler's rule predicts,
the losses within the tolerance of fp32. The second shows the loss check failing when the fp32 and bf16
runs keep the updates fp16 lost to overflows.
"""


import conftest


def run_lab(tmp_path, *args: str, timeout: int = 240) -> tuple[int, dict]:
    return conftest.run_lab(tmp_path, "mixed_precision", *args, timeout=timeout)


def test_overflow_is_skipped_the_scale_adapts_and_the_loss_matches_fp32(tmp_path):
    code, rep = run_lab(tmp_path, "--steps", "24", "--inject-step", "16")
    assert code == 0, rep["checks"]
    assert rep["passed"] and all(rep["checks"].values())
    assert rep["matmul_dtype"] == {"fp32": "torch.float32", "bf16": "torch.bfloat16", "fp16": "torch.float16"}
    sc, skipped = rep["scale"], rep["skipped_steps"]
    assert 1 in skipped and 16 in skipped          # init_scale 2^22 overflows; the injected loss too
    assert sc["measured"][0] == 2.0**21            # halved by the first overflow
    assert sc["measured"] == sc["predicted"]
    assert any(b > a for a, b in zip(sc["measured"], sc["measured"][1:], strict=False))  # grew
    for m in ("bf16", "fp16"):
        assert rep["final_loss_rel_diff_vs_fp32"][m] < 0.01
    assert rep["final_loss"]["fp32"] < rep["losses"]["fp32"]["1"]
    assert (tmp_path / "run" / "mixed_precision.png").stat().st_size > 10_000


def test_loss_check_fails_when_fp32_keeps_the_updates_fp16_skipped(tmp_path):
    code, rep = run_lab(tmp_path, "--steps", "24", "--inject-step", "16", "--no-align-skips")
    assert code == 1 and not rep["passed"]
    assert not rep["checks"]["fp16_loss_matches_fp32"] and rep["final_loss_rel_diff_vs_fp32"]["fp16"] > 0.01
    assert rep["checks"]["scale_follows_rule"] and rep["checks"]["skipped_steps_left_params_unchanged"]
