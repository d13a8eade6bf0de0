"""Rubric grading of one interview answer (schema v2): what it covers, what it gets wrong, a 0-100 score, and the
quoted words of the answer behind every part of the score.

    share     = mean over key points of min(1, concepts found / concepts required)
    content   = 75 × share^0.75  (concave: an honest half answer earns more than half the content points)
    structure = 25 × its share (essence first, reasoning, figures, development; STAR for behavioral questions),
                counted in proportion to content (× min(1, share / 0.8)): form never stands in for substance
    score     = content + structure − 15 per misconception, then capped:

- off-topic (fewer than two of the question's concepts and no key point whole): at most 10;
- a keyword list (terms strung together without predicates or connectives): 0.4 × content, at most 35, and the
  reason is shown;
- any misconception (a mistake's pattern in a sentence that does not deny it, or a number contradicting a fact):
  at most 35, and the point it contradicts earns nothing.

A concept is a group of synonyms, any one found in the answer (`question_bank.rubric.term_pattern`); words of
the question text are never evidence (the candidate read them), and a term written in both languages side by
side ("下界（lower bound）") counts once. A fact is a number within its tolerance in its unit.
The LLM path (`coach.llm_grading`) can only add key points it quotes verbatim; it never sets the score alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, model_validator

from question_bank.rubric import (
    CJK,
    Hit,
    Number,
    Sentence,
    clauses,
    consequence,
    find_term,
    is_bare_number,
    is_short_latin,
    mask_terms,
    negated,
    normalise,
    numbers,
    sentences,
    unit_value,
)
from question_bank.schema import Answer, KeyPoint, QType, Question
from question_bank.taxonomy import load_taxonomy


@dataclass(frozen=True)
class GradingConfig:
    """The score's weights and caps (the module docstring explains each)."""
    content_max: float = 75.0
    structure_max: float = 25.0
    structure_full_at: float = 0.8       # content share from which structure counts in full
    misconception_penalty: int = 15
    misconception_cap: int = 35
    keyword_list_cap: int = 35
    off_topic_cap: int = 10
    min_concepts: int = 2                # fewer than this (and no whole point): off-topic
    list_min_segments: int = 4           # a keyword list has at least this many items...
    list_max_function_words: float = 0.25  # ...and fewer function words than this per item
    list_content_share: float = 0.4      # a list earns this share of its content: recall, not understanding
    content_power: float = 0.75          # content = max × share**power: half the concepts is more than half an answer


CONFIG = GradingConfig()

# FSRS ratings a mock answer feeds into the review queue (coach.review: 1 Again, 2 Hard, 3 Good).
AGAIN_BELOW = 50
HARD_BELOW = 80


class PointResult(BaseModel):
    zh: str
    en: str
    credit: float = 0.0          # 0..1: concepts found / required, 0 when a misconception contradicts it
    found: int = 0
    required: int = 1
    wrong: bool = False          # a misconception contradicts this point
    evidence: list[str] = []     # the answer's own words that show each concept found
    llm: str | None = None       # the LLM's verified quote for this point, when the LLM path ran

    @model_validator(mode="before")
    @classmethod
    def _from_v1(cls, data: Any) -> Any:
        # Sessions saved before rubric v2 stored `covered` and one `evidence` string; read them as they were.
        if isinstance(data, dict) and "credit" not in data and "covered" in data:
            data = {**data, "credit": 1.0 if data["covered"] else 0.0, "found": int(bool(data["covered"])),
                    "evidence": [data["evidence"]] if data.get("evidence") else []}
        return data

    @property
    def covered(self) -> bool:
        return self.credit >= 1.0

    @property
    def partial(self) -> bool:
        return 0.0 < self.credit < 1.0


class Misconception(BaseModel):
    zh: str
    en: str
    quote: str                   # the sentence of the answer that states it
    point: int | None = None


class Structure(BaseModel):
    essence_first: bool = False
    reasoning: bool = False
    figures: bool = False
    sentences: int = 0
    star: dict[str, bool] | None = None   # behavioral only: which STAR parts are marked
    raw_points: float = 0.0               # structure points as found, 0-25
    points: float = 0.0                   # what the score counts: raw_points scaled by the content covered


