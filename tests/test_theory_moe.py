"""The MoE formulas of labs.core.theory, checked against the figures the papers publish."""

import math

import pytest

from labs.core import theory

# Mixtral 8x7B (Jiang et al. 2024): 32 layers, h=4096, SwiGLU experts of f=14336, 8 experts, top-2, GQA with
# 8 KV heads of 128, vocabulary 32000 with untied embeddings. Everything outside the experts:
MIXTRAL_DENSE = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024) + 2 * 32000 * 4096 + 32 * 4096 * 8 + (2 * 32 + 1) * 4096


def test_mixtral_has_47b_total_and_13b_active():
    got = theory.moe_params(32, 8, 2, 4096, 14336, dense_params=MIXTRAL_DENSE)
    assert got["total"] / 1e9 == pytest.approx(46.7, abs=0.05)    # the paper: 47B
    assert got["active"] / 1e9 == pytest.approx(12.9, abs=0.05)   # the paper: 13B
    assert got["routed_active"] * 4 == got["routed_total"]


def test_deepseek_v3_routed_experts_are_most_of_671b():
    # DeepSeek-V3: 58 MoE layers (61 minus 3 dense), 256 routed + 1 shared expert of f=2048, h=7168, top-8.
    got = theory.moe_params(58, 256, 8, 7168, 2048, shared_experts=1)
    assert theory.moe_expert_params(7168, 2048) == 3 * 7168 * 2048
    assert got["routed_total"] / 1e9 == pytest.approx(653.9, abs=0.05)
    assert got["routed_active"] / 1e9 == pytest.approx(20.4, abs=0.05)
    assert got["routed_total"] < 671e9 and got["routed_active"] + got["shared"] < 37e9


def test_moe_params_rejects_a_top_k_beyond_the_experts():
    with pytest.raises(ValueError, match="top_k"):
        theory.moe_params(1, 8, 9, 16, 16)


def test_alltoall_volume_matches_the_collectives_answer():
    got = theory.moe_alltoall_bytes(4096, 2, 4096, 2, ep=32, ep_ranks_per_node=8)
    assert got["buffer"] == 4096 * 2 * 4096 * 2
    assert got["remote"] == pytest.approx(got["buffer"] * 31 / 32)
    assert got["cross_node"] == pytest.approx(got["buffer"] * 0.75)
    inside = theory.moe_alltoall_bytes(4096, 2, 4096, 2, ep=8, ep_ranks_per_node=8)
    assert inside["cross_node"] == 0


def test_expert_capacity_is_the_ceiling_of_the_balanced_share():
    assert theory.expert_capacity(4096, 8, top_k=2, capacity_factor=1.0) == 1024
    assert theory.expert_capacity(4096, 8, top_k=2, capacity_factor=1.25) == 1280
    assert theory.expert_capacity(10, 3) == 4


def test_switch_aux_loss_is_alpha_at_balance_and_alpha_n_when_collapsed():
    n = 8
    assert theory.switch_aux_loss([1 / n] * n, [1 / n] * n, alpha=0.01) == pytest.approx(0.01)
    collapsed = [1.0] + [0.0] * (n - 1)
    assert theory.switch_aux_loss(collapsed, collapsed, alpha=0.01) == pytest.approx(0.08)
    with pytest.raises(ValueError):
        theory.switch_aux_loss([0.5, 0.5], [1.0])


def test_expected_nodes_per_token():
    assert theory.expected_nodes_per_token(256, 1, 8) == pytest.approx(1.0)
    assert theory.expected_nodes_per_token(256, 256, 8) == pytest.approx(8.0)
    # DeepSeek-V3's 256 experts over 8 nodes, top-8, without the node limit: about 5.3 nodes a token
    v3 = theory.expected_nodes_per_token(256, 8, 8)
    assert v3 == pytest.approx(8 * (1 - math.comb(224, 8) / math.comb(256, 8)))
    assert 5.2 < v3 < 5.4
    with pytest.raises(ValueError):
        theory.expected_nodes_per_token(10, 2, 4)


def test_expert_state_shrinks_with_ep_and_the_optimizer_with_edp():
    routed = theory.moe_params(58, 256, 8, 7168, 2048)["routed_total"]
    wide = theory.moe_expert_state_bytes_per_gpu(routed, ep=64, pp=16, edp=2)
    narrow = theory.moe_expert_state_bytes_per_gpu(routed, ep=8, pp=16, edp=16)
    assert wide["local_params"] * 8 == pytest.approx(narrow["local_params"])
    assert wide["total"] / 1e9 == pytest.approx(7.66, abs=0.01)
    assert wide["params"] + wide["grads"] + wide["optim"] == pytest.approx(wide["total"])
    assert wide["optim"] == pytest.approx(narrow["optim"])  # same optimizer shard: 1/(EP·PP·EDP) of the states
    unsharded = theory.moe_expert_state_bytes_per_gpu(routed, ep=64, pp=16, edp=2, shard_optimizer=False)
    assert unsharded["optim"] == pytest.approx(2 * wide["optim"])
