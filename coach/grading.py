"""Rubric grading of one interview answer: key points covered or missed, structure, a 0-100 score with reasons.

The score is computed here, from the bank's rubric, and nothing else sets it (an LLM may add advisory feedback,
see `coach.interviewer_llm`):

    score = 70 × covered / key points  +  30 structure points

- A key point is covered when the answer contains one of its `terms` (either language, case-insensitive, whole
  words for ASCII: "TP" does not match inside "HTTP"), or a taxonomy alias of the skill a term names: the term is
  "activation checkpointing", the answer says 重计算, both are aliases of the same skill.
- Structure, for concept / experience / scenario / debug questions: 15 for the essence first (the first sentence
  holds a key term or a skill the question is about), 15 for a developed answer (3+ sentences or bullets: 15,
  2: 7). For behavioral questions: 5 for each STAR part that is marked (情境/Situation, 任务/Task, 行动/Action,
  结果/Result, or their usual wording) and 10 for a number in the result.
- Structure counts in proportion to content, fully from half the key points covered up (× min(1, 2·covered /
  key points)): a well-formed answer that hits one generic term is not a well-structured answer to this question.
  An answer with no key point and no skill of the question is off-topic and scores 0, as does an empty one.
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel

from coach.numbers import quantities
from coach.skills import stated_skills
from question_bank.schema import Answer, KeyPoint, QType, Question
from question_bank.taxonomy import alias_pattern, load_taxonomy

POINTS_MAX = 70
ESSENCE_POINTS = 15
DEVELOPED_POINTS = 15
STAR_PART_POINTS = 5
RESULT_NUMBER_POINTS = 10
DEVELOPED_SENTENCES = 3   # a sentence or bullet per idea; three is the least a structured answer has
MIN_SENTENCE_CHARS = 6    # shorter fragments ("好的。", "OK.") are not a part of an answer

# FSRS ratings a mock answer feeds into the review queue (coach.review: 1 Again, 2 Hard, 3 Good).
AGAIN_BELOW = 50
HARD_BELOW = 80

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[A-Za-z0-9)\]])\.(?=\s|$)|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、])\s*")
STAR_MARKERS: dict[str, re.Pattern[str]] = {
    "situation": re.compile(r"情境|情景|背景|场景|当时|situation|context|background", re.IGNORECASE),
    "task": re.compile(r"任务|目标|负责|职责|\btask\b|\bgoal\b|responsib|\bI owned\b|my role", re.IGNORECASE),
    "action": re.compile(
        r"行动|措施|做法|我(?:先|首先|做了|采取|用|把|写|加|改|定位|排查)|\baction\b|"
        r"\bI (?:first |then )?(?:did|built|added|implemented|wrote|changed|used|lowered|fixed|traced|ran|moved)\b",
        re.IGNORECASE),
    "result": re.compile(
        r"结果|效果|最终|提升|降低|缩短|减少|\bresult|\boutcome|\bimpact\b|\breduced\b|\bimproved\b|\bcut\b|\bsaved\b",
        re.IGNORECASE),
}


class PointResult(BaseModel):
    zh: str
    en: str
    covered: bool
    evidence: str | None = None  # the words of the answer that covered it


class Structure(BaseModel):
    essence_first: bool = False
    sentences: int = 0
    star: dict[str, bool] | None = None   # behavioral only: which STAR parts are marked
    result_numbers: list[str] = []        # behavioral only: quantities stated in the result
    raw_points: int = 0                   # structure points as found, 0-30
    points: int = 0                       # what the score counts: raw_points scaled by the content covered


class Grade(BaseModel):
    """A graded answer. `reference` is the bank's model answer in the session's language: shown only now."""
    question_id: str
    lang: str
    score: int
    points: list[PointResult]
    structure: Structure
    reasons: list[str]
    empty: bool = False
    off_topic: bool = False
    reference: Answer
    mistakes: list[str] = []
    feedback: str | None = None           # the LLM's advisory words; never changes `score`

    @property
    def missed(self) -> list[PointResult]:
        return [p for p in self.points if not p.covered]

    @property
    def covered(self) -> list[PointResult]:
        return [p for p in self.points if p.covered]


def grade(question: Question, answer: str, lang: str = "zh") -> Grade:
    """Grade `answer` to `question` against its rubric (see the module docstring)."""
    text = answer.strip()
    points = [_check_point(kp, text) for kp in question.key_points]
    covered = sum(p.covered for p in points)
    relevant = covered > 0 or bool(set(stated_skills(text)) & set(question.tags))
    structure = _structure(question, text) if relevant else Structure(sentences=len(sentences(text)))
    structure.points = round(structure.raw_points * min(1.0, 2 * covered / len(points)))
    point_score = round(POINTS_MAX * covered / len(points))
    score = point_score + structure.points if relevant else 0
    empty, off_topic = not text, bool(text) and not relevant
    reasons = _reasons(lang, points, point_score, structure, question.type, empty, off_topic)
    return Grade(question_id=question.id, lang=lang, score=min(100, score), points=points, structure=structure,
                 reasons=reasons, empty=empty, off_topic=off_topic,
                 reference=getattr(question.answer, lang), mistakes=[getattr(m, lang) for m in question.mistakes])


def review_rating(g: Grade) -> int:
    """The FSRS rating the mock answer gives its question: Again under 50, Hard under 80 or with a point
    missed, else Good. Never Easy: one answer in a mock is not enough to push the next review far out."""
    if g.score < AGAIN_BELOW:
        return 1
    return 2 if g.score < HARD_BELOW or g.missed else 3


# ---- key points --------------------------------------------------------------------------------------------


def _check_point(kp: KeyPoint, text: str) -> PointResult:
    for term in kp.terms:
        for pattern in term_patterns(term):
            if m := pattern.search(text):
                return PointResult(zh=kp.zh, en=kp.en, covered=True, evidence=m.group(0))
    return PointResult(zh=kp.zh, en=kp.en, covered=False)


@cache
def term_patterns(term: str) -> tuple[re.Pattern[str], ...]:
    """The term itself, then every alias of a taxonomy skill that the term is an alias of."""
    key = _norm(term)
    synonyms = [a for s in load_taxonomy().skills.values() if key in {_norm(x) for x in s.aliases}
                for a in s.aliases if _norm(a) != key]
    return tuple(alias_pattern(t) for t in [term, *synonyms])


def _norm(s: str) -> str:
    return re.sub(r"[\s\-]+", " ", s.strip().lower())


# ---- structure ---------------------------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    """The answer's sentences and bullet lines, fragments dropped."""
    parts = (_BULLET.sub("", p).strip() for p in _SENTENCE_END.split(text))
    return [p for p in parts if len(p) >= MIN_SENTENCE_CHARS]


