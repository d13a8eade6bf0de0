"""Mock interviews as threads: each planned bank question opens a thread; the candidate answers, the interviewer
asks up to N follow-ups (default 2) chosen from the answer, the résumé and the lab runs (`coach.followups`),
and the thread is graded as a whole (`coach.grading`) when it closes; then, and only then, the reference answer,
the missed points and the misconceptions are shown. One engine behind the CLI and the app's chat page.

    python -m coach.interview --jd jd.txt --resume cv.pdf -n 5 --follow-ups 2 --lang zh --seed 7
    python -m coach.interview --jd jd.txt --resume cv.md -n 3 --answers answers.txt --transcript out.md

Interactively, each answer ends with an empty line (or EOF). `--answers FILE` scripts the session: answers
separated by a line holding only `---`, taken in the order they are asked (main answer, then each follow-up).
The session is saved as each thread closes; the Markdown transcript path is printed at the end.

The API, for the app's mock-interview page (one connection per caller; the `Session` is plain data):

    session = start_session(conn, jd_text, resume, n=5, lang="zh", seed=7, max_follow_ups=2, llm=llm)
    asked = next_question(session)            # AskedQuestion: the main question or the pending follow-up
    turn = submit_answer(conn, session, text, llm=llm)   # the thread (Turn); while open: turn.pending is the
                                                         # next follow-up and turn.grade is None
    close_thread(conn, session, llm=llm)      # end the thread early (skip its remaining follow-ups)
    finish_session(conn, session); write_transcript(session)  # or export_markdown(session)
    reference(session, qid), key_points(session, qid)   # refused (SessionError) until that thread is closed
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
from coach.followups import FollowUp, next_follow_up, offline_follow_ups, relevant_claims
from coach.grading import Grade, PointResult, grade, review_rating
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
from coach.llm_grading import llm_grade
from coach.plan import Pick, explain, hypothetical, hypothetical_text, plan_session, signals
from coach.transcript import export_markdown, write_transcript
from question_bank.loader import Bank, load_bank
from question_bank.schema import Answer, Question, Text

__all__ = ["AskedQuestion", "Session", "SessionError", "Turn", "close_thread", "export_markdown", "finish_session",
           "key_points", "load_session", "next_question", "reference", "start_session", "submit_answer",
           "write_transcript"]

DEFAULT_FOLLOW_UPS = 2


class SessionError(ValueError):
    """A call out of turn: answering a finished session, asking for a reference before its thread closed."""


@dataclass(frozen=True)
class AskedQuestion:
    """What the candidate sees now: the main question or a follow-up, never an answer or a rubric."""
    position: int      # 0-based thread
    total: int
    question_id: str
    text: str
    type: str
    difficulty: int
    tags: tuple[str, ...]
    why: tuple[str, ...]    # why the plan picked it (coach.plan.Pick.why)
    reasons: tuple[str, ...] = ()  # the same in words (coach.plan.explain)
    kind: str = "main"      # main, or the follow-up's kind
    follow_up: int = 0      # 0 for the main question, k for the k-th follow-up


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
                  question_ids: list[str] | None = None, max_follow_ups: int = DEFAULT_FOLLOW_UPS,
                  now: datetime | None = None, with_kata: bool = False) -> Session:
    """Plan and save a new session (see `coach.plan`); with `card_id`, link it to that application card.
    `question_ids` replaces the plan with these questions, in this order (e.g. the review queue's due ones);
    `with_kata` makes the last question one that a kata answers in code."""
    if lang not in ("zh", "en"):
        raise ValueError(f"lang must be 'zh' or 'en', got {lang!r}")
    if max_follow_ups < 0:
        raise ValueError(f"max_follow_ups must be 0 or more, got {max_follow_ups}")
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
        claimed = signals(None, bullets)
        plan = [Pick(i, ("chosen",), hypothetical(bank.by_id[i], claimed, bool(bullets))) for i in question_ids]
    else:
        plan = plan_session(bank, n, signals(jd, bullets, conn), seed, has_resume=bool(bullets), with_kata=with_kata)
    engine = "llm" if llm is not None and llm.enabled else "offline"
    session = Session(uuid.uuid4().hex, lang, seed, plan, jd_text, resume_text, bullets, str(runs_dir), engine,
                      _iso(now), max_follow_ups=max_follow_ups)
    session.used.sources.update(session.question_ids)  # a bank follow-up must not ask a question still to come
    insert_session(conn, session)
    if card_id is not None:
        board.add_session(conn, card_id, session.id)
    return session


def load_session(conn: sqlite3.Connection, session_id: str) -> Session:
    """A saved session, to continue or export (an open thread is not saved: it starts again)."""
    session = read_session(conn, session_id)
    if session is None:
        raise SessionError(f"no interview session {session_id!r}")
    return session


def next_question(session: Session, bank: Bank | None = None, now: datetime | None = None) -> AskedQuestion | None:
    """What to answer now: the open thread's pending follow-up, else its main question (opening the thread if
    none is open), or None when every thread is closed or the session is finished."""
    if session.finished or (session.current is None and session.done):
        return None
    bank = bank or _default_bank()
    pick = session.plan[len(session.turns)]
    q = bank.by_id[pick.question_id]
    if session.current is None:
        text = getattr(q.question, session.lang)
        text = hypothetical_text(text, session.lang) if pick.hypothetical else text
        session.current = Turn(len(session.turns), q.id, None, None, [], session.engine, None, _iso(now), "", text)
        session.feedback, session.llm_queue = None, []
    turn = session.current
    base = dict(position=turn.position, total=len(session.plan), question_id=q.id, type=q.type.value,
                difficulty=q.difficulty, tags=tuple(q.tags), why=pick.why,
                reasons=tuple(explain(pick, session.lang)))
    if (f := turn.pending) is not None:
        return AskedQuestion(text=f.text, kind=f.kind, follow_up=len(turn.follow_ups), **base)
    return AskedQuestion(text=turn.text, **base)


def submit_answer(conn: sqlite3.Connection, session: Session, text: str, llm: LLMClient | None = None,
                  bank: Bank | None = None, now: datetime | None = None) -> Turn:
    """Answer what `next_question` shows. Returns the thread: open with its next follow-up pending, or closed
    and graded (an empty answer, or the last follow-up, closes it). Closing saves it and feeds the review queue
    (FSRS: Again / Hard / Good from the score, `coach.grading.review_rating`) and the skill weakness counts."""
    if next_question(session, bank, now) is None:
        raise SessionError("every question of this session is answered")
    bank = bank or _default_bank()
    turn = session.current
    q = bank.by_id[turn.question_id]
    text = text.strip()
    if turn.answer is None:
        turn.answer = text
    else:
        turn.pending.answer = text
    turn.answered = _iso(now)
    if not text or len(turn.follow_ups) >= session.max_follow_ups:
        return close_thread(conn, session, llm, bank, now)
    so_far = grade(q, "\n".join(turn.answers), session.lang)  # chooses the follow-up; never shown
    if len(turn.follow_ups) == 0 and llm is not None and llm.enabled:
        _ask_llm(llm, q, turn, so_far, session, bank)
    follow = _next_from_llm(session, so_far) or next_follow_up(
        q, so_far, bank, session.lang, session.bullets, session.runs_dir, session.used,
        tuple(f.kind for f in turn.follow_ups))
    if follow is None:
        return close_thread(conn, session, llm, bank, now)
    turn.follow_ups.append(follow)
    return turn


def _ask_llm(llm: LLMClient, q: Question, turn: Turn, g: Grade, session: Session, bank: Bank) -> None:
    """Let the LLM phrase the thread's follow-ups (queued), or note why the offline ones are asked."""
    claims = relevant_claims(q, session.bullets)
    lab_facts = [f for lab in q.labs if (r := latest_report(lab, session.runs_dir)) for f in facts(r)]
    examples = offline_follow_ups(q, g, bank, session.lang, session.bullets, session.runs_dir,
                                  limit=session.max_follow_ups)
    try:
        follow_ups, session.feedback, dropped = llm_turn(llm, q, turn.answer or "", g, session.lang, claims,
                                                         lab_facts, examples)
    except LLMUnavailable as e:
        turn.engine, turn.notice = "offline", fallback_notice(e.reason)
        return
    turn.engine = "llm"
    turn.notice = f"{dropped} LLM follow-up(s) dropped: they stated numbers not in your sources" if dropped else None
    session.llm_queue = follow_ups
    session.used.sources.update(f.source for f in examples)  # shown to the LLM as examples: used


