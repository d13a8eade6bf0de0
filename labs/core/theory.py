"""The formulas interviewers ask about, as functions the labs measure against and the bank's answers cite.

Every number in a bank answer that comes from a formula names one of these functions in `verified_by`;
`tests/test_theory.py` checks the functions and `tests/test_bank.py` checks the answers against them.
"""

from __future__ import annotations

import math

GB = 1e9  # decimal gigabytes, as vendors and papers quote GPU memory


def zero_bytes_per_rank(
    num_params: float,
    world_size: int,
    stage: int,
    param_bytes: int = 2,
    grad_bytes: int = 2,
    optim_bytes: int = 12,
) -> dict[str, float]:
    """Bytes of parameters, gradients and optimizer states one rank holds under ZeRO `stage` (0-3).

    Defaults are mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020): fp16/bf16 params (2Ψ) and
    grads (2Ψ), fp32 master params + momentum + variance (12Ψ, the paper's K=12). Stage 1 shards the
    optimizer states, stage 2 also the gradients, stage 3 also the parameters.
    """
    if stage not in (0, 1, 2, 3):
        raise ValueError(f"ZeRO stage must be 0..3, got {stage}")
    n = world_size
    params = num_params * param_bytes / (n if stage >= 3 else 1)
    grads = num_params * grad_bytes / (n if stage >= 2 else 1)
    optim = num_params * optim_bytes / (n if stage >= 1 else 1)
    return {"params": params, "grads": grads, "optim": optim, "total": params + grads + optim}


def ring_allreduce_bytes_per_rank(size_bytes: float, world_size: int) -> float:
    """Bytes each rank sends in a ring all-reduce of `size_bytes`: reduce-scatter + all-gather, 2(n-1)/n·S."""
    n = world_size
    return 2 * (n - 1) / n * size_bytes


def bus_bandwidth(alg_bandwidth: float, world_size: int) -> float:
    """nccl-tests' bus bandwidth for all-reduce: algbw · 2(n-1)/n, comparable to the link's peak speed."""
    n = world_size
    return alg_bandwidth * 2 * (n - 1) / n


def alpha_beta_time(size_bytes: float, alpha_s: float, beta_s_per_byte: float) -> float:
    """Latency/bandwidth (alpha-beta) model of one message: t = α + β·S."""
    return alpha_s + beta_s_per_byte * size_bytes


def pipeline_bubble_fraction(stages: int, microbatches: int, virtual_stages: int = 1) -> float:
    """Idle share of a GPipe/1F1B step: (p-1)/(m+p-1); interleaving with v chunks per rank divides the
    bubble by v (Megatron-LM, Narayanan et al. 2021): ((p-1)/v) / (m + (p-1)/v)."""
    p, m, v = stages, microbatches, virtual_stages
    bubble = (p - 1) / v
    return bubble / (m + bubble)


def job_mtbf_hours(per_gpu_mtbf_hours: float, num_gpus: int) -> float:
    """Mean time between failures of a job that stops when any one of `num_gpus` fails (independent, exponential)."""
    return per_gpu_mtbf_hours / num_gpus


def young_daly_interval(checkpoint_cost_s: float, mtbf_s: float) -> float:
    """Optimal checkpoint interval to first order (Young 1974, Daly 2006): sqrt(2·C·M)."""
    return math.sqrt(2 * checkpoint_cost_s * mtbf_s)


def expected_waste_fraction(interval_s: float, checkpoint_cost_s: float, restart_cost_s: float,
                            mtbf_s: float) -> float:
    """First-order share of wall time lost: checkpoint overhead C/τ plus, per failure, restart R and
    on average half an interval of recomputation, (R + τ/2)/M."""
    return checkpoint_cost_s / interval_s + (restart_cost_s + interval_s / 2) / mtbf_s


def training_flops(num_params: float, num_tokens: float) -> float:
    """Dense transformer training compute, 6·N·D FLOPs (forward 2ND + backward 4ND; Kaplan et al. 2020)."""
    return 6 * num_params * num_tokens


def mfu(tokens_per_s: float, num_params: float, num_gpus: int, peak_flops_per_gpu: float) -> float:
    """Model FLOPs utilisation (PaLM, Chowdhery et al. 2022): achieved 6·N·tokens/s over the peak."""
    return 6 * num_params * tokens_per_s / (num_gpus * peak_flops_per_gpu)


def activation_bytes_per_layer(seq: int, batch: int, hidden: int, heads: int, tp: int = 1,
                               sequence_parallel: bool = False, flash_attention: bool = False,
                               recompute: str = "none") -> float:
    """Activation memory of one transformer layer in 16-bit training (Korthikanti et al. 2022).

    s·b·h·(34 + 5·a·s/h) bytes without parallelism. Tensor parallel divides all but the 10·s·b·h kept by
    layer norms and dropout by t; sequence parallel divides those too (everything by t). FlashAttention
    never stores the a·s² score matrices, which drops the 5·a·s/h term. `recompute="full"` keeps only the
    layer input, 2·s·b·h (sharded by t under sequence parallel).
    """
    s, b, h, a, t = seq, batch, hidden, heads, tp
    if recompute == "full":
        return 2 * s * b * h / (t if sequence_parallel else 1)
    if recompute != "none":
        raise ValueError(f"recompute must be 'none' or 'full', got {recompute!r}")
    scores = 0.0 if flash_attention else 5 * a * s / h
    if sequence_parallel:
        return s * b * h * (34 + scores) / t
    return s * b * h * (10 + 24 / t + scores / t)