class Grade(BaseModel):
    """A graded answer. `reference` is the bank's model answer in the session's language: shown only now."""
    question_id: str
    lang: str
    score: int
    points: list[PointResult]
    structure: Structure
    reasons: list[str]
    content: float = 0.0                  # 0-75
    misconceptions: list[Misconception] = []
    keyword_list: bool = False
    empty: bool = False
    off_topic: bool = False
    reference: Answer
    mistakes: list[str] = []
    feedback: str | None = None           # the LLM's advisory words; never changes `score` by itself
    offline_score: int | None = None      # set by the LLM path: the offline grade before verified LLM points
    disagreements: list[str] = []         # key points where the LLM and the offline grader differ

    @property
    def missed(self) -> list[PointResult]:
        return [p for p in self.points if not p.covered]

    @property
    def covered(self) -> list[PointResult]:
        return [p for p in self.points if p.covered]


# ---- the rubric, compiled once per question ------------------------------------------------------------------


@dataclass(frozen=True)
class _Point:
    groups: tuple[tuple[str, ...], ...]   # synonyms that are not words of the question
    required: int


_COMPILED: dict[int, tuple[Question, tuple[_Point, ...], tuple[str, ...]]] = {}


def _compiled(question: Question) -> tuple[tuple[_Point, ...], tuple[str, ...]]:
    """The question's rubric without its question words, and one mask pattern of all its terms; cached by
    object (bank questions live as long as the bank), the question kept so its id is not reused."""
    hit = _COMPILED.get(id(question))
    if hit is None or hit[0] is not question:
        if len(_COMPILED) > 4096:
            _COMPILED.clear()  # follow-up rubrics are copies made per answer: keep the cache bounded
        hit = (question, _rubric(question), _all_terms(question))
        _COMPILED[id(question)] = hit
    return hit[1], hit[2]


def _rubric(question: Question) -> tuple[_Point, ...]:
    asked = question.question.zh + " " + question.question.en
    out = []
    for kp in question.key_points:
        groups = tuple(g for g in (tuple(t for t in _with_aliases(g) if not find_term(t, asked)) for g in kp.groups)
                       if g)
        available = len(groups) + len(kp.facts)  # a group of question words only cannot be evidence
        required = min(kp.min_groups or available, available)
        out.append(_Point(groups, max(1, required)))
    return tuple(out)


def _with_aliases(group: list[str]) -> list[str]:
    """The group's synonyms plus the other names of any taxonomy skill one of them names ("activation
    checkpointing" brings 重计算), leaving out names too short or bare to be evidence."""
    out = list(group)
    for term in group:
        for alias in _aliases().get(normalise(term).lower().strip(), ()):
            if alias not in out and not is_short_latin(alias) and not is_bare_number(alias):
                out.append(alias)
    return out


@cache
def _aliases() -> dict[str, tuple[str, ...]]:
    """Alias (normalised) -> the names of its taxonomy skill. Only a skill's first `NAME_ALIASES` aliases are its
    names; the later ones are often its members ("broadcast" under collective communication), not synonyms."""
    out: dict[str, tuple[str, ...]] = {}
    for skill in load_taxonomy().skills.values():
        names = tuple(skill.aliases[:NAME_ALIASES])
        for a in names:
            out[normalise(a).lower().strip()] = names
    return out


NAME_ALIASES = 5


def _all_terms(question: Question) -> tuple[str, ...]:
    """The rubric synonyms of the question, longest first, to mask them when reading the answer's prose; a
    Chinese phrase that holds a function word itself ("反向也是") stays, as it reads as prose (an English one is
    masked: lists are full of "per rank" and "all workers")."""
    terms = {t for kp in question.key_points for g in kp.groups for t in g}
    terms |= {t for m in question.mistakes for g in m.match for t in g}
    terms = {t for t in terms if not _ZH_FUNCTION.search(_ZH_NOT_FUNCTION.sub("", t))}
    return tuple(sorted(terms, key=len, reverse=True))


# ---- grading --------------------------------------------------------------------------------------------------


