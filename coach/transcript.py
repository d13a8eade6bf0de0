"""A mock interview as Markdown: each thread (the question, the answer, each follow-up with its answer and its own
grade), the thread's grade with the quoted evidence, the misconceptions, and the reference answer.

Written to `<data dir>/transcripts/<session id>.md` by default, next to the database, so it stays with the
user's data rather than in the working directory.
"""

from __future__ import annotations

from pathlib import Path

from coach.db import default_data_dir
from coach.interview_store import Session, Turn
from question_bank.loader import Bank, load_bank

_LABELS = {
    "zh": {"title": "模拟面试记录", "session": "会话", "started": "开始", "finished": "结束", "engine": "引擎",
           "mean": "平均分", "answer": "回答", "none": "（未作答）", "follow_ups": "追问", "grade": "评分",
           "covered": "已覆盖", "missed": "遗漏", "feedback": "LLM 反馈（仅供参考，不影响分数）",
           "partial": "部分", "wrong": "错误观点", "follow_up": "追问", "not_scored": "不单独计分",
           "disagree": "LLM 与离线评分的分歧", "thread": "整题评分（主回答加全部追问）",
           "reference": "参考答案", "mistakes": "常见错误", "unanswered": "未作答的题目", "notice": "提示"},
    "en": {"title": "Mock interview transcript", "session": "Session", "started": "Started", "finished": "Finished",
           "engine": "Engine", "mean": "Mean score", "answer": "Answer", "none": "(no answer)",
           "follow_ups": "Follow-ups", "grade": "Grade", "covered": "covered", "missed": "missed",
           "partial": "partly", "wrong": "Misconception", "follow_up": "Follow-up", "not_scored": "not scored alone",
           "disagree": "Where the LLM and the offline grader disagree",
           "thread": "Thread grade (main answer and every follow-up)",
           "feedback": "LLM feedback (advisory, does not change the score)", "reference": "Reference answer",
           "mistakes": "Common mistakes", "unanswered": "Questions not answered", "notice": "Notice"},
}


def export_markdown(session: Session, bank: Bank | None = None) -> str:
    """The whole session as Markdown, in the session's language."""
    bank = bank or load_bank()
    t = _LABELS[session.lang]
    mean = f"{session.score:.0f}/100" if session.score is not None else "-"
    out = [f"# {t['title']}", "",
           f"- {t['session']}: `{session.id}`", f"- {t['started']}: {session.started}",
           f"- {t['finished']}: {session.finished or '-'}", f"- {t['engine']}: {session.engine}",
           f"- {t['mean']}: {mean}", ""]
    for turn in session.turns:
        out += _turn(turn, bank, session.lang)
    rest = session.question_ids[len(session.turns):]
    if rest:
        out += [f"## {t['unanswered']}", ""] + [f"- {getattr(bank.by_id[q].question, session.lang)}" for q in rest]
    return "\n".join(out).rstrip() + "\n"


def _quoted(lines: str, none: str) -> list[str]:
    return [f"> {line}" if line.strip() else ">" for line in (lines.strip() or none).splitlines()]


def _turn(turn: Turn, bank: Bank, lang: str) -> list[str]:
    t, g = _LABELS[lang], turn.grade
    q = bank.by_id[turn.question_id]
    out = [f"## {turn.position + 1}. {turn.text or getattr(q.question, lang)}", "",
           f"`{q.id}` · {q.type.value} · {'★' * q.difficulty} · {', '.join(q.tags)}", "",
           f"### {t['answer']}", ""]
    out += _quoted(turn.answer or "", t["none"])
    for k, f in enumerate(turn.follow_ups, 1):
        score = f"{f.grade.score}/100" if f.grade else t["not_scored"]
        out += ["", f"### {t['follow_up']} {k} ({f.kind}, {score})", "", f"**{f.text}**", ""]
        out += _quoted(f.answer or "", t["none"])
    if turn.notice:
        out += ["", f"*{t['notice']}: {turn.notice}*"]
    if g is None:
        return out + [""]
    out += ["", f"### {t['thread']}: {g.score}/100", ""]
    out += [f"- {r}" for r in g.reasons]  # every covered point and misconception with the answer's own words
    if g.disagreements:
        out += ["", f"**{t['disagree']}**", ""] + [f"- {d}" for d in g.disagreements]
    if g.feedback:
        out += ["", f"**{t['feedback']}**", "", g.feedback]
    out += ["", f"### {t['reference']}", "", f"**{g.reference.essence}**", ""]
    out += [f"- {part}" for part in g.reference.parts]
    if g.mistakes:
        out += ["", f"**{t['mistakes']}**", ""] + [f"- {m}" for m in g.mistakes]
    return out + [""]


def write_transcript(session: Session, folder: Path | str | None = None, bank: Bank | None = None,
                     name: str | None = None) -> Path:
    """Write the Markdown to `folder/<name or session id>.md` (default: the data folder's transcripts/)."""
    target = Path(folder) if folder is not None else default_data_dir() / "transcripts"
    target.mkdir(parents=True, exist_ok=True)
    path = target / (name or f"{session.id}.md")
    path.write_text(export_markdown(session, bank), encoding="utf-8")
    return path