def _next_from_llm(session: Session, g: Grade) -> FollowUp | None:
    """The LLM's next follow-up, given the rubric of the offline follow-up of the same kind."""
    if not session.llm_queue:
        return None
    f = session.llm_queue.pop(0)
    if f.kind == "missed_point":
        f.point = next((i for i, p in enumerate(g.points) if not p.covered and not p.wrong), None)
    elif f.kind == "misconception" and g.misconceptions:
        f.point = g.misconceptions[0].point
    return f


def close_thread(conn: sqlite3.Connection, session: Session, llm: LLMClient | None = None,
                 bank: Bank | None = None, now: datetime | None = None) -> Turn:
    """Grade the open thread as a whole (and each answered follow-up against its own rubric), save it, and
    make its reference answer available. Unanswered follow-ups are dropped."""
    turn = session.current
    if turn is None or turn.answer is None:
        raise SessionError("no answered thread is open")
    bank = bank or _default_bank()
    q = bank.by_id[turn.question_id]
    turn.follow_ups = [f for f in turn.follow_ups if f.answer is not None]
    g = grade(q, "\n".join(turn.answers), session.lang)
    if llm is not None and llm.enabled and turn.answers:
        g, notice = llm_grade(llm, q, "\n".join(turn.answers), g, session.lang)
        turn.notice = "; ".join(x for x in (turn.notice, notice) if x) or None
    g.feedback = session.feedback
    for f in turn.follow_ups:
        f.grade = follow_up_grade(q, f, bank, session.lang)
    turn.grade = g
    turn.answered = _iso(now)
    insert_turn(conn, session.id, turn, q.tags)
    review.rate(conn, q.id, review_rating(g), now)
    session.turns.append(turn)
    session.current, session.feedback, session.llm_queue = None, None, []
    return turn