def grade(question: Question, answer: str, lang: str = "zh", config: GradingConfig = CONFIG) -> Grade:
    """Grade `answer` to `question` against its rubric (see the module docstring)."""
    original = answer.strip()
    text = normalise(original)  # one character for one: offsets into `text` quote `original`
    said, parts = sentences(text), clauses(text)
    nums = numbers(text)
    rubric, mask = _compiled(question)
    points = [_check_point(kp, rp, text, original, parts, nums)
              for kp, rp in zip(question.key_points, rubric, strict=True)]
    wrong = _misconceptions(question, original, parts)
    wrong += [c for c in _contradictions(question, original, parts) if c.point not in {m.point for m in wrong}]
    for m in wrong:
        if m.point is not None:
            points[m.point].wrong, points[m.point].credit = True, 0.0
    concepts = sum(p.found for p in points if not p.wrong)
    empty = not text
    off_topic = not empty and not wrong and concepts < config.min_concepts and not any(p.covered for p in points)
    listed, list_reason = keyword_list(text, mask, config)
    g = Grade(question_id=question.id, lang=lang, score=0, points=points,
              structure=_structure(question, text, said, nums, points), reasons=[], misconceptions=wrong,
              keyword_list=listed, empty=empty, off_topic=off_topic, reference=getattr(question.answer, lang),
              mistakes=[getattr(m, lang) for m in question.mistakes])
    rescore(g, config)
    g.reasons = reasons(g, question.type, list_reason, config)
    return g


def rescore(g: Grade, config: GradingConfig = CONFIG) -> Grade:
    """Set `g.score`, `g.content` and `g.structure.points` from its point credits, structure, misconceptions and
    flags (the formula of the module docstring); the LLM path calls it again after adding verified points."""
    share = sum(p.credit for p in g.points) / len(g.points)
    content = config.content_max * share ** config.content_power
    g.structure.points = round(g.structure.raw_points * min(1.0, share / config.structure_full_at), 1)
    score = max(0, round(content + g.structure.points - config.misconception_penalty * len(g.misconceptions)))
    if g.empty:
        score = 0
    elif g.off_topic:
        score = min(score, config.off_topic_cap)
    if g.keyword_list:
        score = min(score, round(content * config.list_content_share), config.keyword_list_cap)
    if g.misconceptions:
        score = min(score, config.misconception_cap)
    g.score, g.content = min(100, score), round(content, 1)
    return g


def review_rating(g: Grade) -> int:
    """The FSRS rating the mock answer gives its question: Again under 50, Hard under 80 or with a point
    missed, else Good. Never Easy: one answer in a mock is not enough to push the next review far out."""
    if g.score < AGAIN_BELOW:
        return 1
    return 2 if g.score < HARD_BELOW or g.missed else 3


# ---- key points ---------------------------------------------------------------------------------------------


def _check_point(kp: KeyPoint, rp: _Point, text: str, original: str, parts: list[Sentence],
                 nums: list[Number]) -> PointResult:
    spans: list[tuple[int, int]] = []
    for group in rp.groups:
        for term in group:
            if m := find_term(term, text):
                spans.append((m.start(), m.end()))
                break
    for fact in kp.facts:
        dimension, value = unit_value(fact.value, fact.unit)
        hit = next((n for n in nums if n.dimension == dimension
                    and abs(n.value - value) <= fact.tolerance * abs(value) + 1e-12), None)
        if hit is not None:
            spans.append((hit.start, hit.end))
    found = _distinct(text, spans)
    credit = min(1.0, found / rp.required)
    evidence = [_quote(original, parts, a, b) for a, b in sorted(spans)]
    return PointResult(zh=kp.zh, en=kp.en, credit=round(credit, 3), found=found, required=rp.required,
                       evidence=list(dict.fromkeys(evidence)))


_PAIR_GAP = re.compile(r"[\s()（）/、,:：\[\]「」\"'“”-]{0,4}")


def _distinct(text: str, spans: list[tuple[int, int]]) -> int:
    """Concepts found, a term and its translation written side by side ("下界 (lower bound)") counted once."""
    spans = sorted(spans)
    n, last = 0, None
    for a, b in spans:
        if last is not None and _PAIR_GAP.fullmatch(text[last[1]:a]) and \
                bool(CJK.search(text[a:b])) != bool(CJK.search(text[last[0]:last[1]])):
            last = None  # paired with the previous one
            continue
        n += 1
        last = (a, b)
    return n


