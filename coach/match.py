"""A JD against a résumé in the terminal: coverage, the gaps with the questions and labs that cover them.

    python -m coach.match --jd jd.txt --resume cv.pdf
    python -m coach.match --jd jd.pdf --resume cv.md --lang zh --out report.md

Bad input (a missing file, a binary file, an empty or oversized JD, a résumé without text) prints one line and
exits 2, before anything is written. The report goes to stdout, and to `--out` as Markdown when given.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from coach.inputs import InputError, read_jd, read_resume
from coach.jd import MatchReport, match
from coach.skills import skill_name

BAD_INPUT = 2

_T = {
    "zh": {"coverage": "关键词覆盖率：{p}（必备 {r}，加分 {f}）", "none": "JD 中没有词表内的技能", "covered": "已覆盖",
           "gaps": "缺口", "required": "必备", "preferred": "加分", "questions": "练习题", "labs": "实验",
           "no_lab": "（暂无实验）", "candidates": "词表未收录的术语（仅供扩充词表）", "written": "报告已写入 {path}"},
    "en": {"coverage": "Keyword coverage: {p} (required {r}, preferred {f})", "none": "the JD names no taxonomy skill",
           "covered": "Covered", "gaps": "Gaps", "required": "required", "preferred": "preferred",
           "questions": "questions", "labs": "labs", "no_lab": "(no lab yet)",
           "candidates": "Terms the taxonomy lacks (proposals only)", "written": "Report written to {path}"},
}


def render(report: MatchReport, lang: str) -> str:
    """The report as Markdown."""
    t, cov, jd = _T[lang], report.coverage, report.jd
    got_r = len(jd.required) - len(cov.missing_required)
    got_p = len(jd.preferred) - len(cov.missing_preferred)
    percent = t["none"] if cov.percent is None else f"{cov.percent:.0f}%"
    lines = [f"# {t['coverage'].format(p=percent, r=f'{got_r}/{len(jd.required)}', f=f'{got_p}/{len(jd.preferred)}')}",
             ""]
    if cov.covered:
        lines += [f"## {t['covered']}", ""]
        lines += [f"- {skill_name(k, lang)}: {'; '.join(v)}" for k, v in cov.covered.items()]
        lines.append("")
    if report.gaps:
        lines += [f"## {t['gaps']}", ""]
        for g in report.gaps:
            labs = ", ".join(g.labs) if g.labs else t["no_lab"]
            lines.append(f"- **{g.name_zh if lang == 'zh' else g.name_en}** ({t[g.level]}): {t['labs']} {labs}; "
                         f"{t['questions']} {', '.join(g.questions) or '-'}")
        lines.append("")
    if jd.candidates:
        lines += [f"{t['candidates']}: {', '.join(jd.candidates)}", ""]
    return "\n".join(lines)


def write_atomically(path: Path, text: str) -> None:
    """Write aside, then rename: a reader never sees half a report, and a failure leaves no file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    p = argparse.ArgumentParser(prog="python -m coach.match", description="Match a résumé against a JD.")
    p.add_argument("--jd", required=True, help="the job description (text, Markdown, PDF or DOCX)")
    p.add_argument("--resume", required=True, help="your résumé (PDF, DOCX, Markdown or text)")
    p.add_argument("--master", help="your master résumé, to tell 'you have it but did not say it' from 'missing'")
    p.add_argument("--lang", choices=("zh", "en"), default="en")
    p.add_argument("--out", help="also write the report here as Markdown")
    args = p.parse_args(argv)
    try:  # read and check every input before anything is written
        jd_text = read_jd(args.jd)
        resume = read_resume(args.resume)
        master = read_resume(args.master).text if args.master else None
    except InputError as e:
        print(e.text(args.lang), file=err)
        return BAD_INPUT
    text = render(match(jd_text, resume.text, master), args.lang)
    print(text, file=out)
    if args.out:
        try:
            write_atomically(Path(args.out), text)
        except OSError as e:
            print(InputError("unreadable", reason=f"{args.out}: {e.strerror}").text(args.lang), file=err)
            return BAD_INPUT
        print(_T[args.lang]["written"].format(path=args.out), file=err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
