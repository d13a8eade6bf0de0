"""What the bank holds: counts by topic x type / difficulty / level, and how complete each language is."""

from __future__ import annotations

from collections import Counter

from question_bank.loader import Bank
from question_bank.schema import Level, QType, Question

COLUMNS = [t.value for t in QType] + ["d1", "d2", "d3"] + [lv.value for lv in Level]


def _row(questions: list[Question]) -> list[int]:
    counts = Counter()
    for q in questions:
        counts.update([q.type.value, f"d{q.difficulty}", q.level.value])
    return [len(questions)] + [counts[c] for c in COLUMNS]


def _texts(q: Question, lang: str) -> list[str]:
    """Every text of `q` in one language: question, answer, key points, mistakes, written follow-ups."""
    answer = getattr(q.answer, lang)
    bilingual = [q.question, *q.key_points, *q.mistakes, *(f for f in q.follow_ups if not isinstance(f, str))]
    return [answer.essence, *answer.parts, *(getattr(t, lang) for t in bilingual)]


def complete_in(q: Question, lang: str) -> bool:
    return all(t.strip() for t in _texts(q, lang))


def format_stats(bank: Bank) -> str:
    """A plain-text report: one table (topics as rows, plus a total), then language and link counts."""
    header = ["topic", "total", *COLUMNS]
    rows = [[name, *_row(t.questions)] for name, t in bank.topics.items()]
    rows.append(["TOTAL", *_row(bank.questions)])
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list) -> str:
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    n = len(bank.questions)
    table = [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows[:-1]),
             line(["-" * w for w in widths]), line(rows[-1])]
    extra = [
        "",
        f"questions: {n} in {len(bank.topics)} topics",
        *(f"complete in {lang}: {sum(complete_in(q, lang) for q in bank.questions)}/{n}" for lang in ("zh", "en")),
        f"numbers verified by labs.theory: {sum(len(q.verified_by) for q in bank.questions)}"
        f" in {sum(bool(q.verified_by) for q in bank.questions)} questions",
        f"questions linked to a lab: {sum(bool(q.labs) for q in bank.questions)}/{n}",
        f"tags used: {len({t for q in bank.questions for t in q.tags})} distinct skills",
    ]
    return "\n".join(table + extra)
