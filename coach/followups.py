"""The offline interviewer's follow-ups: what a real interviewer asks after an answer, in this order.

1. A key point the answer missed (from the rubric): "you didn't mention X: why does it matter here?"
2. The résumé's own claim: a bullet with a number that states a skill of the question (failing that, a skill of
   the same taxonomy category), quoted, with a question about its figures: the baseline behind "20%", how "30
   分钟 -> 5 分钟" was measured, the first bottleneck at "64 卡". Only the bullet's own numbers appear; the
   templates hold none.
3. The user's lab run: the latest report.json of a lab the question links (`coach.lab_evidence`), its figures.
4. The bank's follow-ups: a linked question's text, or the inline follow-up.

Each source is used once per session (`Asked`): an interviewer does not quote the same bullet twice.
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

MAX_FOLLOW_UPS = 3
KINDS = ("missed_point", "resume_claim", "lab_result", "bank", "other")


class FollowUp(BaseModel):
    kind: str          # one of KINDS
    text: str
    source: str = ""   # the key point, the bullet, the report path or the bank question id it came from


@dataclass
class Asked:
    """What the session has already used, so follow-ups do not repeat (bullets, report paths, bank ids/texts)."""
    sources: set[str] = field(default_factory=set)


def offline_follow_ups(question: Question, g: Grade, bank: Bank, lang: str, bullets: list[str] | None = None,
                       runs_dir: Path | str = DEFAULT_RUNS, asked: Asked | None = None,
                       limit: int = MAX_FOLLOW_UPS) -> list[FollowUp]:
    """Up to `limit` follow-ups for an answer graded `g`, in the order of the module docstring."""
    asked = asked if asked is not None else Asked()
    found = [
        missed_point(g, lang),
        claim_follow_up(question, bullets or [], lang, asked),
        lab_follow_up(question, runs_dir, lang, asked),
        bank_follow_up(question, bank, lang, asked),
    ]
    out = [f for f in found if f is not None][:limit]
    asked.sources.update(f.source for f in out)
    return out


def missed_point(g: Grade, lang: str) -> FollowUp | None:
    if not g.missed or g.empty or g.off_topic:
        return None  # nothing was said to drill into; the reference answer shows what to say
    p = g.missed[0]
    text = (f"你没有提到「{p.zh}」。这一点在这个问题里为什么重要？你会怎么做？" if lang == "zh"
            else f"You didn't mention {p.en}. Why does it matter here, and how would you handle it?")
    return FollowUp(kind="missed_point", text=text, source=p.en)


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
    """Bullets with a number that state a skill of the question, most shared skills first; failing any, those
    that state a skill of the same taxonomy category."""
    tags = set(question.tags)
    skills = load_taxonomy().skills
    categories = {skills[t].category for t in tags if t in skills}
    scored = []
    for i, b in enumerate(bullets):
        if not quantities(b):
            continue  # a claim without a figure gives the interviewer nothing to check
        stated = set(stated_skills(b))
        shared = len(stated & tags)
        near = len({skills[s].category for s in stated if s in skills} & categories)
        if shared or near:
            scored.append((-shared, -near, i, b))
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
    else:
        q = figs[0].text if figs else ""
        ask = (f"{q} 这个数字是怎么得到的？和什么比？" if zh else f"How did you arrive at {q}, and compared with what?")
    return quote + ask


# ---- lab runs and the bank ---------------------------------------------------------------------------------


def lab_follow_up(question: Question, runs_dir: Path | str, lang: str, asked: Asked) -> FollowUp | None:
    for lab in question.labs:
        report = latest_report(lab, runs_dir)
        if report is not None and str(report.path) not in asked.sources:
            return FollowUp(kind="lab_result", text=lab_question(report, lang), source=str(report.path))
    return None


def bank_follow_up(question: Question, bank: Bank, lang: str, asked: Asked) -> FollowUp | None:
    for item in question.follow_ups:
        if isinstance(item, Text):
            source, text = getattr(item, lang), getattr(item, lang)
        elif item in bank.by_id:
            source, text = item, getattr(bank.by_id[item].question, lang)
        else:
            continue  # a dangling id: the bank validator reports it
        if source not in asked.sources:
            return FollowUp(kind="bank", text=text, source=source)
    return None
