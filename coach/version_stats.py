"""Which résumé version works: per version sent, from the application board's cards and their dated moves.

For each résumé version (`applications.resume_doc_id`): the applications sent with it, the interview
invitations among them (a card that ever reached interviewing or offer), the invitation rate with its counts
(a percentage only from 5 applications on: "1/2" says more than "50%"), the median days from applying to the
first answer (any move after applied), and the mean JD coverage of the invited cards vs the others, so the user
can see whether better-matched applications are the ones that get answers. Read-only: the board writes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date
from statistics import mean, median

from coach.board import Card, Move, board, history
from coach.versions import VersionError, get_doc

MIN_FOR_PERCENT = 5
SENT = ("applied", "screening", "interviewing", "offer", "rejected")
INVITED = ("interviewing", "offer")
ANSWERS = ("screening", "interviewing", "offer", "rejected")


@dataclass(frozen=True)
class VersionStats:
    doc_id: int | None           # None: cards sent without a linked version
    label: str
    applications: int
    invitations: int
    days_to_answer: float | None  # median over the cards that got an answer
    answered: int
    coverage_invited: float | None
    coverage_others: float | None

    def rate(self, lang: str = "en") -> str:
        """"3/7 (43%)", or only the counts below MIN_FOR_PERCENT applications: "1/2"."""
        counts = f"{self.invitations}/{self.applications}"
        if self.applications < MIN_FOR_PERCENT:
            return counts + (f"（不足 {MIN_FOR_PERCENT} 份，不计百分比）" if lang == "zh"
                             else f" (fewer than {MIN_FOR_PERCENT}: no percentage)")
        return f"{counts} ({100 * self.invitations / self.applications:.0f}%)"


def version_stats(conn: sqlite3.Connection) -> list[VersionStats]:
    """One row per résumé version that was sent, most applications first."""
    by_version: dict[int | None, list[tuple[Card, list[Move]]]] = {}
    for cards in board(conn).values():
        for card in cards:
            moves = history(conn, card.id)
            if _sent(card, moves):
                by_version.setdefault(card.resume_doc_id, []).append((card, moves))
    rows = [_stats(conn, doc_id, cards) for doc_id, cards in by_version.items()]
    return sorted(rows, key=lambda r: (-r.applications, r.label))


def _sent(card: Card, moves: list[Move]) -> bool:
    return card.applied_on is not None or any(m.to_status in SENT for m in moves)


def _invited(moves: list[Move]) -> bool:
    return any(m.to_status in INVITED for m in moves)


def _stats(conn: sqlite3.Connection, doc_id: int | None, cards: list[tuple[Card, list[Move]]]) -> VersionStats:
    days = [d for c, m in cards if (d := days_to_answer(c, m)) is not None]
    invited = [c.coverage for c, m in cards if _invited(m) and c.coverage is not None]
    others = [c.coverage for c, m in cards if not _invited(m) and c.coverage is not None]
    return VersionStats(
        doc_id, _label(conn, doc_id), len(cards), sum(_invited(m) for _, m in cards),
        median(days) if days else None, len(days),
        mean(invited) if invited else None, mean(others) if others else None,
    )


def _label(conn: sqlite3.Connection, doc_id: int | None) -> str:
    if doc_id is None:
        return "(no version linked)"
    try:
        return get_doc(conn, doc_id).label
    except VersionError:
        return f"(deleted version {doc_id})"


def days_to_answer(card: Card, moves: list[Move]) -> int | None:
    """Days from the application (its date, else the move to applied) to the first answer, if any."""
    applied = card.applied_on or next((m.moved[:10] for m in moves if m.to_status == "applied"), None)
    if applied is None:
        return None
    answer = next((m.moved[:10] for m in moves if m.to_status in ANSWERS and m.moved[:10] >= applied), None)
    return None if answer is None else (date.fromisoformat(answer) - date.fromisoformat(applied)).days


# ---- the terminal view --------------------------------------------------------------------------------------

_HEAD = {
    "zh": ("版本", "投递", "面试邀请率", "回复天数中位数", "JD 覆盖：受邀 / 其他"),
    "en": ("version", "sent", "invitation rate", "median days to answer", "JD coverage: invited / others"),
}


def render(rows: list[VersionStats], lang: str = "en") -> str:
    """The stats as a Markdown table; a missing figure is a dash, not a zero."""
    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:.0f}"

    head = _HEAD[lang]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        days = "-" if r.days_to_answer is None else f"{r.days_to_answer:g} (n={r.answered})"
        lines.append(f"| {r.label} | {r.applications} | {r.rate(lang)} | {days} | "
                     f"{fmt(r.coverage_invited)} / {fmt(r.coverage_others)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    from coach.db import connect

    p = argparse.ArgumentParser(prog="python -m coach.version_stats", description="Which résumé version works.")
    p.add_argument("--lang", choices=("zh", "en"), default="en")
    p.add_argument("--data-dir", help="the user data folder (default: KGP_DATA_DIR or ~/.kilogpu-prep)")
    args = p.parse_args(argv)
    print(render(version_stats(connect(args.data_dir)), args.lang))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
