"""Mock interviews: a planned set of bank questions, follow-ups from the answer, the résumé and the user's lab
runs, rubric grading, and the record kept in SQLite.

    python -m coach.interview --jd jd.txt --resume cv.pdf -n 5 --lang zh --seed 7

Answers are read from the terminal (end one with an empty line, or EOF); piped stdin works the same, so a
session can be scripted. The session is saved as it goes and its Markdown transcript path is printed at the end.

The API, for the app's mock-interview page (one connection per caller; the `Session` is plain data):

    session = start_session(conn, jd_text, resume, n=5, lang="zh", seed=7, card_id=None, llm=llm)
                                               # question_ids=[...] instead of a plan (e.g. the due reviews)
    asked = next_question(session)            # AskedQuestion, or None when done; holds no answer
    turn = submit_answer(conn, session, text, llm=llm)   # Turn: .grade (score, points, reasons, reference)
                                                         #       .follow_ups, .notice
    finish_session(conn, session); write_transcript(session)  # or export_markdown(session)
    load_session(conn, session_id); coach.interview_store.list_sessions(conn) / suggested_ratings(conn)

The reference answer is only in the `Grade` that `submit_answer` returns (and `reference()` refuses before it).
Grading, planning and follow-ups: `coach.grading`, `coach.plan`, `coach.followups`, `coach.interviewer_llm`.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import TextIO

from coach import board, review
from coach.db import connect
from coach.documents import Resume, parse_resume
from coach.followups import FollowUp, offline_follow_ups, relevant_claims
from coach.grading import Grade, grade, review_rating
from coach.interview_store import (
    Session,
    Turn,
    claims_of,
    insert_session,
    insert_turn,
    mark_finished,
    read_session,
)
from coach.interviewer_llm import llm_turn
from coach.jd import analyze_jd
from coach.lab_evidence import DEFAULT_RUNS, facts, latest_report
from coach.llm import LLMClient, LLMSettings, LLMUnavailable, fallback_notice
from coach.plan import Pick, plan_session, signals
from coach.transcript import export_markdown, write_transcript
from question_bank.loader import Bank, load_bank
from question_bank.schema import Answer, Question

__all__ = ["AskedQuestion", "Session", "SessionError", "Turn", "export_markdown", "finish_session", "load_session",
           "next_question", "reference", "start_session", "submit_answer", "write_transcript"]


class SessionError(ValueError):
    """A call out of turn: answering a finished session, asking for a reference before its grade."""


@dataclass(frozen=True)
class AskedQuestion:
    """What the candidate sees: the question, never its answer or rubric."""
    position: int      # 0-based
    total: int
    question_id: str
    text: str
    type: str
    difficulty: int
    tags: tuple[str, ...]
    why: tuple[str, ...]  # why the plan picked it (coach.plan.Pick.why)


@cache
def _default_bank() -> Bank:
    return load_bank()


def _iso(now: datetime | None) -> str:
    now = now or datetime.now(timezone.utc)
    if now.tzinfo is None:
        raise ValueError("pass an aware datetime, not a naive one")
    return now.astimezone(timezone.utc).isoformat(timespec="microseconds")


def start_session(conn: sqlite3.Connection, jd_text: str = "", resume: Resume | str | None = None, *, n: int = 5,
                  lang: str = "zh", seed: int | None = None, card_id: int | None = None,
                  runs_dir: Path | str = DEFAULT_RUNS, llm: LLMClient | None = None, bank: Bank | None = None,
                  question_ids: list[str] | None = None, now: datetime | None = None) -> Session:
    """Plan and save a new session (see `coach.plan`); with `card_id`, link it to that application card.
    `question_ids` replaces the plan with these questions, in this order (e.g. the review queue's due ones)."""
    if lang not in ("zh", "en"):
        raise ValueError(f"lang must be 'zh' or 'en', got {lang!r}")
    if card_id is not None:
        board.get_card(conn, card_id)  # fail before saving anything if the card does not exist
    bank = bank or _default_bank()
    resume_text = resume.to_markdown() if isinstance(resume, Resume) else (resume or "")
    bullets = claims_of(resume_text)
    jd = analyze_jd(jd_text, propose=False) if jd_text.strip() else None
    seed = seed if seed is not None else uuid.uuid4().int % 2**31  # stored, so the plan can be reproduced
    if question_ids is not None:
        if unknown := [i for i in question_ids if i not in bank.by_id]:
            raise ValueError(f"not in the bank: {', '.join(unknown)}")
        plan = [Pick(i, ("chosen",)) for i in question_ids]
    else:
        plan = plan_session(bank, n, signals(jd, bullets, conn), seed)
    engine = "llm" if llm is not None and llm.enabled else "offline"
    session = Session(uuid.uuid4().hex, lang, seed, plan, jd_text, resume_text, bullets, str(runs_dir), engine,
                      _iso(now))
    session.used.sources.update(session.question_ids)  # a bank follow-up must not ask a question still to come
    insert_session(conn, session)
    if card_id is not None:
        board.add_session(conn, card_id, session.id)
    return session


def load_session(conn: sqlite3.Connection, session_id: str) -> Session:
    """A saved session, to continue or export."""
    session = read_session(conn, session_id)
    if session is None:
        raise SessionError(f"no interview session {session_id!r}")
    return session


def next_question(session: Session, bank: Bank | None = None, now: datetime | None = None) -> AskedQuestion | None:
    """The question to answer now (its asking time is recorded), or None when every question is answered."""
    if session.done:
        return None
    bank = bank or _default_bank()
    pick = session.plan[len(session.turns)]
    q = bank.by_id[pick.question_id]
    session.asked_at = session.asked_at or _iso(now)
    return AskedQuestion(len(session.turns), len(session.plan), q.id, getattr(q.question, session.lang),
                         q.type.value, q.difficulty, tuple(q.tags), pick.why)


def submit_answer(conn: sqlite3.Connection, session: Session, text: str, llm: LLMClient | None = None,
                  bank: Bank | None = None, now: datetime | None = None) -> Turn:
    """Grade the answer to the current question, ask the follow-ups, save the turn, and feed the review queue
    (FSRS: Again / Hard / Good from the score, `coach.grading.review_rating`) and the skill weakness counts."""
    if session.done:
        raise SessionError("every question of this session is answered")
    bank = bank or _default_bank()
    q = bank.by_id[session.plan[len(session.turns)].question_id]
    answered = _iso(now)
    g = grade(q, text, session.lang)
    # The offline sources count as used even when the LLM rewords them: it was shown them as examples.
    follow_ups = offline_follow_ups(q, g, bank, session.lang, session.bullets, session.runs_dir, session.used)
    engine, notice = "offline", None
    if llm is not None and llm.enabled:
        follow_ups, engine, notice = _ask_llm(llm, q, text, g, session, follow_ups)
    turn = Turn(len(session.turns), q.id, text, g, follow_ups, engine, notice, session.asked_at or answered, answered)
    insert_turn(conn, session.id, turn, q.tags)
    review.rate(conn, q.id, review_rating(g), now)
    session.turns.append(turn)
    session.asked_at = None
    return turn


def _ask_llm(llm: LLMClient, q: Question, text: str, g: Grade, session: Session,
             offline: list[FollowUp]) -> tuple[list[FollowUp], str, str | None]:
    """(follow-ups, engine, notice): the LLM's follow-ups (and feedback into `g`), or the offline ones and why."""
    claims = relevant_claims(q, session.bullets)
    lab_facts = [f for lab in q.labs if (r := latest_report(lab, session.runs_dir)) for f in facts(r)]
    try:
        follow_ups, g.feedback, dropped = llm_turn(llm, q, text, g, session.lang, claims, lab_facts, offline)
    except LLMUnavailable as e:
        return offline, "offline", fallback_notice(e.reason)
    notice = f"{dropped} LLM follow-up(s) dropped: they stated numbers not in your sources" if dropped else None
    return follow_ups, "llm", notice


def reference(session: Session, question_id: str) -> Answer:
    """The reference answer of a question this session has graded; refused before its grade."""
    for turn in session.turns:
        if turn.question_id == question_id:
            return turn.grade.reference
    raise SessionError("the reference answer is shown only after the answer is graded")


def finish_session(conn: sqlite3.Connection, session: Session, now: datetime | None = None) -> Session:
    """Mark the session finished (also when ended early: the unanswered questions stay listed)."""
    session.finished = session.finished or _iso(now)
    mark_finished(conn, session.id, session.finished)
    return session


# ---- the terminal front end --------------------------------------------------------------------------------


def read_answer(stream: TextIO) -> str | None:
    """Lines up to an empty line or EOF; None when the input is already at EOF (no more answers)."""
    lines: list[str] = []
    while True:
        line = stream.readline()
        if not line:
            return "\n".join(lines) if lines else None
        if not line.strip():
            return "\n".join(lines)
        lines.append(line.rstrip("\n"))


def _read_document(path: str) -> Resume:
    return parse_resume(Path(path).read_bytes(), Path(path).name)


def _read_jd(path: str) -> str:
    p = Path(path)
    return _read_document(path).text if p.suffix.lower() in (".pdf", ".docx") else p.read_text(encoding="utf-8")


_T = {
    "zh": {"start": "模拟面试开始：{n} 道题（会话 {id}，{engine}）。每题回答完输入一个空行结束。",
           "answer": "你的回答：", "follow": "追问：", "score": "得分：{s}/100", "ref": "参考答案：",
           "eof": "输入结束，面试提前结束。", "done": "面试结束，平均分 {s}。记录：{path}"},
    "en": {"start": "Mock interview: {n} questions (session {id}, {engine}). End each answer with an empty line.",
           "answer": "Your answer:", "follow": "Follow-ups:", "score": "Score: {s}/100", "ref": "Reference answer:",
           "eof": "End of input: the interview ends early.", "done": "Done, mean score {s}. Transcript: {path}"},
}


def _show_turn(turn: Turn, lang: str, out: TextIO) -> None:
    t, g = _T[lang], turn.grade
    if turn.notice:
        print(f"[{turn.notice}]", file=out)
    print(t["follow"], file=out)
    for f in turn.follow_ups:
        print(f"  - {f.text}", file=out)
    print(t["score"].format(s=g.score), file=out)
    for r in g.reasons:
        print(f"  * {r}", file=out)
    if g.feedback:
        print(f"  > {g.feedback}", file=out)
    print(t["ref"], g.reference.essence, file=out)
    for part in g.reference.parts:
        print(f"  - {part}", file=out)
    print(file=out)


def main(argv: list[str] | None = None, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    p = argparse.ArgumentParser(prog="python -m coach.interview", description="A mock interview in the terminal.")
    p.add_argument("--jd", help="the job description (text, Markdown, PDF or DOCX)")
    p.add_argument("--resume", help="your résumé (PDF, DOCX, Markdown or text)")
    p.add_argument("-n", type=int, default=5, help="number of questions (default 5)")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--seed", type=int, help="plan seed, for a reproducible session")
    p.add_argument("--card", type=int, help="link the session to this application card id")
    p.add_argument("--runs", default=str(DEFAULT_RUNS), help="lab runs folder (default ./runs)")
    p.add_argument("--offline", action="store_true", help="never call the LLM, even when KGP_LLM_MODEL is set")
    args = p.parse_args(argv)

    conn = connect()
    llm = None if args.offline else LLMClient(LLMSettings.from_env())
    resume = _read_document(args.resume) if args.resume else None
    session = start_session(conn, _read_jd(args.jd) if args.jd else "", resume, n=args.n, lang=args.lang,
                            seed=args.seed, card_id=args.card, runs_dir=args.runs, llm=llm)
    t = _T[args.lang]
    print(t["start"].format(n=len(session.plan), id=session.id, engine=session.engine), file=out)
    while (asked := next_question(session)) is not None:
        print(f"\n[{asked.position + 1}/{asked.total}] ({asked.type} · {'★' * asked.difficulty}) {asked.text}",
              file=out)
        print(t["answer"], file=out, flush=True)
        text = read_answer(stdin)
        if text is None:
            print(t["eof"], file=out)
            break
        _show_turn(submit_answer(conn, session, text, llm=llm), args.lang, out)
    finish_session(conn, session)
    path = write_transcript(session)
    mean = f"{session.score:.0f}" if session.score is not None else "-"
    print(t["done"].format(s=mean, path=path), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
