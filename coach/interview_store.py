"""Mock-interview records and their SQLite tables (migration 3 in `coach.db`): sessions, threads, skill misses.

A `Session` is plain data (no connection, no client), so the app can keep it in `st.session_state` and any
thread can save it with its own connection. A `Turn` is one thread: the main question, its answer, the
follow-ups with their answers, and the grade of the whole, which exists only once the thread is closed; a
closed thread is saved as one row of `interview_turns` (its follow-ups, answers and grades in follow_ups_json).
The reference answers are not in a session: they come with each closed thread's `Grade`.

Weakness: every graded answer adds one `asked` to each of its question's tags and, under the pass mark, one
`missed`. The plan weighs missed / asked; `suggested_ratings` turns it into a suggested checklist rating, which
is only shown: the self-assessment table holds what the user chose, and only the user changes it.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from coach.db import transaction
from coach.documents import parse_text
from coach.followups import Asked, FollowUp
from coach.grading import Grade
from coach.plan import Pick
from coach.review import load_self_assessment
from question_bank.checklist import load_checklist

PASS_MARK = 60               # under this an answer counts as a miss for each of its skills
SUGGEST_AFTER = 2            # asks on a skill before its misses suggest anything
SUGGEST_MISS_RATIO = 0.5
SUGGESTED_RATING = 2         # "unfamiliar" on the 1-5 checklist scale


@dataclass
class Turn:
    """One thread. `grade` is None while it is open; `follow_ups` are those asked so far."""
    position: int
    question_id: str
    answer: str | None       # the answer to the main question; None until given
    grade: Grade | None
    follow_ups: list[FollowUp]
    engine: str              # offline | llm: who wrote the follow-ups
    notice: str | None
    asked: str               # UTC ISO times
    answered: str
    text: str = ""           # the main question as asked (a hypothetical when the résumé lacks the experience)

    @property
    def closed(self) -> bool:
        return self.grade is not None

    @property
    def pending(self) -> FollowUp | None:
        """The follow-up waiting for its answer, if any."""
        if self.closed or not self.follow_ups or self.follow_ups[-1].answer is not None:
            return None
        return self.follow_ups[-1]

    @property
    def answers(self) -> list[str]:
        """Everything the candidate said in the thread, in order."""
        return [a for a in [self.answer, *(f.answer for f in self.follow_ups)] if a]


@dataclass
class Session:
    id: str
    lang: str
    seed: int
    plan: list[Pick]
    jd_text: str
    resume_text: str         # Markdown (coach.documents.Resume.to_markdown) or the text given
    bullets: list[str]
    runs_dir: str
    engine: str
    started: str
    finished: str | None = None
    turns: list[Turn] = field(default_factory=list)
    asked_at: str | None = None           # when the current question was shown
    used: Asked = field(default_factory=Asked)  # follow-up sources already used (and the plan's own ids)
    max_follow_ups: int = 2
    current: Turn | None = None           # the open thread
    feedback: str | None = None           # the LLM's words on the open thread, kept for its grade
    llm_queue: list[FollowUp] = field(default_factory=list)  # the LLM's follow-ups still to ask in the thread

    @property
    def question_ids(self) -> list[str]:
        return [p.question_id for p in self.plan]

    @property
    def done(self) -> bool:
        return len(self.turns) >= len(self.plan)

    @property
    def score(self) -> float | None:
        """The mean score of the closed threads."""
        return sum(t.grade.score for t in self.turns if t.grade) / len(self.turns) if self.turns else None


def claims_of(resume_text: str) -> list[str]:
    """The résumé's claims: its bullets, or its lines when it has none (a pasted plain-text résumé)."""
    if not resume_text.strip():
        return []
    bullets = parse_text(resume_text).bullets
    return bullets or [ln.strip() for ln in resume_text.splitlines() if ln.strip()]


