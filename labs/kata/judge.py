"""Judge a kata: run the user's file under torchrun, in a limited subprocess, and read each case's verdict.

The user's code is untrusted input. It is copied into a fresh temporary folder and run from there by
torchrun's agent (`python -m torch.distributed.run ... -m labs.kata.harness`), never through a shell, with
a scrubbed environment (no API keys, HOME and TMPDIR in the temporary folder), resource limits set in the
child before it starts (CPU seconds, address space, file size, no core dumps) and a wall-clock limit after
which the whole process group is killed. A hang, a crash, an import error or a wrong result all come back
as a Verdict: one line per case, never a traceback of ours.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from labs.core.config import Problem
from labs.core.launch import RESTART_WORKAROUND_ENV, printable
from labs.kata.catalog import Kata, all_katas

ROOT = Path(__file__).resolve().parents[2]
MAX_SOLUTION_BYTES = 256 * 1024
# How long a rank waits for a message or for its peers to finish a case: a kata's case runs in well under a
# second, and a crash on one rank leaves the others waiting this long in a receive before the case is reported.
CASE_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Limits:
    """What one check may use. Each worker process gets the CPU, memory and file limits on its own."""
    wall_s: float = 90.0
    cpu_s: int = 120
    memory_bytes: int = 4 * 2**30
    file_bytes: int = 256 * 2**20


@dataclass
class CaseResult:
    name: str
    what: str
    status: str
    """passed | failed | crashed (the user's code raised or the process died) | timeout | not_run"""
    detail: str = ""
    seconds: float | None = None
    hint_en: str = ""
    hint_zh: str = ""

    def hint(self, lang: str) -> str:
        return self.hint_zh if lang == "zh" else self.hint_en


@dataclass
class Verdict:
    kata: str
    passed: bool
    cases: list[CaseResult] = field(default_factory=list)
    problem: Problem | None = None
    """Why no case could be judged (bad file, import error), or what ended the run early (timeout, crash)."""
    seconds: float = 0.0
    code_sha256: str = ""
    command: str = ""

    @property
    def passed_cases(self) -> int:
        return sum(c.status == "passed" for c in self.cases)


def solution_problem(path: Path) -> Problem | None:
    """The file is one a judge can run: present, a .py, small, UTF-8. Checked before anything starts."""
    if not path.is_file():
        return Problem(f"{path}: no such file", f"{path}：文件不存在")
    if path.suffix != ".py":
        return Problem(f"{path}: a kata solution is a .py file", f"{path}：解答必须是 .py 文件")
    if path.stat().st_size > MAX_SOLUTION_BYTES:
        return Problem(f"{path}: {path.stat().st_size} bytes, more than the {MAX_SOLUTION_BYTES} a solution may have",
                       f"{path}：{path.stat().st_size} 字节，超过解答上限 {MAX_SOLUTION_BYTES} 字节")
    try:
        path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return Problem(f"{path}: not UTF-8 text (byte {exc.start})", f"{path}：不是 UTF-8 文本（第 {exc.start} 字节）")
    return None


def sandbox_env(tmp: Path) -> dict[str, str]:
    """Only what Python and torchrun need: none of the user's variables (API keys) reach the untrusted code."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "TMPDIR": str(tmp),
            "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT), "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "OMP_NUM_THREADS": "1", "LOGLEVEL": "WARNING", **RESTART_WORKAROUND_ENV}


def limiter(limits: Limits) -> Callable[[], None]:
    """Runs in the child between fork and exec: the limits hold for torchrun's agent and every worker."""
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def command(kata: Kata, solutions: list[Path], out: Path, seed: int, case_timeout_s: float) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", "--nnodes=1", f"--nproc-per-node={kata.nproc}",
            "--max-restarts=0", "--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:0", "--monitor-interval=0.2",
            f"--log-dir={out / 'logs'}", "--redirects=3",
            "-m", "labs.kata.harness", kata.name, str(out / "events"), *map(str, solutions), "--seed", str(seed),
            "--case-timeout-s", f"{case_timeout_s:g}"]


