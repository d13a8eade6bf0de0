"""The inference-serving formulas of labs.core.theory, checked against figures the papers publish."""

import math

import pytest

from labs.core import theory


def test_kv_cache_per_token_matches_the_vllm_paper_for_opt_13b():
    # Kwon et al. 2023 (PagedAttention): 2 × 5120 × 40 layers × 2 bytes = 800 KB per token for OPT-13B
    # (40 heads of 128), and up to about 1.6 GB for one 2048-token request.
    assert theory.kv_cache_bytes(40, 40, 128) == 2 * 5120 * 40 * 2 == 800 * 1024
    assert theory.kv_cache_bytes(40, 40, 128, tokens=2048) / 1e9 == pytest.approx(1.68, abs=0.01)


def test_gqa_divides_the_kv_cache_by_the_group_size():
    # Llama 2/3 70B: 80 layers, 64 query heads, 8 KV heads of 128.
    mha = theory.kv_cache_bytes(80, 64, 128)
    gqa = theory.kv_cache_bytes(80, 8, 128)
    assert gqa == 320 * 1024 and mha == 8 * gqa
    assert theory.kv_cache_bytes(80, 8, 128, tokens=4096, batch=2) == 4096 * 2 * gqa
    assert theory.kv_cache_bytes(80, 8, 128, bytes_per_value=1) == gqa / 2  # fp8 KV cache


def test_kv_cache_tokens_fit_one_gpu_and_tensor_parallel():
    one = theory.kv_cache_tokens_fit(80e9, 16e9, 32, 8, 128, mem_utilization=0.9, other_bytes=4e9)
    assert one["budget"] == pytest.approx(72e9) and one["kv"] == pytest.approx(52e9)
    assert one["per_token"] == 131072 and one["tokens"] == math.floor(52e9 / 131072)
    tp4 = theory.kv_cache_tokens_fit(80e9, 140e9, 80, 8, 128, 0.9, 4e9, tp=4)
    assert tp4["weights"] == pytest.approx(35e9) and tp4["per_token"] == theory.kv_cache_bytes(80, 2, 128)
    tp16 = theory.kv_cache_tokens_fit(80e9, 140e9, 80, 8, 128, tp=16)  # more GPUs than KV heads: replicated
    assert tp16["per_token"] == theory.kv_cache_bytes(80, 1, 128)
    with pytest.raises(ValueError, match="tp"):
        theory.kv_cache_tokens_fit(80e9, 140e9, 80, 8, 128, tp=3)
    assert theory.kv_cache_tokens_fit(80e9, 200e9, 80, 8, 128)["tokens"] == 0  # weights alone do not fit


def test_weight_bytes_and_the_decode_lower_bound():
    assert theory.weight_bytes(70e9) == 140e9
    assert theory.weight_bytes(70e9, 4) == 35e9
    # 70B in bf16 over TP=4 at 3.35 TB/s per GPU: about 10.4 ms per step before any KV cache.
    assert theory.decode_step_time_s(140e9, 0, 3.35e12, tp=4) == pytest.approx(0.01045, rel=1e-3)
    assert theory.decode_step_time_s(140e9, 10e9, 3.35e12, tp=4) > theory.decode_step_time_s(140e9, 0, 3.35e12, 4)


def test_prefill_time_is_two_flops_per_parameter_per_token():
    assert theory.prefill_time_s(1e9, 1000, 2e12) == pytest.approx(1.0)
    assert theory.prefill_time_s(1e9, 1000, 2e12, tp=2, mfu=0.5) == pytest.approx(1.0)


def test_speculative_expected_tokens():
    assert theory.speculative_expected_tokens(0.8, 4) == pytest.approx(3.3616)
    assert theory.speculative_expected_tokens(0.0, 4) == 1.0   # every draft rejected: the target's own token
    assert theory.speculative_expected_tokens(1.0, 4) == 5.0
    assert theory.speculative_expected_tokens(0.6, 3) < theory.speculative_expected_tokens(0.6, 8) < 1 / 0.4
    with pytest.raises(ValueError):
        theory.speculative_expected_tokens(1.2, 4)


def test_paged_blocks_waste_less_than_one_block():
    assert theory.paged_kv_blocks(1000, 16) == {"blocks": 63, "wasted_tokens": 8}
    assert theory.paged_kv_blocks(1024, 16) == {"blocks": 64, "wasted_tokens": 0}
    assert all(theory.paged_kv_blocks(n, 16)["wasted_tokens"] < 16 for n in range(1, 200))


def test_tp_decode_allreduce_is_two_per_layer():
    got = theory.tp_decode_allreduce(80, 8192, 32, 4, latency_s=10e-6)
    assert got["count"] == 160 and got["message"] == 32 * 8192 * 2
    assert got["per_rank"] == pytest.approx(theory.ring_allreduce_bytes_per_rank(got["message"], 4))
    assert got["time"] == pytest.approx(1.6e-3)  # latency-bound: no bandwidth term given
    with_bw = theory.tp_decode_allreduce(80, 8192, 32, 4, latency_s=10e-6, bus_bytes_per_s=100e9)
    assert with_bw["time"] == pytest.approx(160 * (10e-6 + got["per_rank"] / 100e9))
