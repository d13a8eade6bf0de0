"""`python -m coach.interview` end to end as a subprocess: a scripted session (--answers FILE) of 3 questions with
2 follow-ups each from a résumé and a JD, writing a Markdown transcript; interactive answers on stdin; bad input."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from llm_server import LLMServer, status
from test_coach_interview import JD, RESUME, good_answer

from coach.db import connect
from coach.interview_store import claims_of
from coach.jd import analyze_jd
from coach.plan import plan_session, signals
from conftest import ROOT, env
from question_bank.loader import load_bank

BANK = load_bank()
FOLLOW_UP_ANSWER = {"en": "I would check it with a profiler and compare against the baseline, because numbers "
                          "without a baseline mean nothing.",
                    "zh": "我会用 profiler 测一下，再和基线对比，因为没有基线的数字没有意义。"}


def run(tmp_path: Path, stdin: str, *args: str, extra_env: dict[str, str] | None = None):
    (tmp_path / "jd.txt").write_text(JD, encoding="utf-8")
    (tmp_path / "cv.md").write_text(RESUME, encoding="utf-8")
    environ = {k: v for k, v in env().items() if k not in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY")}
    environ.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-m", "coach.interview", "--jd", str(tmp_path / "jd.txt"), "--resume", str(tmp_path / "cv.md"),
         "--runs", str(tmp_path / "runs"), *args],
        input=stdin, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=60,
    )


def planned(n: int, seed: int) -> list[str]:
    """The plan the CLI makes on a fresh database: the same inputs and seed give the same questions."""
    s = signals(analyze_jd(JD, propose=False), claims_of(RESUME))
    return [p.question_id for p in plan_session(BANK, n, s, seed, has_resume=True)]


def test_a_scripted_session_of_3_questions_and_2_follow_ups_writes_a_transcript(tmp_path: Path) -> None:
    ids = planned(3, seed=4)
    blocks = [x for i in ids for x in (good_answer(BANK.by_id[i], "en"), FOLLOW_UP_ANSWER["en"],
                                       FOLLOW_UP_ANSWER["en"])]
    (tmp_path / "answers.txt").write_text("\n---\n".join(blocks) + "\n", encoding="utf-8")
    md_path = tmp_path / "out" / "mock.md"
    out = run(tmp_path, "", "-n", "3", "--follow-ups", "2", "--lang", "en", "--seed", "4", "--offline",
              "--answers", str(tmp_path / "answers.txt"), "--transcript", str(md_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Follow-up 1:") == 3 and out.stdout.count("Follow-up 2:") == 3
    scores = [int(m) for m in re.findall(r"^Score: (\d+)/100", out.stdout, re.MULTILINE)]
    assert len(scores) == 3 and min(scores) >= 70, out.stdout
    assert out.stdout.count("Reference answer:") == 3 and "Why this question:" in out.stdout
    # the reference answer of a thread appears only after its last follow-up was answered
    for i in ids:
        essence = BANK.by_id[i].answer.en.essence
        assert out.stdout.index(essence) > out.stdout.index(BANK.by_id[i].question.en.split("?")[0])
    first_essence = out.stdout.index(BANK.by_id[ids[0]].answer.en.essence)
    assert out.stdout.index("Follow-up 2:") < first_essence
    assert out.stdout.strip().endswith(str(md_path))
    md = md_path.read_text(encoding="utf-8")
    assert md.count("### Follow-up 1 (") == 3 and md.count("### Follow-up 2 (") == 3
    assert md.count("### Thread grade") == 3 and "résumé says" in md.lower()
    conn = connect()
    rows = conn.execute("SELECT question_id, follow_ups_json FROM interview_turns ORDER BY position").fetchall()
    assert [r["question_id"] for r in rows] == ids and all(r["follow_ups_json"].count('"answer"') == 2 for r in rows)


def test_interactive_answers_on_stdin_and_eof_ends_early(tmp_path: Path) -> None:
    with LLMServer() as server:
        server.default = status(500)
        llm_env = {"KGP_LLM_MODEL": "test-model", "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-x"}
        out = run(tmp_path, "我会先看 NCCL 日志和 flight recorder。\n\n", "-n", "3", "--seed", "4", extra_env=llm_env)
    assert out.returncode == 0, out.stderr
    assert "输入结束，面试提前结束。" in out.stdout and out.stdout.count("本题得分：") == 1
    assert "[LLM unavailable (HTTP 500): offline result shown" in out.stdout
    path = Path(out.stdout.strip().splitlines()[-1].split("记录：")[1])
    assert path.parent == Path(os.environ["KGP_DATA_DIR"]) / "transcripts"
    headings = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("## ")]
    assert len(headings) == 2 and headings[1] == "## 未作答的题目"  # the answered thread, then the rest


def test_an_unreadable_answers_file_is_one_clear_message(tmp_path: Path) -> None:
    out = run(tmp_path, "", "-n", "1", "--offline", "--answers", str(tmp_path / "missing.txt"))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "missing.txt" in out.stderr and "No such file" in out.stderr
