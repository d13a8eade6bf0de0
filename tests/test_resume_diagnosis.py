"""Résumé diagnosis (coach.diagnose): strong résumés beat weak ones on every dimension, a baseline is
worth points, each lost point says why, and bad input exits 2 with one line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from coach.diagnose import diagnose, main, quantification, star_completeness
from coach.jd import analyze_jd

JD = """Requirements
- Python and PyTorch distributed training (FSDP)
- Checkpointing and fault tolerance for large jobs
- NCCL tuning
Nice to have
- Pipeline parallelism
"""
STRONG_EN = [
    "For a 7B pretraining run on 256 A100 GPUs, implemented async DCP checkpointing in Python, cutting the "
    "checkpoint stall from 40 s to 6 s per save",
    "To keep a 64-node job alive through node failures, built fault-tolerant elastic restarts with torchrun, "
    "reducing lost GPU hours from 120 to 15 a week",
    "On the 13B model, tuned FSDP and NCCL bucket sizes, raising MFU from 38% to 52% on 128 GPUs",
]
WEAK_EN = ["Responsible for checkpoints", "Worked on training stability, improved things by 30%",
           "Helped with distributed training"]
STRONG_ZH = ["在 512 张 A100 上训练 70亿参数模型时，用 FSDP 实现异步检查点，把每次保存的停顿从 40 秒降到 6 秒",
             "为了让 64 节点训练扛住掉卡，基于 torchrun 搭建容错与弹性重启，每周损失的卡时从 120 降到 15",
             "在 128 卡上调优 NCCL 通信，MFU 从 38% 提升到 52%"]
WEAK_ZH = ["负责检查点", "做过训练稳定性，效果提升 30%", "参与分布式训练"]


@pytest.mark.parametrize(("strong", "weak"), [(STRONG_EN, WEAK_EN), (STRONG_ZH, WEAK_ZH)])
def test_a_strong_resume_beats_a_weak_one_on_every_dimension(strong: list[str], weak: list[str]) -> None:
    jd = analyze_jd(JD)
    good = diagnose("strong", strong, "\n".join(strong), jd)
    bad = diagnose("weak", weak, "\n".join(weak), jd)
    assert good.coverage is not None and bad.coverage is not None
    assert good.coverage > bad.coverage
    assert good.quantification > bad.quantification
    assert good.star > bad.star
    assert {g.skill_id for g in bad.missing} > {g.skill_id for g in good.missing}


@pytest.mark.parametrize(("without", "with_baseline"), [
    ("Cut step time by 30%", "Cut step time from 1.2 s to 0.8 s (30%)"),
    ("训练吞吐提升 30%", "训练吞吐从 2000 提升到 2600 tokens/s，提升 30%"),
    ("Raised MFU to 52%", "Raised MFU from 38% to 52%"),
])
def test_a_number_without_a_baseline_scores_lower(without: str, with_baseline: str) -> None:
    (low, why), (high, _) = quantification(without), quantification(with_baseline)
    assert low < high and "no_baseline" in why


def test_no_number_scores_zero_and_a_scale_adds_points() -> None:
    assert quantification("Improved the data loader") == (0, ["no_result", "no_scale"])
    assert quantification("Cut step time by 30% on 64 GPUs")[0] > quantification("Cut step time by 30%")[0]
    assert quantification("在千卡集群上训练") == (20, ["no_result"])  # a scale is not a result


def test_star_needs_context_action_result_in_that_order() -> None:
    assert star_completeness("On the 13B run, rewrote the loader, cutting step time by 30%") == (100, [])
    score, why = star_completeness("30% faster steps after I rewrote the loader for the 13B run")
    assert score < 100 and "order" in why
    assert star_completeness("Responsible for checkpoints")[1] == ["no_action", "no_star_result"]


def test_every_lost_point_is_explained_and_linked_to_a_fix() -> None:
    jd = analyze_jd(JD)
    d = diagnose("weak", WEAK_EN, "\n".join(WEAK_EN), jd)
    for b in d.bullets:
        assert b.notes and b.fixes, b
    pp = next(g for g in d.missing if g.skill_id == "pipeline_parallel")
    assert pp.level == "preferred" and "pipeline" in pp.labs and pp.questions


def _write(tmp_path: Path, name: str, bullets: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("# Li Wei\n\n## Experience\n\n### Engineer\n\n" + "\n".join(f"- {b}" for b in bullets) + "\n",
                    encoding="utf-8")
    return path


def test_the_cli_prints_versions_side_by_side(tmp_path: Path) -> None:
    weak, strong = _write(tmp_path, "weak.md", WEAK_EN), _write(tmp_path, "strong.md", STRONG_EN)
    jd = tmp_path / "jd.txt"
    jd.write_text(JD, encoding="utf-8")
    out = io.StringIO()
    assert main([str(weak), str(strong), "--jd", str(jd)], out=out) == 0
    text = out.getvalue()
    assert "| weak.md |" in text and "| strong.md |" in text and "a result with no baseline" in text
    assert "pipeline parallelism (preferred): labs pipeline" in text


@pytest.mark.parametrize("content", [None, b"", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "cv.pdf"
    if content is not None:
        path.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    assert main([str(path), "--lang", "zh"], out=out, err=err) == 2
    assert out.getvalue() == "" and len(err.getvalue().strip().splitlines()) == 1 and "Traceback" not in err.getvalue()
