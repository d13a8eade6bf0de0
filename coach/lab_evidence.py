"""The user's own lab results as interview material: the latest `report.json` of a lab, its key figures, and
the follow-up question an interviewer would ask about them.

Labs write `runs/<lab>/<timestamp>/report.json` (`labs.core.report.new_run_dir`); the runs folder is a parameter
(default ./runs), as `labs.run --out` may put runs elsewhere. Only figures the report holds are quoted, rounded
for speech: "lost 7 steps", "recovered in 2.9 s". A lab without a template of its own gets a generic question
from its checks. Reading is tolerant: a half-written or foreign JSON file is skipped, not an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_RUNS = Path("runs")


@dataclass(frozen=True)
class LabReport:
    lab: str
    path: Path
    data: dict[str, Any]


def latest_report(lab: str, runs_dir: Path | str = DEFAULT_RUNS) -> LabReport | None:
    """The newest readable report.json of `lab` under `runs_dir/<lab>/` (newest by file time, then name)."""
    folder = Path(runs_dir) / lab
    if not folder.is_dir():
        return None
    files = sorted(folder.glob("**/report.json"), key=lambda p: (p.stat().st_mtime, str(p)), reverse=True)
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a run still writing, or a file that is not ours
        if isinstance(data, dict) and data.get("lab", lab) == lab:
            return LabReport(lab, path, data)
    return None


def _num(value: Any, digits: int = 1) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return str(value) if isinstance(value, int) else f"{value:.{digits}f}"


def _blocking_ms(d: dict[str, Any], mode: str) -> str | None:
    """Mean time a checkpoint save blocked training in `mode` (sync | async), in ms, from the report."""
    fig = (d.get("checkpoint") or {}).get(mode)
    seconds = fig.get("blocking_s_mean") if isinstance(fig, dict) else None
    return _num(seconds * 1000) if _num(seconds) is not None else None


def facts(report: LabReport) -> list[str]:
    """The report's key figures as short English lines (sources for the LLM, and for the number check)."""
    d = report.data
    out = [f"lab {report.lab}: passed={d.get('passed')}"]
    failed = [k for k, v in (d.get("checks") or {}).items() if v is False]
    if failed:
        out.append("failed checks: " + ", ".join(failed))
    cfg = d.get("config") or {}
    for key in ("fault", "ckpt_every", "ckpt_mode", "nproc", "steps"):
        if key in cfg:
            out.append(f"config {key}: {cfg[key]}")
    for key in ("lost_steps", "lost_steps_bound", "restarts", "recovery_seconds", "cold_start_seconds"):
        if (v := _num(d.get(key))) is not None:
            out.append(f"{key}: {v}")
    for mode in ("sync", "async"):
        if (ms := _blocking_ms(d, mode)) is not None:
            out.append(f"{mode} checkpoint blocking per save: {ms} ms")
    return out


def lab_question(report: LabReport, lang: str) -> str:
    """What an interviewer asks about this run, quoting its own figures."""
    if report.lab == "fault_resume":
        if question := _fault_resume_question(report.data, lang):
            return question
    return _generic_question(report, lang)


def _fault_resume_question(d: dict[str, Any], lang: str) -> str | None:
    """About the lost steps when there were some; else about sync vs async blocking; None without figures."""
    cfg = d.get("config") or {}
    fault, every = cfg.get("fault", "?"), cfg.get("ckpt_every", "?")
    lost, recovery = d.get("lost_steps"), _num(d.get("recovery_seconds"))
    if isinstance(lost, int) and lost > 0:
        if lang == "zh":
            took = f"、恢复用了 {recovery} 秒" if recovery else ""
            return (f"你的 fault_resume 实验（故障 {fault}，每 {every} 步存一次检查点）丢了 {lost} 步{took}："
                    "怎样把丢失的步数降到 0？代价是什么？")
        took = f" and took {recovery} s to recover" if recovery else ""
        return (f"Your fault_resume run ({fault}, a checkpoint every {every} steps) lost {lost} steps{took}: "
                "how would you bring that to zero, and what would it cost?")
    sync_ms, async_ms = _blocking_ms(d, "sync"), _blocking_ms(d, "async")
    if lost != 0 or sync_ms is None or async_ms is None:
        return None
    if lang == "zh":
        return (f"你的 fault_resume 实验（故障 {fault}）没有丢步；同步检查点每次阻塞 {sync_ms} ms，异步 {async_ms} ms。"
                "放大到千卡、每卡几 GB 的检查点时，这两个数会怎么变？异步保存的风险在哪里？")
    return (f"Your fault_resume run ({fault}) lost no steps; a sync checkpoint blocked {sync_ms} ms per save, an "
            f"async one {async_ms} ms. How do those figures change at a thousand GPUs with GBs per rank, and what "
            "does async saving risk?")


def _generic_question(report: LabReport, lang: str) -> str:
    checks = report.data.get("checks") or {}
    failed = [k for k, v in checks.items() if v is False]
    if failed:
        names = ", ".join(failed)
        return (f"你的 {report.lab} 实验有检查没通过（{names}）：原因是什么，你会怎么修？" if lang == "zh"
                else f"Your {report.lab} run failed checks ({names}): why, and how would you fix it?")
    return (f"你跑过 {report.lab} 实验：结果里哪个数字和理论预期差得最多？为什么？" if lang == "zh"
            else f"You ran the {report.lab} lab: which figure differed most from theory, and why?")