def _structure(question: Question, text: str) -> Structure:
    found = sentences(text)
    if question.type == QType.behavioral:
        return _star(text, len(found))
    first = found[0] if found else ""
    essence = bool(first) and (
        any(_check_point(kp, first).covered for kp in question.key_points)
        or bool(set(stated_skills(first)) & set(question.tags))
    )
    developed = DEVELOPED_POINTS if len(found) >= DEVELOPED_SENTENCES else (DEVELOPED_POINTS // 2) * (len(found) == 2)
    return Structure(essence_first=essence, sentences=len(found), raw_points=ESSENCE_POINTS * essence + developed)


def _star(text: str, n_sentences: int) -> Structure:
    star = {part: bool(p.search(text)) for part, p in STAR_MARKERS.items()}
    result = STAR_MARKERS["result"].search(text)
    numbers = [q.text for q in quantities(text[result.start():])] if result else []
    points = STAR_PART_POINTS * sum(star.values()) + RESULT_NUMBER_POINTS * bool(numbers)
    return Structure(sentences=n_sentences, star=star, result_numbers=numbers, raw_points=points)


# ---- reasons -----------------------------------------------------------------------------------------------

_STAR_NAMES = {"situation": ("情境", "Situation"), "task": ("任务", "Task"), "action": ("行动", "Action"),
               "result": ("结果", "Result")}


def _reasons(lang: str, points: list[PointResult], point_score: int, s: Structure, qtype: QType,
             empty: bool, off_topic: bool) -> list[str]:
    zh = lang == "zh"
    if empty:
        return ["没有作答：0 分。" if zh else "No answer: 0 points."]
    if off_topic:
        return ["回答没有涉及这道题的任何要点或相关技术：判为跑题，0 分。" if zh
                else "The answer touches none of the question's key points or skills: off-topic, 0 points."]
    covered = [p for p in points if p.covered]
    out = [f"要点覆盖 {len(covered)}/{len(points)}（{point_score}/{POINTS_MAX} 分）" if zh
           else f"Key points covered {len(covered)}/{len(points)} ({point_score}/{POINTS_MAX})"]
    missed = [p.zh if zh else p.en for p in points if not p.covered]
    if missed:
        out.append(("遗漏：" if zh else "Missed: ") + ("；" if zh else "; ").join(missed))
    if qtype == QType.behavioral and s.star is not None:
        out += _star_reasons(s, zh)
    else:
        out.append(("首句直接点题" if s.essence_first else "首句没有点题：先用一句话给出结论") if zh else
                   ("The first sentence answers the question" if s.essence_first
                    else "The first sentence does not answer the question: lead with the conclusion"))
        thin = "" if s.sentences >= DEVELOPED_SENTENCES else ("（偏短）" if zh else " (thin)")
        out.append((f"展开了 {s.sentences} 句/条" if zh else f"Developed in {s.sentences} sentences/bullets") + thin)
    scaled = "" if s.points == s.raw_points else (f"（{s.raw_points} 分按要点覆盖折算）" if zh
                                                  else f" ({s.raw_points}, scaled by the key points covered)")
    out.append((f"结构 {s.points}/30 分" if zh else f"Structure {s.points}/30") + scaled)
    return out


def _star_reasons(s: Structure, zh: bool) -> list[str]:
    marks = " ".join(f"{_STAR_NAMES[k][0 if zh else 1]}{'✓' if v else '✗'}" for k, v in (s.star or {}).items())
    out = [f"STAR 结构：{marks}" if zh else f"STAR structure: {marks}"]
    if s.result_numbers:
        out.append(("结果里有数字：" + "、".join(s.result_numbers)) if zh
                   else "Numbers in the result: " + ", ".join(s.result_numbers))
    else:
        out.append("结果没有给出可量化的数字" if zh else "The result states no measurable figure")
    return out
