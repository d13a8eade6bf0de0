"""Offline grading latency: p50 / p95 / max milliseconds per answer.

    python -m coach.bench_grading            # every bank question, its zh and en reference answers as answers,
                                             # plus every answer of tests/data/grading_calibration.yaml
    python -m coach.bench_grading --repeat 3

The first answer to a question also compiles its rubric (cached afterwards); both that cold figure and the warm
one are reported, since a mock interview grades each question a few times (main answer, follow-ups, close).
The target is p95 < 50 ms per answer on one core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import yaml

from coach.grading import grade
from question_bank.loader import load_bank
from question_bank.schema import Question

CALIBRATION = Path(__file__).resolve().parents[1] / "tests" / "data" / "grading_calibration.yaml"
TARGET_P95_MS = 50.0


def answers(bank_questions: list[Question], by_id: dict[str, Question]) -> list[tuple[Question, str, str]]:
    """(question, answer, lang): reference answers (long, dense with terms) and the calibration answers."""
    out = [(q, " ".join([getattr(q.answer, lang).essence, *getattr(q.answer, lang).parts]), lang)
           for q in bank_questions for lang in ("zh", "en")]
    if CALIBRATION.is_file():
        for a in yaml.safe_load(CALIBRATION.read_text(encoding="utf-8"))["answers"]:
            out.append((by_id[a["question"]], a["text"], a["lang"]))
    return out


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


def time_ms(items: list[tuple[Question, str, str]]) -> list[float]:
    out = []
    for q, text, lang in items:
        t0 = time.perf_counter()
        grade(q, text, lang)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def run(repeat: int = 1) -> tuple[str, float]:
    bank = load_bank()
    items = answers(bank.questions, bank.by_id)
    cold = time_ms(items)                      # each question's first grade compiles its rubric
    warm = [t for _ in range(repeat) for t in time_ms(items)]
    lines = [f"{len(items)} answers ({len(bank.questions)} questions), warm mean {statistics.mean(warm):.1f} ms",
             f"cold: p50 {percentile(cold, 50):.1f} ms  p95 {percentile(cold, 95):.1f} ms  max {max(cold):.1f} ms",
             f"warm: p50 {percentile(warm, 50):.1f} ms  p95 {percentile(warm, 95):.1f} ms  max {max(warm):.1f} ms"]
    p95 = max(percentile(cold, 95), percentile(warm, 95))
    lines.append(f"p95 {'<' if p95 < TARGET_P95_MS else '>='} {TARGET_P95_MS:.0f} ms target: "
                 f"{'OK' if p95 < TARGET_P95_MS else 'MISSED'}")
    return "\n".join(lines), p95


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m coach.bench_grading", description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1, help="warm passes over the answers (default 1)")
    report, p95 = run(max(1, p.parse_args(argv).repeat))
    print(report)
    return 0 if p95 < TARGET_P95_MS else 1


if __name__ == "__main__":
    sys.exit(main())