def follow_up_grade(q: Question, f: FollowUp, bank: Bank, lang: str) -> Grade | None:
    """A follow-up's answer against its own rubric: a free-text bank follow-up's own key points, one key point of
    the thread's question, or a linked bank question's key points; None for a follow-up without a rubric (résumé
    claim, lab run, inline text without key points)."""
    if not f.answer:
        return None
    if f.question_id and f.question_id in bank.by_id:
        return grade(bank.by_id[f.question_id], f.answer, lang)
    if f.item is not None and 0 <= f.item < len(q.follow_ups) and getattr(q.follow_ups[f.item], "key_points", None):
        own = q.follow_ups[f.item]
        return grade(q.model_copy(update={"question": Text(zh=own.zh, en=own.en), "key_points": own.key_points,
                                          "mistakes": []}), f.answer, lang)
    if f.point is not None and 0 <= f.point < len(q.key_points):
        one = q.model_copy(update={"key_points": [q.key_points[f.point]],
                                   "mistakes": [m.model_copy(update={"point": 0}) for m in q.mistakes
                                                if m.point == f.point]})
        return grade(one, f.answer, lang)
    return None


def _closed_turn(session: Session, question_id: str) -> Turn:
    for turn in session.turns:
        if turn.question_id == question_id and turn.grade is not None:
            return turn
    raise SessionError("the reference answer and key points are shown only after the thread is closed")


def reference(session: Session, question_id: str) -> Answer:
    """The reference answer of a question whose thread has closed; refused before."""
    return _closed_turn(session, question_id).grade.reference


def key_points(session: Session, question_id: str) -> list[PointResult]:
    """The key points of a question whose thread has closed, as graded; refused before."""
    return _closed_turn(session, question_id).grade.points


def finish_session(conn: sqlite3.Connection, session: Session, llm: LLMClient | None = None,
                   now: datetime | None = None) -> Session:
    """Mark the session finished (also when ended early: the unanswered questions stay listed). An open thread
    with an answer is graded on what was said; one without is dropped."""
    if session.current is not None and session.current.answer is not None and not session.finished:
        close_thread(conn, session, llm, now=now)
    session.current = None
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


ANSWER_SEPARATOR = "---"


def read_answers_file(path: Path) -> list[str]:
    """A scripted session's answers: blocks separated by a line holding only `---`."""
    blocks, current = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() == ANSWER_SEPARATOR:
            blocks.append("\n".join(current).strip())
            current = []
        else:
            current.append(line)
    if any(x.strip() for x in current):
        blocks.append("\n".join(current).strip())
    return blocks


def _read_document(path: str) -> Resume:
    return parse_resume(Path(path).read_bytes(), Path(path).name)


def _read_jd(path: str) -> str:
    p = Path(path)
    return _read_document(path).text if p.suffix.lower() in (".pdf", ".docx") else p.read_text(encoding="utf-8")


_T = {
    "zh": {"start": "模拟面试开始：{n} 道题，每题最多 {k} 个追问（会话 {id}，{engine}）。每个回答以空行结束。",
           "answer": "你的回答：", "follow": "追问 {k}：", "why": "为什么问这题：", "score": "本题得分：{s}/100",
           "ref": "参考答案：", "missed": "遗漏的要点：", "wrong": "错误观点：", "fu_score": "追问 {k} 的得分：{s}/100",
           "fu_none": "追问 {k} 不单独计分（没有对应的评分要点）",
           "eof": "输入结束，面试提前结束。", "done": "面试结束，平均分 {s}。记录：{path}"},
    "en": {"start": "Mock interview: {n} questions, up to {k} follow-ups each (session {id}, {engine}). End each "
                    "answer with an empty line.",
           "answer": "Your answer:", "follow": "Follow-up {k}:", "why": "Why this question:",
           "score": "Score: {s}/100", "ref": "Reference answer:", "missed": "Missed points:",
           "wrong": "Misconceptions:", "fu_score": "Follow-up {k} score: {s}/100",
           "fu_none": "Follow-up {k} is not scored on its own (no rubric)",
           "eof": "End of input: the interview ends early.", "done": "Done, mean score {s}. Transcript: {path}"},
}


