"""`python -m coach.interview` end to end as a subprocess, answers piped on stdin."""

from __future__ import annotations

import os
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
    return [p.question_id for p in plan_session(BANK, n, s, seed)]


def test_a_piped_session_runs_end_to_end(tmp_path: Path) -> None:
    ids = planned(3, seed=4)
    answers = [good_answer(BANK.by_id[i], "en") for i in ids]
    out = run(tmp_path, "\n\n".join(answers) + "\n", "-n", "3", "--lang", "en", "--seed", "4")
    assert out.returncode == 0, out.stderr
    for i in ids:
        assert BANK.by_id[i].question.en in out.stdout
    scores = [int(line.split()[1].split("/")[0]) for line in out.stdout.splitlines() if line.startswith("Score: ")]
    assert len(scores) == 3 and min(scores) >= 85
    assert "Follow-ups:" in out.stdout and "Reference answer:" in out.stdout
    path = Path(out.stdout.strip().splitlines()[-1].split("Transcript: ")[1])
    assert path.is_file() and path.parent == Path(os.environ["KGP_DATA_DIR"]) / "transcripts"
    conn = connect()
    assert [r["question_id"] for r in conn.execute("SELECT question_id FROM interview_turns ORDER BY position")] == ids
    assert conn.execute("SELECT finished FROM interview_sessions").fetchone()["finished"] is not None


def test_eof_ends_the_session_early_and_the_llm_failure_is_shown(tmp_path: Path) -> None:
    with LLMServer() as server:
        server.default = status(500)
        llm_env = {"KGP_LLM_MODEL": "test-model", "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-x"}
        out = run(tmp_path, "我会先看 NCCL 日志和 flight recorder。\n", "-n", "3", "--seed", "4", extra_env=llm_env)
    assert out.returncode == 0, out.stderr
    assert "[LLM unavailable (HTTP 500): offline result shown]" in out.stdout
    assert "输入结束，面试提前结束。" in out.stdout and out.stdout.count("得分：") == 1
    path = Path(out.stdout.strip().splitlines()[-1].split("记录：")[1])
    md = path.read_text(encoding="utf-8")
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert len(headings) == 2 and headings[1] == "## 未作答的题目"  # the answered question, then the rest
    assert len(server.requests) == 2  # one try and one retry (max_retries=1), then offline
