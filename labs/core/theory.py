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


# ---- inference serving


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, tokens: float = 1, batch: int = 1,
                   bytes_per_value: float = 2) -> float:
    """Bytes of KV cache for `batch` sequences of `tokens` tokens: 2 (K and V) · layers · kv_heads · head_dim ·
    tokens · batch · bytes per value (2 for fp16/bf16, 1 for fp8/int8). With `tokens=1, batch=1` it is the
    per-token cost; GQA/MQA shrink it through `kv_heads`, the hidden size of the FFN does not enter."""
    return 2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_value


def kv_cache_tokens_fit(gpu_bytes: float, weight_bytes: float, layers: int, kv_heads: int, head_dim: int,
                        mem_utilization: float = 0.9, other_bytes: float = 0.0, bytes_per_value: float = 2,
                        tp: int = 1) -> dict[str, float]:
    """How many tokens of KV cache fit on each GPU of a tensor-parallel group of `tp`, the way vLLM budgets it.

    budget = gpu_bytes · mem_utilization; kv = budget − weight_bytes/tp − other_bytes (activations, workspace,
    CUDA graphs: whatever the caller reserves). Under TP each GPU keeps kv_heads/tp heads, or one replicated
    head when tp exceeds kv_heads. Returns budget, weights (per GPU), kv (bytes per GPU), per_token (bytes per
    GPU) and tokens (whole tokens, the same for the group: every GPU holds its heads of every token).
    """
    if tp < 1 or (tp <= kv_heads and kv_heads % tp) or (tp > kv_heads and tp % kv_heads):
        raise ValueError(f"tp={tp} must divide kv_heads={kv_heads} or be a multiple of it")
    budget = gpu_bytes * mem_utilization
    weights = weight_bytes / tp
    kv = budget - weights - other_bytes
    per_token = kv_cache_bytes(layers, max(1, kv_heads // tp), head_dim, bytes_per_value=bytes_per_value)
    return {"budget": budget, "weights": weights, "kv": kv, "per_token": per_token,
            "tokens": math.floor(max(0.0, kv) / per_token)}


def weight_bytes(num_params: float, bits_per_weight: float = 16) -> float:
    """Bytes of the weights alone: params · bits / 8 (16 for bf16, 8 for int8/fp8, 4 for int4; quantisation
    scales and zero points not counted)."""
    return num_params * bits_per_weight / 8


def decode_step_time_s(weight_bytes: float, kv_bytes: float, hbm_bytes_per_s: float, tp: int = 1) -> float:
    """Memory-bound lower bound of one decode step: every step reads all weights and the batch's whole KV cache
    from HBM once, spread evenly over `tp` GPUs: (weights + kv) / (tp · bandwidth). Compute, communication and
    kernel launches only add to it."""
    return (weight_bytes + kv_bytes) / (tp * hbm_bytes_per_s)


def prefill_time_s(num_params: float, tokens: float, peak_flops: float, tp: int = 1, mfu: float = 1.0) -> float:
    """Compute-bound estimate of a prefill: 2·N FLOPs per prompt token (the forward pass, attention's own
    FLOPs ignored) over tp GPUs at `mfu` of `peak_flops` each."""
    return 2 * num_params * tokens / (tp * peak_flops * mfu)


def speculative_expected_tokens(acceptance_rate: float, draft_tokens: int) -> float:
    """Tokens one target-model forward pass yields in speculative decoding (Leviathan et al. 2023, eq. 1):
    (1 − α^(γ+1)) / (1 − α) for γ drafted tokens each accepted with probability α (independently); γ+1 when
    α = 1. The +1 is the token the target samples itself at the first rejection (or after all γ)."""
    a, g = acceptance_rate, draft_tokens
    if not 0 <= a <= 1:
        raise ValueError(f"acceptance_rate must be in [0, 1], got {a}")
    if a == 1:
        return g + 1.0
    return (1 - a ** (g + 1)) / (1 - a)


def paged_kv_blocks(tokens: int, block_size: int = 16) -> dict[str, int]:
    """PagedAttention's blocks for one sequence: ceil(tokens / block_size) blocks, and the unused slots of the
    last block (internal fragmentation, at most block_size − 1 tokens)."""
    blocks = math.ceil(tokens / block_size)
    return {"blocks": blocks, "wasted_tokens": blocks * block_size - tokens}


def tp_decode_allreduce(layers: int, hidden: int, tokens: int, tp: int, bytes_per_value: float = 2,
                        latency_s: float = 0.0, bus_bytes_per_s: float = math.inf) -> dict[str, float]:
    """The all-reduces of one forward step of a Megatron-style tensor-parallel transformer: two per layer
    (after attention's output projection and after the MLP's down projection), each of tokens · hidden values.

    Returns count, message (bytes of one all-reduce), per_rank (bytes each rank sends in a ring all-reduce,
    2(tp−1)/tp of the message) and time (count · (latency_s + per_rank / bus_bytes_per_s), the α-β model).
    """
    count = 2 * layers
    message = tokens * hidden * bytes_per_value
    per_rank = ring_allreduce_bytes_per_rank(message, tp)
    return {"count": count, "message": message, "per_rank": per_rank,
            "time": count * (latency_s + per_rank / bus_bytes_per_s)}
