"""The user's own answers to bank questions, versioned: save, revise, and see each revision's grade.

Every save is a new revision graded by `coach.grading.grade` (the interview's grader), so "my best answer to
the ZeRO question" improves visibly. A mock-interview answer can be saved the same way (source "interview").
Stored in the `my_answers` table, which the data export writes out with every other table.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone

from coach.db import transaction
from coach.grading import Grade, grade
from question_bank.loader import Bank

SOURCES = ("own", "interview")


class AnswerError(ValueError):
    """An empty answer, an unknown question or source; `text(lang)` words it for the user."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(code)
        self.code, self.params = code, params

    def text(self, lang: str = "en") -> str:
        zh, en = _MESSAGES[self.code]
        return (zh if lang == "zh" else en).format(**self.params)


_MESSAGES = {
    "empty": ("答案是空的：写下你的回答再保存", "The answer is empty: write your answer, then save"),
    "unknown_question": ("题库里没有题目 {qid}", "The bank has no question {qid}"),
    "unknown_source": ("未知来源 {source}", "Unknown source {source}"),
}


@dataclass(frozen=True)
class AnswerRevision:
    question_id: str
    revision: int
    answer: str
    lang: str
    score: int
    grade: Grade
    source: str
    created: str


def save_answer(conn: sqlite3.Connection, bank: Bank, question_id: str, answer: str, lang: str = "zh",
                source: str = "own") -> AnswerRevision:
    """Grade `answer` and store it as the question's next revision."""
    if not answer.strip():
        raise AnswerError("empty")
    if question_id not in bank.by_id:
        raise AnswerError("unknown_question", qid=question_id)
    if source not in SOURCES:
        raise AnswerError("unknown_source", source=source)
    g = grade(bank.by_id[question_id], answer, lang)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with transaction(conn):
        row = conn.execute("SELECT COALESCE(MAX(revision), 0) FROM my_answers WHERE question_id = ?",
                           (question_id,)).fetchone()
        revision = row[0] + 1
        conn.execute("INSERT INTO my_answers VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (question_id, revision, answer.strip(), lang, g.score, g.model_dump_json(), source, now))
    return AnswerRevision(question_id, revision, answer.strip(), lang, g.score, g, source, now)


def answer_history(conn: sqlite3.Connection, question_id: str) -> list[AnswerRevision]:
    """Every revision of the user's answer to `question_id`, oldest first."""
    rows = conn.execute("SELECT * FROM my_answers WHERE question_id = ? ORDER BY revision", (question_id,))
    return [AnswerRevision(r["question_id"], r["revision"], r["answer"], r["lang"], r["score"],
                           Grade.model_validate_json(r["grade_json"]), r["source"], r["created"]) for r in rows]


def best_answer(conn: sqlite3.Connection, question_id: str) -> AnswerRevision | None:
    """The highest-scoring revision (the latest of equals), or None when there is none."""
    revs = answer_history(conn, question_id)
    return max(revs, key=lambda r: (r.score, r.revision)) if revs else None


@dataclass(frozen=True)
class AnswerSummary:
    question_id: str
    revisions: int
    first: int      # the first revision's score
    best: int
    latest: int
    updated: str


def answered(conn: sqlite3.Connection) -> list[AnswerSummary]:
    """One row per question the user has answered, the most recently revised first."""
    rows = conn.execute(
        "SELECT question_id, COUNT(*) AS n, MAX(score) AS best, MAX(created) AS updated,"
        " (SELECT score FROM my_answers f WHERE f.question_id = a.question_id ORDER BY revision LIMIT 1) AS first,"
        " (SELECT score FROM my_answers l WHERE l.question_id = a.question_id ORDER BY revision DESC LIMIT 1)"
        " AS latest FROM my_answers a GROUP BY question_id ORDER BY updated DESC, question_id")
    return [AnswerSummary(r["question_id"], r["n"], r["first"], r["best"], r["latest"], r["updated"]) for r in rows]


# ---- the terminal: python -m coach.my_answers list | save QID (--text T | --file F) | history QID ----------------
def _print_save(rev: AnswerRevision, lang: str) -> None:
    print(("已保存第 {r} 版：{s} / 100" if lang == "zh" else "Saved revision {r}: {s} / 100").format(
        r=rev.revision, s=rev.score))
    for p in rev.grade.missed:
        print(("  未覆盖：" if lang == "zh" else "  missed: ") + (p.zh if lang == "zh" else p.en))


def _print_history(revs: list[AnswerRevision], question_id: str, lang: str) -> None:
    if not revs:
        print(f"还没有 {question_id} 的答案" if lang == "zh" else f"No answer to {question_id} yet")
    for r in revs:
        print(f"r{r.revision}  {r.created[:16].replace('T', ' ')}  {r.source:9}  {r.score:3d} / 100")


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys
    from pathlib import Path

    from coach.db import connect
    from question_bank.loader import load_bank

    p = argparse.ArgumentParser(prog="python -m coach.my_answers", description="Your own answers, versioned.")
    p.add_argument("--lang", choices=("zh", "en"), default="en")
    p.add_argument("--data-dir", help="the user data folder (default: KGP_DATA_DIR or ~/.kilogpu-prep)")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="every question you answered: revisions, first, best and latest score")
    save = sub.add_parser("save", help="grade an answer and store it as the question's next revision")
    save.add_argument("question_id")
    given = save.add_mutually_exclusive_group(required=True)
    given.add_argument("--text")
    given.add_argument("--file", type=Path)
    sub.add_parser("history", help="every revision of one answer with its score").add_argument("question_id")
    args = p.parse_args(argv)
    conn = connect(args.data_dir)
    try:
        if args.cmd == "list":
            for s in answered(conn):
                print(f"{s.question_id:40} r{s.revisions}  {s.first} -> best {s.best}, latest {s.latest}"
                      f"  {s.updated[:10]}")
        elif args.cmd == "history":
            _print_history(answer_history(conn, args.question_id), args.question_id, args.lang)
        else:
            text = args.text if args.file is None else args.file.read_text(encoding="utf-8")
            _print_save(save_answer(conn, load_bank(), args.question_id, text, args.lang), args.lang)
    except AnswerError as e:
        print(e.text(args.lang), file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as e:
        print(f"{args.file}: {e.strerror if isinstance(e, OSError) else 'not UTF-8 text'}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
