"""The formulas the bank's answers and the labs rely on, checked against published figures."""

import math

import pytest

from labs.core import theory


def test_zero_matches_the_paper_table():
    # ZeRO paper, Figure 1: 7.5B parameters, 64 GPUs: 120, 31.4, 16.6 and 1.9 GB per device.
    got = [theory.zero_bytes_per_rank(7.5e9, 64, s)["total"] / 1e9 for s in range(4)]
    assert got == pytest.approx([120, 31.4, 16.6, 1.9], abs=0.05)


def test_zero_rejects_unknown_stage():
    with pytest.raises(ValueError, match="stage"):
        theory.zero_bytes_per_rank(1e9, 8, 4)


def test_ring_allreduce_volume_approaches_twice_the_message():
    assert theory.ring_allreduce_bytes_per_rank(1.0, 2) == 1.0
    assert theory.ring_allreduce_bytes_per_rank(1.0, 1024) == pytest.approx(2.0, rel=1e-3)
    assert theory.bus_bandwidth(100.0, 8) == pytest.approx(175.0)


def test_pipeline_bubble():
    assert theory.pipeline_bubble_fraction(4, 4) == pytest.approx(3 / 7)
    assert theory.pipeline_bubble_fraction(8, 32) == pytest.approx(7 / 39)
    # interleaving with v=2 halves the bubble time
    assert theory.pipeline_bubble_fraction(4, 8, 2) == pytest.approx(1.5 / 9.5)


def test_young_daly_and_mtbf():
    assert theory.job_mtbf_hours(50_000, 1000) == 50
    tau = theory.young_daly_interval(60, 3600 * 10)
    assert tau == pytest.approx(math.sqrt(2 * 60 * 36000))
    # the Young/Daly interval minimises the first-order waste
    waste = lambda t: theory.expected_waste_fraction(t, 60, 300, 36000)  # noqa: E731
    assert waste(tau) < waste(tau * 0.8) and waste(tau) < waste(tau * 1.25)


def test_flops_and_mfu():
    assert theory.training_flops(7e9, 2e12) == pytest.approx(8.4e22)
    assert theory.mfu(1000, 1e9, 1, 6e12) == pytest.approx(1.0)


def test_activation_memory_formula():
    s, b, h, a = 2048, 1, 4096, 32
    assert theory.activation_bytes_per_layer(s, b, h, a) == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    assert theory.activation_bytes_per_layer(s, b, h, a, recompute="full") == 2 * s * b * h


def test_activation_memory_with_sequence_parallel_and_flash_attention():
    s, b, h, a, t = 4096, 1, 8192, 64, 8
    base = theory.activation_bytes_per_layer(s, b, h, a)
    assert theory.activation_bytes_per_layer(s, b, h, a, tp=t, sequence_parallel=True) == pytest.approx(base / t)
    assert theory.activation_bytes_per_layer(s, b, h, a, flash_attention=True) == pytest.approx(34 * s * b * h)
    assert theory.activation_bytes_per_layer(s, b, h, a, tp=t, sequence_parallel=True,
                                             recompute="full") == pytest.approx(2 * s * b * h / t)
