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


# ---- MoE


def moe_expert_params(hidden: int, ffn_hidden: int, gated: bool = True) -> float:
    """Parameters of one FFN expert: 3·h·f for a gated (SwiGLU) expert (gate, up and down projections),
    2·h·f for a plain two-matrix FFN; biases ignored, as in Mixtral and DeepSeek-V3."""
    return (3 if gated else 2) * hidden * ffn_hidden


def moe_params(num_moe_layers: int, num_experts: int, top_k: int, hidden: int, expert_ffn_hidden: int,
               shared_experts: int = 0, dense_params: float = 0.0, gated: bool = True) -> dict[str, float]:
    """Total and per-token active parameters of an MoE model.

    Every MoE layer holds `num_experts` routed experts plus `shared_experts` always-on experts of the same
    size (`moe_expert_params`); a token runs `top_k` routed experts and every shared one. `dense_params`
    (attention, embeddings, dense FFN layers, routers) counts in both totals. Returns routed_total, shared,
    routed_active, total and active.
    """
    if not 1 <= top_k <= num_experts:
        raise ValueError(f"top_k must be in 1..num_experts, got {top_k} of {num_experts}")
    p = moe_expert_params(hidden, expert_ffn_hidden, gated)
    routed_total = num_moe_layers * num_experts * p
    shared = num_moe_layers * shared_experts * p
    routed_active = num_moe_layers * top_k * p
    return {"routed_total": routed_total, "shared": shared, "routed_active": routed_active,
            "total": dense_params + routed_total + shared, "active": dense_params + routed_active + shared}


def moe_alltoall_bytes(tokens: int, top_k: int, hidden: int, bytes_per_elem: float = 2, ep: int = 1,
                       ep_ranks_per_node: int | None = None) -> dict[str, float]:
    """Bytes one rank sends in one MoE all-to-all (dispatch, or the combine of the same size) under uniform
    routing and without de-duplication: every token goes out once per chosen expert, T·k·h·bytes.

    `remote` is the share that leaves the rank, (ep-1)/ep of it; `cross_node` the share that leaves the node
    when the EP group spans nodes with `ep_ranks_per_node` of its ranks each, (ep-g)/ep.
    """
    buffer = tokens * top_k * hidden * bytes_per_elem
    g = ep if ep_ranks_per_node is None else min(ep_ranks_per_node, ep)
    return {"buffer": buffer, "remote": buffer * (ep - 1) / ep, "cross_node": buffer * (ep - g) / ep}


def expert_capacity(tokens: int, num_experts: int, top_k: int = 1, capacity_factor: float = 1.0) -> int:
    """Tokens one expert accepts before it drops the rest (Switch Transformer; Megatron-Core's formula):
    ceil(tokens · k · capacity_factor / num_experts), `tokens` being those routed together (per rank)."""
    return math.ceil(tokens * top_k * capacity_factor / num_experts)


def switch_aux_loss(fractions: list[float], probs: list[float], alpha: float = 0.01) -> float:
    """Switch Transformer load-balancing loss α·N·Σ f_i·P_i: f_i the share of tokens dispatched to expert i,
    P_i the mean router probability of expert i. Perfect balance (every f_i = P_i = 1/N) gives α; all tokens
    on one expert with probability 1 gives α·N."""
    if len(fractions) != len(probs):
        raise ValueError("fractions and probs need one entry per expert")
    n = len(fractions)
    return alpha * n * sum(f * p for f, p in zip(fractions, probs, strict=True))


def expected_nodes_per_token(num_experts: int, top_k: int, num_nodes: int) -> float:
    """Expected number of distinct nodes one token's top-k experts sit on, when the k experts are k distinct
    experts drawn uniformly and the experts are spread evenly over `num_nodes`: N·(1 - C(E - E/N, k)/C(E, k)).
    Node-limited routing (DeepSeek-V3: at most 4 nodes) caps this number."""
    if num_experts % num_nodes:
        raise ValueError("num_experts must divide evenly over num_nodes")
    e, k, n = num_experts, top_k, num_nodes
    miss = math.comb(e - e // n, k) / math.comb(e, k)  # no chosen expert on a given node
    return n * (1 - miss)


def moe_expert_state_bytes_per_gpu(routed_params: float, ep: int, pp: int = 1, etp: int = 1, edp: int = 1,
                                   param_bytes: float = 2, grad_bytes: float = 4, optim_bytes: float = 12,
                                   shard_optimizer: bool = True) -> dict[str, float]:
    """Bytes of routed-expert weights, gradients and optimizer states on one GPU.

    The routed experts are split over EP (whole experts), ETP (inside an expert) and PP (layers, assumed even);
    the expert data-parallel group (EDP) holds replicas, and a distributed optimizer (ZeRO-1) shards the
    optimizer states over it. Defaults: bf16 weights, fp32 gradients, fp32 master weights + Adam m and v.
    """
    local = routed_params / (ep * pp * etp)
    params, grads = local * param_bytes, local * grad_bytes
    optim = local * optim_bytes / (edp if shard_optimizer else 1)
    return {"local_params": local, "params": params, "grads": grads, "optim": optim,
            "total": params + grads + optim}