def _quote(text: str, parts: list[Sentence], a: int, b: int, width: int = 60) -> str:
    """The words at [a, b) with their clause around them, cut to `width` characters."""
    for s in parts:
        if s.start <= a < s.start + len(s.text):
            if len(s.text) <= width:
                return s.text
            lo = max(s.start, a - max(0, width - (b - a)) // 2)
            return "…" + text[lo:max(lo + width, b)].strip() + "…"
    return text[a:b]


# ---- misconceptions -----------------------------------------------------------------------------------------


def _misconceptions(question: Question, original: str, parts: list[Sentence]) -> list[Misconception]:
    out = []
    for mistake in question.mistakes:
        for i, c in enumerate(parts if mistake.match else []):
            found = [next((m for t in g if (m := find_term(t, c.text))), None) for g in mistake.match]
            warned = i + 1 < len(parts) and _same_sentence(original, c, parts[i + 1]) and consequence(parts[i + 1].text)
            if all(found) and not negated(_without(c.text, found)) and not warned:
                quote = original[c.start:c.start + len(c.text)]
                out.append(Misconception(zh=mistake.zh, en=mistake.en, quote=quote, point=mistake.point))
                break
    return out


def _same_sentence(text: str, a: Sentence, b: Sentence) -> bool:
    """Whether clause `b` follows `a` without a sentence end between them."""
    return not re.search(r"[。！？!?\n]|\.(?:\s|$)", text[a.start + len(a.text):b.start])


def _without(text: str, found: list[Hit | None]) -> str:
    """The clause with the pattern's own words blanked: a mistake worded with a negation ("就不会再有尖峰") is not
    denied by it."""
    for m in sorted((m for m in found if m), key=lambda m: m.start(), reverse=True):
        text = text[:m.start()] + " " + text[m.end():]
    return text


@cache
def _given_values_of(question_id: str, text: str) -> tuple[float, ...]:
    return tuple({float(re.match(r"[\d.,]+", n.text).group(0).replace(",", "")) for n in numbers(text)})


def _given_values(question: Question) -> tuple[float, ...]:
    """Every number the question and its reference answers write: restating one is never a contradiction."""
    text = " ".join([question.question.zh, question.question.en, question.answer.zh.essence, *question.answer.zh.parts,
                     question.answer.en.essence, *question.answer.en.parts])
    return _given_values_of(question.id, text)  # cached: the reference does not change


def _contradictions(question: Question, original: str, parts: list[Sentence]) -> list[Misconception]:
    """A number next to a fact's `about` word, in the fact's dimension, that matches none of the point's facts
    nor any number the question or its reference states."""
    out = []
    given = _given_values(question) if any(f.about for kp in question.key_points for f in kp.facts) else ()
    for i, kp in enumerate(question.key_points):
        facts = [(f, *unit_value(f.value, f.unit)) for f in kp.facts if f.about]
        hit = None
        for c in parts if facts else []:
            if negated(c.text):
                continue
            for fact, dimension, _ in facts:
                if not any(find_term(t, c.text) for t in fact.about):
                    continue
                allowed = [(v, f.tolerance) for f, d, v in facts if d == dimension]
                hit = next((n for n in numbers(c.text) if n.dimension == dimension and not _in_range(c.text, n)
                            and not any(abs(n.value - v) <= tol * abs(v) + 1e-12 for v, tol in allowed)
                            and not any(abs(_written(n) - g) <= 1e-9 * max(1.0, g) for g in given)), None)
                if hit is not None:
                    zh = f"数字与事实不符：{kp.zh}（回答说 {hit.text}，应为 {fact.value:g} {fact.unit}）"
                    en = (f"A number contradicts the facts: {kp.en} (the answer says {hit.text}, not "
                          f"{fact.value:g} {fact.unit})")
                    out.append(Misconception(zh=zh, en=en, quote=original[c.start:c.start + len(c.text)], point=i))
                    break
            if hit is not None:
                break
    return out


_RANGE = re.compile(r"\s*(?:-|~|–|到|至|to)\s*")


def _in_range(text: str, n: Number) -> bool:
    """"40%-55%", "2 到 3 倍": a range hedges, it does not state one value."""
    return bool(_RANGE.match(text, n.end)) or bool(re.search(r"(?:-|~|–|到|至|to)\s*$", text[:n.start]))


def _written(n: Number) -> float:
    return float(re.match(r"[\d.,]+", n.text).group(0).replace(",", ""))


# ---- keyword lists ------------------------------------------------------------------------------------------

_SEGMENT = re.compile(r"[,，、;；\n|]+|(?<=[。！？!?])|(?<=[A-Za-z0-9)\]%])\.(?=\s|$)")
_EN_FUNCTION = re.compile(
    r"\b(?:the|a|an|is|are|was|were|be|been|being|it|its|this|that|these|those|which|who|because|so|since|then|"
    r"when|if|while|but|to|of|in|on|for|with|by|from|at|as|into|than|can|could|will|would|should|must|may|"
    r"might|do|does|did|has|have|had|not|no|each|every|only|also|i|we|you|they|my|our|there|how|why|what|"
    r"after|before|until|once|otherwise|unless|thus|therefore|hence|get|gets|keep|keeps|need|needs|use|uses|"
    r"make|makes|let|lets|avoid|avoids|cause|causes|mean|means|take|takes|goes|go|put|save|saves|load|loads|"
    r"send|sends|wait|waits|stop|stops|first|both|either|same|more|less|up|down|out|back|per)\b",
    re.IGNORECASE)
_ZH_FUNCTION = re.compile(
    r"因为|所以|如果|需要|可以|通过|然后|导致|用来|用于|意味着|取决于|等于|否则|从而|因此|只要|只有|除非|之后|之前|"
    r"是|会|要|把|让|就|先|再|被|将|能|使|得|了|吗|来|去|在|给|从|对|不|没|都|也|才|还|又|而|但|当|时|后")
_ZH_NOT_FUNCTION = re.compile(r"要点|能力|能耗|会话|就绪|来源|先验|将来|时间|时延|时钟|后端|后台|对齐|对象|在线|得分")
_ARROW = re.compile(r"->|→|=>|=|⇒|≈|<|>|≤|≥")


def keyword_list(text: str, mask: tuple[str, ...], config: GradingConfig = CONFIG) -> tuple[bool, str]:
    """(is it a keyword list, why): at least `list_min_segments` items and fewer function words (predicates,
    connectives, articles, arrows) than `list_max_function_words` per item. The rubric's terms are masked first, so
    a term that happens to hold 是 or "to" reads as a term, not as a clause."""
    segments = [s for s in _SEGMENT.split(text) if s and s.strip(" -*•·.。:：")]
    if len(segments) < config.list_min_segments:
        return False, ""
    function_words = _function_words(mask_terms(mask, text))
    density = function_words / len(segments)
    if density >= config.list_max_function_words:
        return False, ""
    return True, f"{len(segments)}, {function_words}"


def _function_words(text: str) -> int:
    return (len(_EN_FUNCTION.findall(text)) + len(_ZH_FUNCTION.findall(_ZH_NOT_FUNCTION.sub("", text)))
            + len(_ARROW.findall(text)))


# ---- structure ----------------------------------------------------------------------------------------------

ESSENCE, REASONING, FIGURES, DEVELOPED = 10.0, 6.0, 4.0, 5.0
STAR_PART, STAR_RESULT_FIGURE = 5.0, 5.0
DEVELOPED_SENTENCES = 3
_REASONING = re.compile(r"因为|所以|因此|导致|意味着|从而|否则|由于|于是|这样|以便|为了|→|->|=>|"
                        r"\bbecause\b|\bso\b|\btherefore\b|\bsince\b|\bhence\b|\botherwise\b|\bwhich means\b|"
                        r"\bso that\b|\bthus\b|\bleads? to\b|\bcauses?\b", re.IGNORECASE)
STAR_MARKERS: dict[str, re.Pattern[str]] = {
    "situation": re.compile(r"情境|情景|背景|场景|当时|situation|context|background", re.IGNORECASE),
    "task": re.compile(r"任务|目标|负责|职责|\btask\b|\bgoal\b|responsib|\bI owned\b|my role", re.IGNORECASE),
    "action": re.compile(
        r"行动|措施|做法|我(?:先|首先|做了|采取|用|把|写|加|改|定位|排查|会)|\baction\b|"
        r"\bI(?:'d| would)? (?:first |then )?(?:did|built|added|implemented|wrote|changed|used|lowered|fixed|traced|"
        r"ran|moved|would|start|check)\b",
        re.IGNORECASE),
    "result": re.compile(
        r"结果|效果|最终|提升|降低|缩短|减少|\bresult|\boutcome|\bimpact\b|\breduced\b|\bimproved\b|\bcut\b|\bsaved\b",
        re.IGNORECASE),
}


def _structure(question: Question, text: str, said: list[Sentence], nums: list[Number],
               points: list[PointResult]) -> Structure:
    figures = any(n.dimension for n in nums)
    if question.type == QType.behavioral:
        star = {part: bool(p.search(text)) for part, p in STAR_MARKERS.items()}
        result = STAR_MARKERS["result"].search(text)
        result_figure = bool(result) and any(n.start >= result.start() for n in nums)
        raw = STAR_PART * sum(star.values()) + STAR_RESULT_FIGURE * result_figure
        return Structure(sentences=len(said), star=star, figures=result_figure, raw_points=raw)
    first = said[0] if said else None
    essence = first is not None and any(
        first.start <= _evidence_start(text, e) < first.start + len(first.text) for p in points for e in p.evidence)
    reasoning = bool(_REASONING.search(text))
    developed = len(said) >= DEVELOPED_SENTENCES
    raw = ESSENCE * essence + REASONING * reasoning + FIGURES * figures + DEVELOPED * developed
    return Structure(essence_first=essence, reasoning=reasoning, figures=figures, sentences=len(said), raw_points=raw)


def _evidence_start(text: str, quote: str) -> int:
    i = text.find(quote.strip("…"))
    return i if i >= 0 else len(text)


# ---- reasons --------------------------------------------------------------------------------------------------

_STAR_NAMES = {"situation": ("情境", "Situation"), "task": ("任务", "Task"), "action": ("行动", "Action"),
               "result": ("结果", "Result")}


def reasons(g: Grade, qtype: QType, list_reason: str = "", config: GradingConfig = CONFIG) -> list[str]:
    """The score explained in the grade's language, each part with the answer's own words as evidence."""
    zh = g.lang == "zh"
    if g.empty:
        return ["没有作答：0 分。" if zh else "No answer: 0 points."]
    out = []
    if g.off_topic:
        out.append(f"跑题：回答几乎没有涉及这道题的概念，最多 {config.off_topic_cap} 分。" if zh else
                   f"Off-topic: the answer addresses almost none of the question's concepts: at most "
                   f"{config.off_topic_cap}.")
    if g.keyword_list:
        out.append(f"关键词罗列：{list_reason} 项只有术语、没有句子或因果，最多 {config.keyword_list_cap} 分。"
                   if zh else
                   f"Keyword list: {list_reason} items are bare terms without a sentence or a reason: at most "
                   f"{config.keyword_list_cap}.")
    full = sum(p.covered for p in g.points)
    out.append(f"内容 {g.content:.0f}/{config.content_max:.0f}：完整覆盖 {full}/{len(g.points)} 个要点" if zh else
               f"Content {g.content:.0f}/{config.content_max:.0f}: {full}/{len(g.points)} key points in full")
    for p in g.points:
        name = p.zh if zh else p.en
        if p.wrong:
            continue
        if p.found:
            quotes = " / ".join(f"「{e}」" if zh else f'"{e}"' for e in p.evidence[:3])
            state = ("✓" if p.covered else f"部分 {p.found}/{p.required}") if zh else \
                ("✓" if p.covered else f"partly {p.found}/{p.required}")
            out.append(f"{state} {name}：{quotes}" if zh else f"{state} {name}: {quotes}")
        else:
            out.append(f"✗ 遗漏：{name}" if zh else f"✗ missed: {name}")
    for m in g.misconceptions:
        out.append((f"✗ 错误观点（-{config.misconception_penalty}，总分最多 {config.misconception_cap}）："
                    f"{m.zh}：「{m.quote}」") if zh else
                   (f"✗ misconception (-{config.misconception_penalty}, at most {config.misconception_cap} in all): "
                    f"{m.en}: \"{m.quote}\""))
    out += _structure_reasons(g.structure, qtype, zh)
    return out


def _structure_reasons(s: Structure, qtype: QType, zh: bool) -> list[str]:
    scaled = "" if s.points == s.raw_points else (f"（{s.raw_points:g} 分按内容折算）" if zh
                                                  else f" ({s.raw_points:g}, scaled by the content)")
    head = (f"结构 {s.points:g}/25{scaled}" if zh else f"Structure {s.points:g}/25{scaled}")
    if qtype == QType.behavioral and s.star is not None:
        marks = " ".join(f"{_STAR_NAMES[k][0 if zh else 1]}{'✓' if v else '✗'}" for k, v in s.star.items())
        figure = ("结果有数字" if s.figures else "结果没有数字") if zh else \
            ("a figure in the result" if s.figures else "no figure in the result")
        return [f"{head}：STAR {marks}，{figure}" if zh else f"{head}: STAR {marks}, {figure}"]
    parts = [(("首句点题" if s.essence_first else "首句没有点题"), ("有因果推理" if s.reasoning else "缺少因果"),
              ("有数字" if s.figures else "没有数字"), f"{s.sentences} 句")] if zh else \
        [(("conclusion first" if s.essence_first else "no conclusion first"),
          ("reasoning" if s.reasoning else "no reasoning"), ("figures" if s.figures else "no figures"),
          f"{s.sentences} sentences")]
    return [f"{head}：{'，'.join(parts[0])}" if zh else f"{head}: {', '.join(parts[0])}"]