def _show_asked(asked: AskedQuestion, lang: str, out: TextIO) -> None:
    t = _T[lang]
    if asked.follow_up == 0:
        print(f"\n[{asked.position + 1}/{asked.total}] ({asked.type} · {'★' * asked.difficulty}) {asked.text}",
              file=out)
        print(t["why"], "；".join(asked.reasons) if lang == "zh" else "; ".join(asked.reasons), file=out)
    else:
        print(t["follow"].format(k=asked.follow_up), asked.text, file=out)
    print(t["answer"], file=out, flush=True)


def _show_closed(turn: Turn, lang: str, out: TextIO) -> None:
    t, g = _T[lang], turn.grade
    if turn.notice:
        print(f"[{turn.notice}]", file=out)
    print(t["score"].format(s=g.score), file=out)
    for r in g.reasons:
        print(f"  * {r}", file=out)
    for k, f in enumerate(turn.follow_ups, 1):
        print(t["fu_score"].format(k=k, s=f.grade.score) if f.grade else t["fu_none"].format(k=k), file=out)
    if g.feedback:
        print(f"  > {g.feedback}", file=out)
    if g.missed:
        print(t["missed"], "；".join(getattr(p, lang) for p in g.missed), file=out)
    if g.misconceptions:
        print(t["wrong"], "；".join(getattr(m, lang) for m in g.misconceptions), file=out)
    print(t["ref"], g.reference.essence, file=out)
    for part in g.reference.parts:
        print(f"  - {part}", file=out)


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m coach.interview", description="A mock interview in the terminal.")
    p.add_argument("--jd", help="the job description (text, Markdown, PDF or DOCX)")
    p.add_argument("--resume", help="your résumé (PDF, DOCX, Markdown or text)")
    p.add_argument("-n", type=int, default=5, help="number of questions (default 5)")
    p.add_argument("--follow-ups", type=int, default=DEFAULT_FOLLOW_UPS, help="follow-ups per question (default 2)")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--seed", type=int, help="plan seed, for a reproducible session")
    p.add_argument("--card", type=int, help="link the session to this application card id")
    p.add_argument("--runs", default=str(DEFAULT_RUNS), help="lab runs folder (default ./runs)")
    p.add_argument("--answers", help="script the session: answers separated by lines holding only ---")
    p.add_argument("--transcript", help="write the Markdown transcript here (default: the data folder)")
    p.add_argument("--offline", action="store_true", help="never call the LLM, even when KGP_LLM_MODEL is set")
    return p.parse_args(argv)


def _inputs(args: argparse.Namespace) -> tuple[str, Resume | None, list[str] | None]:
    """The JD text, the résumé and the scripted answers; one clear message (SystemExit) when a file is bad."""
    try:
        jd = _read_jd(args.jd) if args.jd else ""
        resume = _read_document(args.resume) if args.resume else None
        answers = read_answers_file(Path(args.answers)) if args.answers else None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        name = getattr(e, "filename", None) or next((f for f in (args.jd, args.resume, args.answers) if f), "")
        raise SystemExit(f"error: cannot read {name}: {getattr(e, 'strerror', None) or e}") from None
    return jd, resume, answers


def main(argv: list[str] | None = None, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    args = _arguments(argv)
    jd, resume, scripted = _inputs(args)
    conn = connect()
    llm = None if args.offline else LLMClient(LLMSettings.from_env())
    session = start_session(conn, jd, resume, n=args.n, lang=args.lang, seed=args.seed, card_id=args.card,
                            runs_dir=args.runs, llm=llm, max_follow_ups=args.follow_ups)
    t = _T[args.lang]
    print(t["start"].format(n=len(session.plan), k=session.max_follow_ups, id=session.id, engine=session.engine),
          file=out)
    answers = iter(scripted) if scripted is not None else None
    while (asked := next_question(session)) is not None:
        _show_asked(asked, args.lang, out)
        text = next(answers, None) if answers is not None else read_answer(stdin)
        if text is None:
            print(t["eof"], file=out)
            if session.current is not None and session.current.answer is not None:
                _show_closed(close_thread(conn, session, llm), args.lang, out)  # graded on what was said
            break
        if answers is not None:
            print(text, file=out)
        turn = submit_answer(conn, session, text, llm=llm)
        if turn.closed:
            _show_closed(turn, args.lang, out)
    finish_session(conn, session, llm)
    path = write_transcript(session, Path(args.transcript).parent if args.transcript else None,
                            name=Path(args.transcript).name if args.transcript else None)
    mean = f"{session.score:.0f}" if session.score is not None else "-"
    print(t["done"].format(s=mean, path=path), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
