"""Figures in answers: every number with a unit must be given in the question, computed by a `verified_by`
entry, or `cited` from one of the question's references.

The bank predates the rule, so `uncited_baseline.txt` lists the figures that were uncited when it came in
(question id, tab, figure). `check` rejects any uncited figure not on that list; the list only shrinks:
`python -m question_bank figures --baseline` rewrites it from the bank as it is.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from question_bank.schema import Question

BASELINE = Path(__file__).with_name("uncited_baseline.txt")

_UNITS = ("GB/s|TB/s|GiB/s|MB/s|Gbps|Gb/s|Tb/s|GB|GiB|MB|MiB|TB|TiB|KB|KiB|PFLOPs?|PFLOPS|TFLOPs?|TFLOPS|"
          "GFLOPs?|ms|µs|us|ns|min|s|h|%|kW|W|×|x|秒|毫秒|微秒|分钟|小时|天|倍")
# A number (1.5, 1,024, 80) and its unit, not part of a longer word or number: "8 GB", "0.6 s", "12%", "3x".
_FIGURE = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)*)\s?(" + _UNITS + r")(?![A-Za-z/])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def figures(text: str) -> list[str]:
    """The figures in `text`, each as number + space + unit ("8 GB")."""
    return [f"{m.group(1)} {m.group(2)}" for m in _FIGURE.finditer(text)]


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def answer_text(q: Question, lang: str) -> str:
    a = q.answer.zh if lang == "zh" else q.answer.en
    return " ".join([a.essence, *a.parts])


def uncited(q: Question) -> list[str]:
    """The figures of both answers whose number is neither in the question text nor in a verified or cited
    figure, once each."""
    covered = _numbers(q.question.zh + " " + q.question.en)
    for entry in [*q.verified_by, *q.cited]:
        covered |= _numbers(entry.shown)
    out: list[str] = []
    for lang in ("en", "zh"):
        for fig in figures(answer_text(q, lang)):
            if fig.split(" ")[0].replace(",", "") not in covered and fig not in out:
                out.append(fig)
    return out


def read_baseline(path: Path = BASELINE) -> frozenset[tuple[str, str]]:
    """The legacy uncited figures as (question id, figure); read once per version of the file."""
    return _read(path, path.stat().st_mtime_ns if path.exists() else 0)


@functools.lru_cache(maxsize=4)
def _read(path: Path, mtime_ns: int) -> frozenset[tuple[str, str]]:
    if not mtime_ns:
        return frozenset()
    rows = (line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return frozenset((qid, fig) for qid, fig in rows)


def write_baseline(questions: list[Question], path: Path = BASELINE) -> int:
    rows = sorted({(q.id, fig) for q in questions for fig in uncited(q)})
    path.write_text("".join(f"{qid}\t{fig}\n" for qid, fig in rows), encoding="utf-8")
    return len(rows)
