"""Which questions a mock interview asks: N from the bank, weighted toward what this job and this user need.

Each question gets a weight, the sum of

    1                        every question can come up (an interviewer strays)
    + 3                      a tag is one of the JD's required skills
    + 1.5                    else, a tag is one of the JD's preferred skills
    + 2                      a tag is a skill the résumé's bullets state (interviewers drill into claims)
    + 2 × weakness           the weakest of its tags: self-assessment (rating 1 -> 1.0 ... 5 -> 0.0; unrated
                             items add nothing) or mock-interview misses (missed / asked per skill), the larger
    + 2                      its last FSRS review was Again or Hard
    + 2                      its FSRS review is due
    + 1 per lapse (max 2)    each Again in its review history

Then N slots are filled one by one. Slot i takes the next type of the rotation concept, experience, scenario,
debug, behavioral (a real loop mixes them; only questions of that type compete, unless none is left) and wants a
difficulty rising from 1 to 3 over the session: a candidate's weight is divided by 1 + 2·|difficulty - wanted|.
One question is drawn per slot with those weights from `random.Random(seed)`, without replacement: the same
inputs and seed give the same plan. Weights alone would let a growing bank drown the job: 200 questions of weight
1 outdraw 40 of weight 4. So a slot draws from the questions with any signal above (JD, résumé, weakness, review)
with probability FOCUS, from all of them otherwise: about FOCUS of a session follows the signals whatever the
bank's size. The picks are finally ordered by difficulty (slot order among equals), so
the session gets harder.

A behavioral or experience question presumes experience. When a résumé is given and none of its bullets states a
skill of the question, the question is kept but asked as a hypothetical ("if you had to…", `Pick.hypothetical`),
and `explain` says why each question was chosen, in words (JD skill, résumé claim, weak item, review due).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field

from coach.jd import JDAnalysis
from coach.review import due, load_self_assessment
from coach.skills import stated_skills
from question_bank.checklist import load_checklist
from question_bank.loader import Bank
from question_bank.schema import Question

TYPE_ROTATION = ("concept", "experience", "scenario", "debug", "behavioral")
BASE, REQUIRED, PREFERRED, CLAIMED, WEAK, REVIEW_LOW, REVIEW_DUE, PER_LAPSE, MAX_LAPSES = (
    1.0, 3.0, 1.5, 2.0, 2.0, 2.0, 2.0, 1.0, 2)
PRESUMES_EXPERIENCE = ("experience", "behavioral")
FOCUS = 0.8  # the share of slots drawn from the questions with a signal (see the module docstring)

@dataclass
class Signals:
    """What the plan weighs, gathered from the JD, the résumé and the user's history."""
    required: set[str] = field(default_factory=set)          # JD skill ids
    preferred: set[str] = field(default_factory=set)
    claimed: set[str] = field(default_factory=set)           # skills the résumé's bullets state
    weakness: dict[str, float] = field(default_factory=dict)  # skill id -> 0..1
    low_review: set[str] = field(default_factory=set)        # question ids last rated Again/Hard
    due: set[str] = field(default_factory=set)               # question ids whose FSRS review is due
    lapses: dict[str, int] = field(default_factory=dict)     # question id -> number of Again ratings


@dataclass(frozen=True)
class Pick:
    question_id: str
    why: tuple[str, ...]  # "jd_required:checkpointing", "resume:zero", "weak:nccl", "review:low", "review:due", ...
    hypothetical: bool = False  # asked as "if you had to…": the résumé shows no experience of it


def signals(jd: JDAnalysis | None = None, bullets: list[str] | None = None,
            conn: sqlite3.Connection | None = None) -> Signals:
    """Signals from a JD analysis, résumé bullets and (with `conn`) the user's self-assessment and reviews."""
    s = Signals()
    if jd is not None:
        s.required, s.preferred = set(jd.required), set(jd.preferred) - set(jd.required)
    for b in bullets or []:
        s.claimed |= set(stated_skills(b))
    if conn is not None:
        _history(conn, s)
    return s


def _history(conn: sqlite3.Connection, s: Signals) -> None:
    ratings = load_self_assessment(conn)
    for item in load_checklist():
        if item.id in ratings:
            for skill in item.skills:
                s.weakness[skill] = max(s.weakness.get(skill, 0.0), (5 - ratings[item.id]) / 4)
    # Skill misses from earlier mock interviews (migration 3); absent before the first session.
    for r in conn.execute("SELECT skill_id, asked, missed FROM interview_weakness WHERE asked > 0"):
        s.weakness[r["skill_id"]] = max(s.weakness.get(r["skill_id"], 0.0), r["missed"] / r["asked"])
    s.low_review = {r["question_id"] for r in conn.execute("SELECT question_id FROM reviews WHERE last_rating <= 2")}
    s.due = set(due(conn))
    for r in conn.execute("SELECT question_id, count(*) AS n FROM review_log WHERE rating = 1 GROUP BY question_id"):
        s.lapses[r["question_id"]] = r["n"]