def insert_session(conn: sqlite3.Connection, s: Session) -> None:
    plan = [{"question_id": p.question_id, "why": list(p.why), "hypothetical": p.hypothetical} for p in s.plan]
    with transaction(conn):
        conn.execute(
            """INSERT INTO interview_sessions (id, lang, seed, question_ids, plan_json, jd_text, resume_text, runs_dir,
               engine, started) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (s.id, s.lang, s.seed, json.dumps(s.question_ids), json.dumps(plan, ensure_ascii=False), s.jd_text,
             s.resume_text, s.runs_dir, s.engine, s.started),
        )


def insert_turn(conn: sqlite3.Connection, session_id: str, t: Turn, tags: list[str]) -> None:
    """Save a closed thread and count its skills as asked (and missed, under the pass mark), in one transaction."""
    if t.grade is None:
        raise ValueError("only a closed thread is saved")
    with transaction(conn):
        conn.execute(
            """INSERT INTO interview_turns (session_id, position, question_id, answer, follow_ups_json, grade_json,
               score, engine, notice, asked, answered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (session_id, t.position, t.question_id, t.answer or "",
             json.dumps([f.model_dump() for f in t.follow_ups], ensure_ascii=False), t.grade.model_dump_json(),
             t.grade.score, t.engine, t.notice, t.asked, t.answered),
        )
        missed = int(t.grade.score < PASS_MARK)
        for skill in tags:
            conn.execute(
                """INSERT INTO interview_weakness (skill_id, asked, missed, updated) VALUES (?, 1, ?, ?)
                   ON CONFLICT (skill_id) DO UPDATE SET asked = asked + 1, missed = missed + excluded.missed,
                   updated = excluded.updated""",
                (skill, missed, t.answered),
            )


def mark_finished(conn: sqlite3.Connection, session_id: str, when: str) -> None:
    with transaction(conn):
        conn.execute("UPDATE interview_sessions SET finished = ? WHERE id = ? AND finished IS NULL", (when, session_id))


def read_session(conn: sqlite3.Connection, session_id: str) -> Session | None:
    """The stored session with its turns, or None. Bullets are re-read from the stored résumé text."""
    row = conn.execute("SELECT * FROM interview_sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        return None
    plan = [Pick(p["question_id"], tuple(p["why"]), p.get("hypothetical", False)) for p in json.loads(row["plan_json"])]
    bullets = claims_of(row["resume_text"])
    s = Session(row["id"], row["lang"], row["seed"], plan, row["jd_text"], row["resume_text"], bullets,
                row["runs_dir"], row["engine"], row["started"], row["finished"])
    s.used.sources.update(s.question_ids)
    for r in conn.execute("SELECT * FROM interview_turns WHERE session_id = ? ORDER BY position", (session_id,)):
        follow_ups = [FollowUp.model_validate(f) for f in json.loads(r["follow_ups_json"])]
        s.turns.append(Turn(r["position"], r["question_id"], r["answer"], Grade.model_validate_json(r["grade_json"]),
                            follow_ups, r["engine"], r["notice"], r["asked"], r["answered"]))
        s.used.sources.update(f.source for f in follow_ups)
    return s


def list_sessions(conn: sqlite3.Connection) -> list[dict[str, object]]:
    """Every session, newest first: id, lang, started, finished, questions planned, answered, mean score."""
    rows = conn.execute(
        """SELECT s.id, s.lang, s.started, s.finished, s.question_ids, count(t.position) AS answered,
                  avg(t.score) AS mean_score
           FROM interview_sessions s LEFT JOIN interview_turns t ON t.session_id = s.id
           GROUP BY s.id ORDER BY s.started DESC, s.id"""
    )
    return [{"id": r["id"], "lang": r["lang"], "started": r["started"], "finished": r["finished"],
             "planned": len(json.loads(r["question_ids"])), "answered": r["answered"], "mean_score": r["mean_score"]}
            for r in rows]


def weakness(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """Skill id -> (asked, missed) over all graded mock answers."""
    return {r["skill_id"]: (r["asked"], r["missed"])
            for r in conn.execute("SELECT skill_id, asked, missed FROM interview_weakness")}


def suggested_ratings(conn: sqlite3.Connection) -> dict[str, int]:
    """Checklist items the mock interviews suggest rating lower: an item with a skill asked at least twice and
    missed at least half the time, currently rated above 2 (or unrated), is suggested 2. Nothing is written."""
    counts, ratings = weakness(conn), load_self_assessment(conn)
    out: dict[str, int] = {}
    for item in load_checklist():
        weak = any(counts.get(s, (0, 0))[0] >= SUGGEST_AFTER
                   and counts[s][1] / counts[s][0] >= SUGGEST_MISS_RATIO for s in item.skills)
        if weak and ratings.get(item.id, 5) > SUGGESTED_RATING:
            out[item.id] = SUGGESTED_RATING
    return out
