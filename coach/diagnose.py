"""Résumé diagnosis: a score per version and per bullet on JD coverage, quantification and STAR completeness.

    python -m coach.diagnose cv.md
    python -m coach.diagnose cv_v1.pdf cv_v2.md --jd jd.txt --lang zh

Each dimension is 0-100 and explains itself, with the fix linked:
- coverage (needs a JD): the JD's skills the version states, required weighted twice a preferred one
  (`coach.jd.coverage`); each missing skill comes with the bank questions and the lab that practise it.
- quantification, per bullet: a measurable result (a %, a ratio, a time, a size, a rate) is worth 50, a
  baseline for it (a from-to pair of one kind, "vs", 相比, 从…到) 30 more, a scale (GPUs, nodes, parameters) 20.
  So "cut step time by 30%" scores lower than "cut step time from 1.2 s to 0.8 s (30%)".
- STAR, per bullet: context (where, for what, at what scale), an action verb and a result, each a third, less a
  sixth when the result comes before the action (a recruiter reads a bullet left to right).
The fix for a bullet is its STAR questions (`coach.star.questions_for`): what to answer so the rewrite can
state the figures. Bad input (a missing file, a binary or empty file) prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from statistics import mean
from typing import TextIO

from coach.inputs import InputError, read_jd, read_resume
from coach.jd import JDAnalysis, analyze_jd, coverage, gaps
from coach.numbers import BYTES, SECONDS, Quantity, quantities
from coach.skills import skill_name, stated_skills
from coach.star import lang_of, questions_for

BAD_INPUT = 2
RESULT_POINTS, BASELINE_POINTS, SCALE_POINTS = 50, 30, 20

_RESULT_UNITS = {"%", "x", *SECONDS, *BYTES}
_SCALE_UNITS = {"gpu", "node"}
_BASELINE = re.compile(
    r"\bfrom\b[^,;]{0,40}?\bto\b|\bvs\.?\b|\bversus\b|\bcompared\s+(?:with|to)\b|\bbaseline\b|\bover\s+the\b"
    r"|从[^，,；;]{0,20}?(?:到|至|降到|降至|提升到|提高到|增加到|缩短到|减少到)|相比|相较|对比|基线|较之?前|由[^，,；;]{0,20}?(?:到|至)"
    r"|(?:→|->)",
    re.IGNORECASE,
)
_ACTION = re.compile(
    r"\b(?:[A-Za-z]{3,}ed|built|wrote|led|ran|cut|set\s+up|made|drove|rewrote|took|brought|found|shipped|ported)\b"
    r"(?<!\bdistributed)(?<!\bbased)(?<!\brelated)(?<!\bshared)(?<!\bsharded)(?<!\bmixed)"
    r"|实现|开发|优化|设计|搭建|负责|重构|编写|写了|排查|定位|引入|迁移|部署|训练|调优|改造|完成|做了|建立|推动|修复|改写|主导|参与|"
    r"构建|研发|编排|接入|落地|分析|诊断|提出",
    re.IGNORECASE,
)
_RESULT = re.compile(
    r"\b(?:reduc|cut|cutting|improv|rais|increas|boost|sav|lower|decreas|speed|sped|accelerat|achiev|reach|shrink|"
    r"shrank|eliminat|halv|doubl|prevent|recover)\w*"
    r"|提升|提高|降低|减少|缩短|节省|加速|达到|降到|降至|消除|避免|恢复|翻倍|减半|从.{0,20}到",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"\b(?:for|across|during|when|while|within|on\s+(?:a|an|the|our|\d)|at\s+(?:a|an|the|\d)"
    r"|to\s+(?:support|serve|train|let|keep|make|cut|stop|avoid))\b"
    r"|在.{1,20}?(?:上|中|时|下|里)|针对|为了|为|面对|由于|当|基于|场景|项目",
    re.IGNORECASE,
)


@dataclass
class BulletScore:
    text: str
    quantification: int
    star: int
    skills: list[str]                        # JD skill ids the bullet states
    notes: list[str] = field(default_factory=list)   # why points were lost, in the bullet's language
    fixes: list[str] = field(default_factory=list)   # STAR questions that would fill the gaps


@dataclass
class GapFix:
    skill_id: str
    level: str
    questions: list[str]
    labs: list[str]


@dataclass
class Diagnosis:
    name: str
    bullets: list[BulletScore]
    coverage: int | None                      # None without a JD
    missing: list[GapFix]

    @property
    def quantification(self) -> int:
        return round(mean(b.quantification for b in self.bullets)) if self.bullets else 0

    @property
    def star(self) -> int:
        return round(mean(b.star for b in self.bullets)) if self.bullets else 0


_NOTES = {
    "no_result": ("没有可衡量的结果（百分比、倍数、时间、大小）",
                  "no measurable result (a %, a ratio, a time, a size)"),
    "no_baseline": ("有结果但没有基线（从多少到多少、相比什么）",
                    "a result with no baseline (from what, compared with what)"),
    "no_scale": ("没有规模（卡数、节点数、参数量）", "no scale (GPUs, nodes, parameters)"),
    "no_context": ("缺少情境/任务（在什么场景、为什么做）", "no situation or task (where, for what)"),
    "no_action": ("缺少明确的动作（你具体做了什么）", "no clear action (what you did)"),
    "no_star_result": ("缺少结果（带来了什么变化）", "no result (what changed because of it)"),
    "order": ("结果写在动作前面，不符合 STAR 顺序", "the result comes before the action (not in STAR order)"),
}


def _note(key: str, lang: str) -> str:
    zh, en = _NOTES[key]
    return zh if lang == "zh" else en


def quantification(bullet: str) -> tuple[int, list[str]]:
    """Points for a measurable result, its baseline and a scale; the keys of what is missing."""
    qs = quantities(bullet)
    scale = [q for q in qs if _is_scale(bullet, q)]
    result = [q for q in qs if q not in scale and (q.unit in _RESULT_UNITS or _is_rate(bullet, q))]
    pair = _BASELINE.search(bullet) and len([q for q in qs if q not in scale]) >= 2  # "from 120 to 15 a week"
    result = result or ([q for q in qs if q not in scale] if pair else [])
    baseline = bool(result) and (bool(_BASELINE.search(bullet)) or _same_kind_pair(result))
    points = RESULT_POINTS * bool(result) + BASELINE_POINTS * baseline + SCALE_POINTS * bool(scale)
    missing = ([] if result else ["no_result"]) + (["no_baseline"] if result and not baseline else [])
    return points, missing + ([] if scale else ["no_scale"])


def _is_scale(text: str, q: Quantity) -> bool:
    """"256 A100 GPUs", "64-node", "7B", 70亿参数, 千卡: how big the job was, not what it achieved."""
    after = text[q.start + len(q.text): q.start + len(q.text) + 16]
    return q.unit in _SCALE_UNITS or bool(re.search(r"[B亿]$", q.text)) or bool(re.match(
        r"[\s-]*(?:[A-Z][\w-]*\s+)?(?:GPUs?|cards?|nodes?|卡|张|块|节点|台|参数|parameters?)", after, re.IGNORECASE))


def _is_rate(text: str, q: Quantity) -> bool:
    """"3,000 tokens/s", "200 QPS", "MFU 52": a measured rate or level is a result too."""
    after = text[q.start + len(q.text): q.start + len(q.text) + 12]
    before = text[max(0, q.start - 8): q.start]
    return bool(re.match(r"\s*(?:tokens?/s|samples?/s|QPS|TFLOPS|/s\b|每秒)", after, re.IGNORECASE)
                or re.search(r"MFU\s*$", before, re.IGNORECASE))


def _same_kind_pair(qs: list[Quantity]) -> bool:
    return any(a.unit == b.unit for i, a in enumerate(qs) for b in qs[i + 1:])


def star_completeness(bullet: str) -> tuple[int, list[str]]:
    """A third each for context, action and result, less a sixth when the result precedes the action."""
    action = _ACTION.search(bullet)
    result = _RESULT.search(bullet) or next((m for m in [re.search(r"\d+(?:\.\d+)?\s*(?:%|x\b|倍)", bullet)] if m),
                                            None)
    context = _CONTEXT.search(bullet)
    parts = {"no_context": context, "no_action": action, "no_star_result": result}
    score = 100 * sum(1 for m in parts.values() if m) / 3
    missing = [k for k, m in parts.items() if not m]
    if action and result and result.start() < action.start():
        score -= 100 / 6
        missing.append("order")
    return round(score), missing


def diagnose(name: str, bullets: list[str], resume_text: str, jd: JDAnalysis | None = None,
             lang: str = "en") -> Diagnosis:
    """Score one résumé version: every bullet, and coverage of `jd` when one is given."""
    scored = [_bullet(b, jd, lang) for b in bullets if b.strip()]
    if jd is None:
        return Diagnosis(name, scored, None, [])
    cov = coverage(jd, resume_text)
    missing = [GapFix(g.skill_id, g.level, list(g.questions), list(g.labs)) for g in gaps(jd, resume_text)]
    return Diagnosis(name, scored, None if cov.percent is None else round(cov.percent), missing)


def _bullet(bullet: str, jd: JDAnalysis | None, lang: str) -> BulletScore:
    q_points, q_missing = quantification(bullet)
    s_points, s_missing = star_completeness(bullet)
    skills = [s for s in stated_skills(bullet) if jd and s in jd.skills]
    blang = lang_of(bullet) if lang == "auto" else lang
    fixes = [getattr(q, blang) for q in questions_for(bullet, jd=jd)[:3]] if q_missing or s_missing else []
    return BulletScore(bullet, q_points, s_points, skills, [_note(k, blang) for k in q_missing + s_missing], fixes)


# ---- the terminal report --------------------------------------------------------------------------------------

_T = {
    "zh": {"version": "版本", "coverage": "JD 覆盖", "quant": "量化", "star": "STAR", "bullet": "条目",
           "skills": "覆盖技能", "why": "扣分原因", "fix": "补充这些，再用 STAR 改写", "missing": "JD 缺口",
           "questions": "练习题", "labs": "实验", "none": "（无）", "no_jd": "（未给 JD）", "summary": "各版本总览",
           "no_bullets": "没有找到条目（以 - 或 • 开头的行）"},
    "en": {"version": "version", "coverage": "JD coverage", "quant": "quantification", "star": "STAR",
           "bullet": "bullet", "skills": "JD skills", "why": "points lost", "fix": "answer these, then STAR-rewrite it",
           "missing": "JD gaps", "questions": "questions", "labs": "labs", "none": "(none)", "no_jd": "(no JD)",
           "summary": "Versions side by side", "no_bullets": "no bullets found (lines starting with - or •)"},
}


def render(diagnoses: list[Diagnosis], lang: str) -> str:
    """The diagnoses as Markdown: a summary table of the versions, then each version's bullets."""
    t = _T[lang]
    lines = [f"# {t['summary']}", "", f"| {t['version']} | {t['coverage']} | {t['quant']} | {t['star']} |",
             "| --- | --- | --- | --- |"]
    for d in diagnoses:
        cov = t["no_jd"] if d.coverage is None else str(d.coverage)
        lines.append(f"| {d.name} | {cov} | {d.quantification} | {d.star} |")
    for d in diagnoses:
        lines += ["", f"## {d.name}", ""]
        if not d.bullets:
            lines.append(t["no_bullets"])
        for b in d.bullets:
            skills = ", ".join(skill_name(s, lang) for s in b.skills) or t["none"]
            lines.append(f"- {b.text}\n  - {t['quant']} {b.quantification}, {t['star']} {b.star}; "
                         f"{t['skills']}: {skills}")
            if b.notes:
                lines.append(f"  - {t['why']}: {'; '.join(b.notes)}")
            if b.fixes:
                lines.append(f"  - {t['fix']}: {' / '.join(b.fixes)}")
        if d.missing:
            lines += ["", f"### {t['missing']}", ""]
            for g in d.missing:
                lines.append(f"- {skill_name(g.skill_id, lang)} ({g.level}): {t['labs']} {', '.join(g.labs) or '-'}; "
                             f"{t['questions']} {', '.join(g.questions) or '-'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    p = argparse.ArgumentParser(prog="python -m coach.diagnose", description="Score résumé versions.")
    p.add_argument("resumes", nargs="+", metavar="RESUME", help="one or more résumé versions (PDF, DOCX, Markdown)")
    p.add_argument("--jd", help="the job description to score coverage against")
    p.add_argument("--lang", choices=("zh", "en"), default="en")
    args = p.parse_args(argv)
    try:  # read every input before printing anything
        jd = analyze_jd(read_jd(args.jd)) if args.jd else None
        docs = [read_resume(path) for path in args.resumes]
    except InputError as e:
        print(e.text(args.lang), file=err)
        return BAD_INPUT
    diagnoses = [diagnose(d.filename, d.bullets, d.text, jd, args.lang) for d in docs]
    print(render(diagnoses, args.lang), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
