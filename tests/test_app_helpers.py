"""The small modules the app reads through: coach.readiness, labs.core.history, labs.core.background (no lab is run)."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from coach import readiness, review
from coach.db import connect
from labs.core import background, history
from labs.fault_resume import Config
from question_bank.loader import load_bank

NOW = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_readiness_counts_good_and_easy_per_topic(tmp_path: Path) -> None:
    bank = load_bank()
    ids = [q.id for q in bank.topics["checkpoint"].questions]
    conn = connect(tmp_path)
    for qid, rating in zip(ids[:3], (1, 3, 4), strict=True):
        review.rate(conn, qid, rating, NOW)
    rows = {r.topic: r for r in readiness.by_topic(conn, bank)}
    assert list(rows) == list(bank.topics)
    ckpt = rows["checkpoint"]
    assert (ckpt.total, ckpt.reviewed, ckpt.good) == (len(ids), 3, 2)
    assert ckpt.percent == round(100 * 2 / len(ids), 1)
    assert rows["memory"].percent == 0.0
    assert [r[0] for r in readiness.recent_reviews(conn, 2)] == [ids[2], ids[1]]


def test_end_of_day_is_after_now_and_within_a_day() -> None:
    end = readiness.end_of_day(NOW)
    assert end.tzinfo is not None and 0 < (end - NOW).total_seconds() <= 24 * 3600


def _run(root: Path, lab: str, stamp: str, report: dict | str | None) -> Path:
    path = root / lab / stamp
    (path / "faulted" / "events").mkdir(parents=True)
    if isinstance(report, dict):
        (path / "report.json").write_text(json.dumps(report))
    elif isinstance(report, str):
        (path / "report.json").write_text(report)  # torn
    return path


def test_history_lists_runs_newest_first_and_reads_reports(tmp_path: Path) -> None:
    old = _run(tmp_path, "fault_resume", "20250101-000000", {"lab": "fault_resume", "passed": True, "restarts": 1})
    torn = _run(tmp_path, "hang", "20250102-000000", '{"passed": tr')
    (tmp_path / "not_a_lab" / "x").mkdir(parents=True)
    os.utime(old, (1, 1))  # older by its folder's time, whatever the clock's resolution
    runs = history.list_runs(tmp_path)
    assert [r.path for r in runs] == [torn, old]
    assert runs[0].report is None and runs[0].passed is None and runs[1].passed is True
    assert history.figures(runs[1].report) == {"restarts": 1}
    assert [r.lab for r in history.list_runs(tmp_path, lab="hang")] == ["hang"]


def test_progress_is_rank_zero_s_last_step_per_job(tmp_path: Path) -> None:
    run = _run(tmp_path, "fault_resume", "s", None)
    lines = [{"ev": "start", "rank": 0}, {"ev": "step", "step": 1, "rank": 0}, {"ev": "step", "step": 2, "rank": 0}]
    (run / "faulted" / "events" / "rank-0.jsonl").write_text("\n".join(map(json.dumps, lines)) + '\n{"ev": "st')
    (run / "reference" / "events").mkdir(parents=True)
    assert history.progress(run) == {"faulted": 2, "reference": 0}
    assert history.tail(run / "missing.log") == ""


def test_available_labs_exist_as_modules() -> None:
    labs = history.available()
    assert "fault_resume" in labs
    assert all((Path(history.__file__).parents[1] / f"{name}.py").exists() for name in labs)


def test_background_command_is_an_argument_list() -> None:
    from labs.core.config import to_argv

    cfg = Config(steps=4, fault="preempt", out="/tmp/x; rm -rf /")
    argv = background.command("fault_resume", to_argv(cfg))
    assert argv[:4] == [sys.executable, "-m", "labs.run", "fault_resume"]
    assert argv[argv.index("--out") + 1] == "/tmp/x; rm -rf /"  # one argument, never parsed by a shell
