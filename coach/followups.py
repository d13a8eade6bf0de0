"""The offline interviewer's follow-ups: what a real interviewer asks next in a thread, one at a time.

Candidates, in the order the first follow-up takes them:

1. A misconception the answer stated (`Grade.misconceptions`): "you said «…»: are you sure?"
2. A key point the answer missed: "you didn't mention X: why does it matter here?"
3. The résumé's own claim: a bullet that states a skill of the question (failing that, a skill of the same
   taxonomy category), quoted, with a question about its figures (the baseline behind "20%", how "30 分钟 ->
   5 分钟" was measured) or, for a claim without numbers ("fixed NCCL timeouts"), about which ones and how the
   cause was found. Only the bullet's own numbers appear; the templates hold none.
4. The user's lab run: the latest report.json of a lab the question links (`coach.lab_evidence`), its figures.
5. The bank's follow-ups: a linked question's text, or the inline follow-up.

A later follow-up prefers a kind the thread has not used yet (an interviewer moves from the concept to the
candidate's own work), then falls back to the same order. Each source is used once per session (`Asked`).
A follow-up knows its rubric: a key point of the main question (`point`), a linked bank question
(`question_id`), or none (résumé, lab and inline follow-ups are not scored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from coach.grading import Grade
from coach.lab_evidence import DEFAULT_RUNS, lab_question, latest_report
from coach.numbers import Quantity, quantities
from coach.skills import stated_skills
from question_bank.loader import Bank
from question_bank.schema import Question, Text
from question_bank.taxonomy import load_taxonomy

MAX_FOLLOW_UPS = 2
KINDS = ("misconception", "missed_point", "resume_claim", "lab_result", "bank", "other")
FIRST_ORDER = ("misconception", "missed_point", "resume_claim", "lab_result", "bank")
LATER_ORDER = ("misconception", "resume_claim", "lab_result", "missed_point", "bank")


class FollowUp(BaseModel):
    kind: str                       # one of KINDS
    text: str
    source: str = ""                # the key point, the bullet, the report path or the bank question id
    point: int | None = None        # rubric: this key point of the thread's question
    question_id: str | None = None  # rubric: this bank question's key points
    item: int | None = None         # rubric: the key points of the thread question's follow_ups[item]
    answer: str | None = None       # the candidate's answer, once given
    grade: Grade | None = None      # the answer graded against the follow-up's rubric, at the thread's close


@dataclass
class Asked:
    """What the session has already used, so follow-ups do not repeat (bullets, report paths, bank ids/texts)."""
    sources: set[str] = field(default_factory=set)


def next_follow_up(question: Question, g: Grade, bank: Bank, lang: str, bullets: list[str] | None = None,
                   runs_dir: Path | str = DEFAULT_RUNS, asked: Asked | None = None,
                   used_kinds: tuple[str, ...] = ()) -> FollowUp | None:
    """The next follow-up for a thread whose answers so far grade `g` (see the module docstring), or None."""
    asked = asked if asked is not None else Asked()
    makers = {
        "misconception": lambda: misconception_follow_up(g, lang, asked),
        "missed_point": lambda: missed_point(g, lang, asked),
        "resume_claim": lambda: claim_follow_up(question, bullets or [], lang, asked),
        "lab_result": lambda: lab_follow_up(question, runs_dir, lang, asked),
        "bank": lambda: bank_follow_up(question, bank, lang, asked),
    }
    order = FIRST_ORDER if not used_kinds else LATER_ORDER
    fresh = [k for k in order if k not in used_kinds or k == "misconception"]
    for kind in [*fresh, *(k for k in order if k not in fresh)]:
        if (f := makers[kind]()) is not None:
            asked.sources.add(f.source)
            return f
    return None


def offline_follow_ups(question: Question, g: Grade, bank: Bank, lang: str, bullets: list[str] | None = None,
                       runs_dir: Path | str = DEFAULT_RUNS, asked: Asked | None = None,
                       limit: int = MAX_FOLLOW_UPS) -> list[FollowUp]:
    """Up to `limit` follow-ups as `next_follow_up` would ask them one after another (the LLM's examples)."""
    asked = asked if asked is not None else Asked()
    out: list[FollowUp] = []
    while len(out) < limit and (f := next_follow_up(question, g, bank, lang, bullets, runs_dir, asked,
                                                    tuple(x.kind for x in out))):
        out.append(f)
    return out


def misconception_follow_up(g: Grade, lang: str, asked: Asked) -> FollowUp | None:
    for m in g.misconceptions:
        source = "misconception:" + m.en
        if source not in asked.sources:
            text = (f"你刚才说「{m.quote}」。你确定吗？请说说它为什么成立，或者哪里不对。" if lang == "zh"
                    else f'You said "{m.quote}". Are you sure? Walk me through why that holds, or where it breaks.')
            return FollowUp(kind="misconception", text=text, source=source, point=m.point)
    return None


def missed_point(g: Grade, lang: str, asked: Asked) -> FollowUp | None:
    if g.empty or not any(p.found for p in g.points):
        return None  # nothing on topic was said to drill into; the reference answer shows what to say
    for i, p in enumerate(g.points):
        source = "point:" + p.en
        if p.covered or p.wrong or source in asked.sources:
            continue
        text = (f"你没有提到「{p.zh}」。这一点在这个问题里为什么重要？你会怎么做？" if lang == "zh"
                else f"You didn't mention {p.en}. Why does it matter here, and how would you handle it?")
        if p.partial:
            text = (f"你提到了一部分「{p.zh}」，能展开讲讲吗？" if lang == "zh"
                    else f"You touched on {p.en}. Can you go into it properly?")
        return FollowUp(kind="missed_point", text=text, source=source, point=i)
    return None


# ---- the résumé's claims -----------------------------------------------------------------------------------

_UNIT = re.compile(
    r"\s?(?P<gain>%|％|倍|[xX×](?![A-Za-z]))|"
    r"\s?(?P<scale>(?:张|块)?卡|GPUs?\b|[A-Z]\d{2,3}s?\b|nodes?\b|台|节点)|"
    r"\s?(?P<time>分钟|小时|秒|天|周|min(?:utes?)?\b|hours?\b|h\b|s\b|seconds?\b|days?\b|weeks?\b)"
)


@dataclass(frozen=True)
class Figure:
    text: str   # as the bullet writes it, unit included: "20%", "16 A100s", "30 分钟"
    kind: str   # gain | scale | time | other


def figures(bullet: str) -> list[Figure]:
    """The bullet's quantities with their units, classified."""
    out = []
    for q in quantities(bullet):
        end = q.start + len(q.text)
        m = _UNIT.match(bullet, end)
        kind = next((k for k, v in m.groupdict().items() if v), "other") if m else _kind_of(q)
        out.append(Figure(bullet[q.start:m.end()] if m else q.text, kind))
    return out


def _kind_of(q: Quantity) -> str:
    return "gain" if q.text.lower().endswith(("x", "倍")) else "other"


def relevant_claims(question: Question, bullets: list[str]) -> list[str]:
    """Bullets that state a skill of the question, most shared skills first, a claim with figures before one
    without at equal skills; failing any, those that state a skill of the same taxonomy category."""
    tags = set(question.tags)
    skills = load_taxonomy().skills
    categories = {skills[t].category for t in tags if t in skills}
    scored = []
    for i, b in enumerate(bullets):
        stated = set(stated_skills(b))
        shared = len(stated & tags)
        near = len({skills[s].category for s in stated if s in skills} & categories)
        if shared or near:
            scored.append((-shared, -near, not quantities(b), i, b))
    return [b for *_, b in sorted(scored)]


def claim_follow_up(question: Question, bullets: list[str], lang: str, asked: Asked) -> FollowUp | None:
    for bullet in relevant_claims(question, bullets):
        if bullet not in asked.sources:
            return FollowUp(kind="resume_claim", text=claim_question(bullet, lang), source=bullet)
    return None


def claim_question(bullet: str, lang: str) -> str:
    """Quote the bullet and ask about its own figures (the templates add no number of their own)."""
    figs = figures(bullet)
    by = {k: [f.text for f in figs if f.kind == k] for k in ("gain", "scale", "time", "other")}
    zh = lang == "zh"
    quote = f"你简历里写：「{bullet}」。" if zh else f'Your résumé says: "{bullet}". '
    on = (f"在 {by['scale'][0]} 的规模上，" if zh else f"On {by['scale'][0]}, ") if by["scale"] else ""
    if by["gain"]:
        g = by["gain"][0]
        ask = (f"{on}这个 {g} 的基线是什么、怎么测的？收益具体来自哪里？" if zh
               else f"{on}what was the baseline behind {g}, how did you measure it, and where did the gain come from?")
    elif len(by["time"]) >= 2:
        a, b = by["time"][:2]
        ask = (f"{on}从 {a} 到 {b}，时间主要省在哪一步？你是怎么测的？" if zh
               else f"{on}from {a} to {b}: where did the time go, and how did you measure it?")
    elif by["time"]:
        t = by["time"][0]
        ask = (f"{on}{t} 是怎么测出来的，从哪一刻算到哪一刻？瓶颈在哪一步？" if zh
               else f"{on}how did you measure {t}, from which moment to which, and where was the bottleneck?")
    elif by["scale"]:
        s = by["scale"][0]
        ask = (f"到了 {s} 这个规模，你最先遇到的瓶颈是什么（通信、显存还是故障）？怎么定位的？" if zh
               else f"At {s}, what was the first bottleneck you hit (communication, memory or failures), "
                    "and how did you find it?")
    elif figs:
        q = figs[0].text
        ask = (f"{q} 这个数字是怎么得到的？和什么比？" if zh else f"How did you arrive at {q}, and compared with what?")
    else:  # a claim without numbers: ask for the specifics behind it
        ask = ("具体是哪几次、什么现象？你是怎么定位到原因（比如是哪个 rank、哪一步）的？"
               "你改了什么，效果怎么验证？" if zh
               else "Which cases exactly, and what did you see? How did you find the cause (which rank, which "
                    "step)? What did you change, and how did you check it worked?")
    return quote + ask


# ---- lab runs and the bank ---------------------------------------------------------------------------------


def lab_follow_up(question: Question, runs_dir: Path | str, lang: str, asked: Asked) -> FollowUp | None:
    for lab in question.labs:
        report = latest_report(lab, runs_dir)
        if report is not None and str(report.path) not in asked.sources:
            return FollowUp(kind="lab_result", text=lab_question(report, lang), source=str(report.path))
    return None


def bank_follow_up(question: Question, bank: Bank, lang: str, asked: Asked) -> FollowUp | None:
    for i, item in enumerate(question.follow_ups):
        if isinstance(item, Text):
            source, text = getattr(item, lang), getattr(item, lang)
        elif item in bank.by_id:
            source, text = item, getattr(bank.by_id[item].question, lang)
        else:
            continue  # a dangling id: the bank validator reports it
        if source not in asked.sources:
            linked = item if isinstance(item, str) else None
            own = i if isinstance(item, Text) and getattr(item, "key_points", None) else None
            return FollowUp(kind="bank", text=text, source=source, question_id=linked, item=own)
    return None