def read_events(folder: Path) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for f in sorted(folder.glob("rank*.jsonl")):
        lines = f.read_text(encoding="utf-8").splitlines()
        out[int(f.stem[4:])] = [json.loads(x) for x in lines if x.endswith("}")]
    return out


def dead_ranks(agent_log: Path) -> dict[int, int]:
    """Rank -> exit code of the workers torchrun's agent reports as failed (its 'rank : R' / 'exitcode : C')."""
    text = agent_log.read_text(errors="replace") if agent_log.exists() else ""
    found = {int(r): int(c) for r, c in re.findall(r"rank\s*:\s*(\d+)[^\n]*\n\s*exitcode\s*:\s*(-?\d+)", text)}
    # The agent stops the surviving peers with SIGTERM once one worker fails: those are not the cause.
    causes = {r: c for r, c in found.items() if c != -15}
    return causes or found


def exit_text(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exit code {code}"


def merge(plan: list[dict], events: dict[int, list[dict]], nproc: int, ended_by: str,
          dead: dict[int, int] | None = None) -> list[CaseResult]:
    """One result per case: passed only when every rank passed it; else the first rank's reason."""
    results, dead = [], dead or {}
    for c in plan:
        res = CaseResult(c["name"], c["what"], "not_run", hint_en=c["hint_en"], hint_zh=c["hint_zh"])
        ends = {r: e for r, evs in events.items() for e in evs if e["ev"] == "end" and e["case"] == c["name"]}
        started = any(e["ev"] == "start" and e["case"] == c["name"] for evs in events.values() for e in evs)
        if len(ends) == nproc and all(e["passed"] for e in ends.values()):
            res.status, res.seconds = "passed", max(e["seconds"] for e in ends.values())
        elif ends and any(not e["passed"] for e in ends.values()):
            r, e = next((r, e) for r, e in sorted(ends.items()) if not e["passed"])
            res.status = "crashed" if e["crashed"] else "failed"
            res.detail, res.seconds = f"rank {r}: {e['detail']}", e["seconds"]
        elif started and ended_by == "timeout":
            missing = sorted(set(range(nproc)) - set(ends))
            res.status = "timeout"
            res.detail = (f"rank {missing} never finished this case: a hang (a send with no matching recv, a "
                          f"collective only some ranks call) or an endless loop")
        elif started:
            res.status = "crashed"
            res.detail = "; ".join(f"rank {r} died in this case ({exit_text(code)})" for r, code in dead.items()) \
                or f"the job ended in this case ({ended_by})"
        results.append(res)
    return results


def check(name: str, solution: Path, seed: int = 0, limits: Limits | None = None,
          progress: Callable[[int, int, str], None] | None = None) -> Verdict:
    """Run `solution` against kata `name`'s cases; `progress(done, total, case)` is called while it runs."""
    return check_many(name, [solution], seed, limits, progress)[0]


def check_many(name: str, solutions: list[Path], seed: int = 0, limits: Limits | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> list[Verdict]:
    """Judge several files in one torchrun launch, one after the other (the tests' wrong solutions: a launch
    costs seconds of imports); each file gets the Verdict it would get alone, unless one kills the launch."""
    kata = all_katas()[name]
    limits = limits or Limits(wall_s=kata.timeout_s * len(solutions))
    verdicts = [Verdict(name, False, problem=solution_problem(p)) for p in solutions]
    runnable = [k for k, v in enumerate(verdicts) if v.problem is None]
    if not runnable:
        return verdicts
    tmp = Path(tempfile.mkdtemp(prefix="kgp-kata-"))
    try:
        codes = {k: solutions[k].read_bytes() for k in runnable}
        for j, k in enumerate(runnable):  # each file copied out of the user's folder, as solution<j>.py
            (tmp / f"solution{j}.py").write_bytes(codes[k])
        case_timeout_s = CASE_TIMEOUT_S
        cmd = command(kata, [tmp / f"solution{j}.py" for j in range(len(runnable))], tmp, seed, case_timeout_s)
        started = time.time()
        ended_by = launch(cmd, tmp, limits, progress)
        dead = dead_ranks(tmp / "agent.log")
        for j, k in enumerate(runnable):
            by_hand = command(kata, [solutions[k].resolve()], Path("runs") / f"kata-{name}", seed, case_timeout_s)
            verdicts[k] = conclude(Verdict(name, False, seconds=time.time() - started,
                                           code_sha256=hashlib.sha256(codes[k]).hexdigest(),
                                           command=printable(by_hand)),
                                   kata, read_events(tmp / "events" / str(j)), ended_by, limits, dead)
        return verdicts
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def launch(cmd: list[str], tmp: Path, limits: Limits, progress: Callable[[int, int, str], None] | None) -> str:
    """Run torchrun to its end; returns how it ended: 'ok', 'exit code N' or 'timeout'."""
    with open(tmp / "agent.log", "wb") as log:
        proc = subprocess.Popen(cmd, cwd=tmp, env=sandbox_env(tmp), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=limiter(limits))
    deadline = time.time() + limits.wall_s
    while proc.poll() is None:
        if progress:
            report_progress(tmp / "events" / "0" / "rank0.jsonl", progress)
        if time.time() > deadline:
            kill_tree(proc.pid)
            proc.wait()
            return "timeout"
        time.sleep(0.1)
    if progress:
        report_progress(tmp / "events" / "0" / "rank0.jsonl", progress)
    return "ok" if proc.returncode == 0 else f"exit code {proc.returncode}"


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc): torchrun starts its workers in sessions of their own, so killing
    the agent's process group would leave a looping worker running."""
    parent: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parent[int(stat.parent.name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue  # the process ended while we looked
    found, frontier = [], [pid]
    while frontier:
        kids = [p for p, pp in parent.items() if pp in frontier]
        found += kids
        frontier = kids
    return found


def kill_tree(pid: int) -> None:
    for p in [pid, *descendants(pid)]:
        try:
            os.kill(p, 9)
        except ProcessLookupError:
            pass


def report_progress(rank0: Path, progress: Callable[[int, int, str], None]) -> None:
    if not rank0.exists():
        return
    events = [json.loads(x) for x in rank0.read_text(encoding="utf-8").splitlines() if x.endswith("}")]
    plan = next((e["cases"] for e in events if e["ev"] == "plan"), [])
    done = sum(e["ev"] == "end" for e in events)
    current = next((e["case"] for e in reversed(events) if e["ev"] == "start"), "")
    progress(done, len(plan), current)


def conclude(verdict: Verdict, kata: Kata, events: dict[int, list[dict]], ended_by: str, limits: Limits,
             dead: dict[int, int]) -> Verdict:
    imported = next((e for evs in events.values() for e in evs if e["ev"] == "import_error"), None)
    plan = next((e["cases"] for evs in events.values() for e in evs if e["ev"] == "plan"), None)
    if imported:
        verdict.problem = Problem(f"your file did not import: {imported['detail']}",
                                  f"你的文件无法导入：{imported['detail']}")
    elif plan is None:
        verdict.problem = Problem(f"the judge did not start ({ended_by}); see the command below",
                                  f"评测没有启动（{ended_by}）；可用下面的命令复现")
        return verdict
    verdict.cases = merge(plan or [], events, kata.nproc, ended_by, dead)
    if not imported and ended_by == "timeout":
        verdict.problem = Problem(f"stopped after {limits.wall_s:g} s (wall-clock limit)",
                                  f"超过 {limits.wall_s:g} 秒的时间上限，已终止")
    verdict.passed = not imported and bool(verdict.cases) and all(c.status == "passed" for c in verdict.cases)
    return verdict