def weight(q: Question, s: Signals) -> tuple[float, tuple[str, ...]]:
    """The question's weight under `s` and why (see the module docstring)."""
    tags, w, why = set(q.tags), BASE, []
    if hit := sorted(tags & s.required):
        w += REQUIRED
        why.append("jd_required:" + ",".join(hit))
    elif hit := sorted(tags & s.preferred):
        w += PREFERRED
        why.append("jd_preferred:" + ",".join(hit))
    if hit := sorted(tags & s.claimed):
        w += CLAIMED
        why.append("resume:" + ",".join(hit))
    weak = max((s.weakness.get(t, 0.0) for t in tags), default=0.0)
    if weak > 0:
        w += WEAK * weak
        why.append("weak:" + ",".join(sorted(t for t in tags if s.weakness.get(t, 0.0) == weak)))
    if q.id in s.low_review:
        w += REVIEW_LOW
        why.append("review:low")
    if q.id in s.due:
        w += REVIEW_DUE
        why.append("review:due")
    if lapses := min(s.lapses.get(q.id, 0), MAX_LAPSES):
        w += PER_LAPSE * lapses
        why.append(f"review:lapses={lapses}")
    return w, tuple(why)


def hypothetical(q: Question, s: Signals, has_resume: bool) -> bool:
    """Whether to ask `q` as a hypothetical: it presumes experience and the résumé states none of its skills."""
    return has_resume and q.type.value in PRESUMES_EXPERIENCE and not set(q.tags) & s.claimed


def plan_session(bank: Bank, n: int, s: Signals | None = None, seed: int = 0, has_resume: bool = False,
                 with_kata: bool = False) -> list[Pick]:
    """N questions for one session, easier first (see the module docstring); `with_kata`: the last one is a
    question a kata answers in code (labs.kata), unless the plan already has one."""
    s = s or Signals()
    rng = random.Random(seed)
    pool = {q.id: (q, *weight(q, s)) for q in bank.questions}
    n = max(0, min(n, len(pool)))
    picked: list[tuple[int, int, Pick]] = []
    for slot in range(n):
        want_type = TYPE_ROTATION[slot % len(TYPE_ROTATION)]
        want_level = 1 + round(2 * slot / (n - 1)) if n > 1 else 2
        ids = [i for i, (q, *_) in pool.items() if q.type.value == want_type] or list(pool)
        focus = [i for i in ids if pool[i][2]]  # any reason beyond "an interviewer strays"
        if focus and rng.random() < FOCUS:
            ids = focus
        weights = [pool[i][1] / (1 + 2 * abs(pool[i][0].difficulty - want_level)) for i in ids]
        qid = rng.choices(ids, weights=weights)[0]
        q, _, why = pool.pop(qid)
        picked.append((q.difficulty, slot, Pick(qid, why, hypothetical(q, s, has_resume))))
    plan = [p for *_, p in sorted(picked, key=lambda t: (t[0], t[1]))]
    return with_a_kata(plan, bank, s, rng) if with_kata else plan


def with_a_kata(plan: list[Pick], bank: Bank, s: Signals, rng: random.Random) -> list[Pick]:
    """The plan with its last (hardest) question swapped for one that has a kata, drawn by the same weights."""
    if not plan or any(bank.by_id[p.question_id].katas for p in plan):
        return plan
    ids = [q.id for q in bank.questions if q.katas and q.id not in {p.question_id for p in plan}]
    if not ids:
        return plan
    qid = rng.choices(ids, weights=[weight(bank.by_id[i], s)[0] for i in ids])[0]
    return [*plan[:-1], Pick(qid, (*weight(bank.by_id[qid], s)[1], "kata"))]



# ---- saying why, and asking as a hypothetical ------------------------------------------------------------------

_WHY = {
    "jd_required": ("JD 要求的技能：{x}", "a skill the JD requires: {x}"),
    "jd_preferred": ("JD 加分的技能：{x}", "a skill the JD prefers: {x}"),
    "resume": ("你简历里写到的技能：{x}", "a skill your résumé claims: {x}"),
    "weak": ("自评或以往面试中的薄弱项：{x}", "a weak spot from your checklist or past interviews: {x}"),
    "review:low": ("上次复习答得不好", "your last review of it went badly"),
    "review:due": ("到期该复习了", "its review is due"),
    "review:lapses": ("复习中答错过 {x} 次", "you forgot it {x} time(s) in review"),
    "chosen": ("按你指定的题目", "you chose it"),
    "kata": ("手撕代码题：写出代码，在真实的多进程上评测", "a kata: write the code and have it judged on real ranks"),
}


def explain(pick: Pick, lang: str) -> list[str]:
    """Why the plan chose the question, in words; a question with no signal was drawn to keep the mix."""
    zh = lang == "zh"
    out = []
    for w in pick.why:
        # "jd_required:a,b" names skills after the colon; "review:lapses=2" a count after the equals sign
        key, x = (w.partition("=")[0], w.partition("=")[2]) if w.startswith("review:") else w.partition(":")[::2]
        zh_text, en_text = _WHY.get(key, (w, w))
        out.append((zh_text if zh else en_text).format(x=x.replace(",", ", ")))
    if pick.hypothetical:
        out.append("简历里没有相关经历，按假设题来问" if zh
                   else "your résumé shows no such experience: asked as a hypothetical")
    return out or ["随机抽取，保持题型和难度的搭配" if zh else "drawn at random to keep the mix of types and levels"]


def hypothetical_text(question_text: str, lang: str) -> str:
    """The question asked as a hypothetical, for a candidate whose résumé does not show the experience."""
    if lang == "zh":
        return f"你的简历里没有看到相关经历，那就当作假设题：如果由你来负责，你会怎么做？原题：「{question_text}」"
    return ("Your résumé doesn't show this, so take it as a hypothetical: if you had to handle it, what would you "
            f'do? The question: "{question_text}"')
