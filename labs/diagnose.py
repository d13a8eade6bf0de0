"""diagnose: read a failure log, say what kind of failure it is, show the evidence, say what to do next.

Run it (no torchrun, no GPU: it only reads text):
    python -m labs.run diagnose runs/fault_resume/<stamp>/faulted/logs     # a torchrun --log-dir: every *.log
    python -m labs.run diagnose tests/data/logs/samples/nccl_timeout/stderr.log
    python -m labs.run diagnose --log dmesg.txt --json                     # the report as JSON on stdout

How it works: every line is tried against RULES (a table of regex -> category, weight) in order; the first
rule that matches claims the line. The heaviest evidence wins: a root cause (an exception, an OOM, a
SIGKILL, an Xid) outweighs the symptoms it causes on the other ranks (connection reset, timeout, abort).
Lines inside torchrun's "Root Cause (first observed failure)" section get a bonus: the agent saw them
first. `restarts_exhausted` is an outcome, not a cause: when torchrun gave up, the report says so and names
the cause underneath. A folder is scanned file by file (agent.log, attempt_K/RANK/stderr.log), and the
report names the attempt and rank file the root cause came from.

The next steps follow one drill for every category: collect (what to save before the job is gone),
classify (what the evidence means), isolate (find the rank, node or line), recover (how to resume).
Exit code: 0 classified, 1 unclassified (with a hint), 2 no such log.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.markup import escape
from rich.table import Table

from labs.core import report

DESCRIPTION = "Classify a failure log (OOM, timeout, connection reset, ECC, CUDA error...) and say what to do"


@dataclass
class Config:
    POSITIONAL: ClassVar[str] = "log"  # `python -m labs.run diagnose LOGFILE` (see labs/core/config.py)

    log: str = ""
    """The log to read: a file (worker stderr.log, torchrun agent.log, dmesg) or a folder (every *.log in it)."""
    out: str = ""
    """Run folder for report.json; default runs/diagnose/<timestamp>/."""
    json: bool = False
    """Print the report as JSON on stdout instead of the tables."""
    evidence: int = 8
    """How many evidence lines to show."""


# ---- the knowledge: categories, rules, next steps (plain data) -----------------------------------------
TITLES = {
    "oom": "Out of memory (CUDA or host)",
    "timeout": "Collective timeout / NCCL watchdog",
    "peer_lost": "Connection reset by peer / peer crashed",
    "hardware": "ECC / Xid / hardware fault",
    "cuda_error": "CUDA error (illegal memory access, device-side assert...)",
    "python_exception": "Python exception",
    "signal": "Killed by signal",
    "restarts_exhausted": "torchrun restarts exhausted",
}
OUTCOME = "restarts_exhausted"
ROOT_CAUSE_BONUS = 3

XID_HW = "48|63|64|74|79|92|94|95|119|120"  # NVIDIA's Xid catalog: ECC, row remap, NVLink, off the bus, GSP
XID_MEANING = {48: "double-bit ECC error", 63: "row remap / page retirement recorded", 64: "row remap failed",
               74: "NVLink error", 79: "GPU has fallen off the bus", 92: "high single-bit ECC rate",
               94: "contained ECC error", 95: "uncontained ECC error", 119: "GSP RPC timeout", 120: "GSP error",
               13: "graphics engine exception", 31: "GPU memory page fault", 43: "GPU stopped processing"}

EXCEPTION = r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Fault|Interrupt|Exit)(?::\s|$)"  # `pkg.XError: msg`

# (category, weight, kind, regex). Order matters: the first match claims a line, so specific rules come
# before generic ones (a RuntimeError about a reset connection is peer_lost, not just "an exception").
RULES: list[tuple[str, int, str, str]] = [
    ("ignore", 0, "torchrun stopping healthy workers", r"Sending process \d+ closing signal"),
    ("hardware", 10, "Xid hardware error", rf"NVRM: Xid \(PCI:[^)]*\): ({XID_HW})\b"),
    ("hardware", 10, "uncorrectable ECC error", r"uncorrectable ECC|ECC error encountered|double bit error"),
    ("hardware", 10, "GPU fell off the bus", r"fallen off the bus"),
    ("hardware", 9, "host machine check", r"Machine check|mce: \[Hardware Error\]"),
    ("cuda_error", 7, "Xid from an application fault", r"NVRM: Xid \(PCI:[^)]*\): (13|31|43)\b"),
    ("oom", 8, "CUDA out of memory", r"CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED"),
    ("oom", 8, "host OOM: the kernel's OOM killer", r"(?i)out of memory: kill|invoked oom-killer|oom-kill:|OOMKilled"),
    ("oom", 8, "host out of memory", r"^\s*MemoryError\b|Cannot allocate memory|std::bad_alloc"),
    ("cuda_error", 7, "illegal memory access", r"illegal memory access|cudaErrorIllegalAddress"),
    ("cuda_error", 7, "device-side assert", r"device-side assert triggered|Assertion `.*` failed"),
    ("cuda_error", 7, "CUDA error", r"CUDA error: |CUBLAS_STATUS_|CUDNN_STATUS_|unhandled cuda error"),
    ("timeout", 4, "NCCL watchdog: a collective timed out", r"Watchdog caught collective operation timeout"),
    ("timeout", 4, "NCCL watchdog stuck / heartbeat", r"watchdog.*(got stuck|terminated with exception)|"
                                                       r"Heartbeat monitor timed out"),
    ("timeout", 4, "gloo / store timeout", r"Timed out waiting \d+ ?ms|[Tt]imed out after \d+|Socket Timeout|"
                                           r"DistStoreError.*[Tt]ime"),
    ("timeout", 1, "a stuck worker ignored SIGTERM", r"Unable to shutdown process \d+ via 15"),
    ("peer_lost", 3, "connection reset / closed by a peer", r"Connection (reset|closed) by peer|Broken pipe|"
                                                           r"ncclRemoteError|remote process exited"),
    ("restarts_exhausted", 1, "torchrun gave up (ChildFailedError)", r"ChildFailedError"),
    ("signal", 5, "SIGTERM to the job (preemption, time limit)", r"Received (15|SIGTERM) death signal|"
                                                                  r"got signal: (15|SIGTERM)"),
    ("signal", 5, "SIGKILL (-9): OOM killer, scheduler or admin", r"exitcode\s*:\s*-9\b|Killed\s*$"),
    ("signal", 2, "SIGABRT (-6): a C++ abort, often after another failure", r"exitcode\s*:\s*-6\b|"
                                                                           r"Fatal Python error: Aborted|"
                                                                           r"terminate called"),
    ("signal", 2, "SIGTERM (-15): stopped by the agent or the scheduler", r"exitcode\s*:\s*-15\b"),
    ("signal", 3, "killed by a signal", r"exitcode\s*:\s*-\d+"),
    ("python_exception", 1, "a worker exited with code 1 (uncaught exception)", r"failed \(exitcode: 1\)"),
    ("python_exception", 6, "Python exception", EXCEPTION),
]
COMPILED = [(cat, w, kind, re.compile(rx)) for cat, w, kind, rx in RULES]

NEXT_STEPS: dict[str, dict[str, str]] = {
    "oom": {
        "collect": "the allocator's figures in the message (allocated vs reserved vs capacity); a memory snapshot: "
                   "torch.cuda.memory._record_memory_history(), then _dump_snapshot() (pytorch.org/memory_viz); "
                   "host OOM: dmesg -T | grep -i -E 'out of memory|oom-kill' on that node",
        "classify": "reserved >> allocated: fragmentation (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True); "
                    "allocated near capacity: it does not fit; host OOM: dataloader workers, pinned memory, CPU "
                    "checkpoint copies",
        "isolate": "same micro-batch on one rank; halve micro-batch or sequence length to find the limit; compare "
                   "with theory.zero_bytes_per_rank + activation_bytes_per_layer",
        "recover": "activation checkpointing, smaller micro-batch + more accumulation, ZeRO/FSDP sharding; an OOM is "
                   "deterministic: restarting unchanged fails again",
    },
    "timeout": {
        "collect": "every rank's stack while it hangs: py-spy dump --pid PID on each rank; NCCL flight recorder: "
                   "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1, read the dumps with "
                   "torchfrtrace; NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET) for transport errors",
        "classify": "compare each rank's SeqNum / last completed work: the rank that is behind (or never entered "
                    "the op) is the stalled one; all ranks in the same op but slow points at the network",
        "isolate": "the stalled rank's py-spy stack: data loader, I/O, a rank-dependent branch that skips a "
                   "collective, or a dead GPU (dmesg Xid on its node); nccl-tests all_reduce_perf on the suspects",
        "recover": "fix the mismatch or drain the node; keep the process-group timeout minutes, not 30; restart "
                   "from the last checkpoint",
    },
    "peer_lost": {
        "collect": "this rank is a bystander: its peer died first; collect every rank's log and the torchrun agent's "
                   "Root Cause section, and dmesg of the peer's node",
        "classify": "the peer's own log shows the real cause (exception, OOM, SIGKILL, Xid): run diagnose on the "
                    "whole log folder",
        "isolate": "the peer's node: dmesg for the OOM killer and Xid; network: ibstat, NCCL_DEBUG=INFO",
        "recover": "torchrun restarts from the last checkpoint; exclude the node if it repeats",
    },
    "hardware": {
        "collect": "dmesg -T | grep -i xid; nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT; map the PCI bus id "
                   "to the GPU index (nvidia-smi --query-gpu=index,pci.bus_id --format=csv)",
        "classify": "Xid 48/94/95: uncorrectable ECC; 63/64: row remapping (needs a GPU reset); 74: NVLink; 79: fell "
                    "off the bus (power, thermal, PCIe); 13/31/43 are usually the application",
        "isolate": "drain the node (scontrol update nodename=N state=drain, or kubectl cordon), then dcgmi diag -r 3 "
                   "on it; nvidia-smi -r applies pending row remaps",
        "recover": "restart without that node (spare node or elastic shrink) from the last checkpoint; RMA the GPU if "
                   "dcgmi diag fails",
    },
    "cuda_error": {
        "collect": "rerun with CUDA_LAUNCH_BLOCKING=1 so the trace points at the failing kernel; compute-sanitizer "
                   "for illegal accesses; TORCH_USE_CUDA_DSA builds for device-side assertions",
        "classify": "device-side assert: usually an index out of range (label >= vocab, bad embedding id); illegal "
                    "memory access: a custom kernel or a bad view, or hardware if dmesg shows Xid 48/79/94",
        "isolate": "the same batch on CPU (a plain IndexError) or on one GPU; bisect the step and the rank",
        "recover": "the CUDA context is unusable after this: the process must restart; fix the data or kernel and "
                   "resume from the checkpoint",
    },
    "python_exception": {
        "collect": "the failing rank's full traceback (its stderr.log; with @record torchrun copies it into the "
                   "agent's Root Cause section)",
        "classify": "the exception type and the innermost frame (above): our code, a library, or the data",
        "isolate": "reproduce on one process at that step (the checkpoint holds the sampler position); "
                   "python -X faulthandler; pdb post-mortem",
        "recover": "fix it and resume from the last checkpoint; a deterministic exception repeats on every restart",
    },
    "signal": {
        "collect": "the exit code (-9 SIGKILL, -15 SIGTERM, -6 SIGABRT); dmesg -T | grep -i -E 'killed process|oom' "
                   "on that node; the scheduler's record (sacct -j JOB, kubectl describe pod: OOMKilled, Evicted)",
        "classify": "SIGKILL without a traceback: OOM killer, cgroup limit or an admin; SIGTERM: preemption or a "
                    "time limit (grace period, then SIGKILL); SIGABRT: a C++ abort after another rank failed",
        "isolate": "host memory (RSS) per process and dataloader workers; the scheduler's events at that time",
        "recover": "preemption: catch SIGTERM, save an emergency checkpoint (labs/core/train.py does), resubmit; "
                   "otherwise resume from the last checkpoint",
    },
    "restarts_exhausted": {
        "collect": "the agent's ChildFailedError: 'Root Cause (first observed failure)' names rank, exit code, "
                   "traceback; keep every attempt's logs",
        "classify": "the same error in every attempt: deterministic (code, data, or a bad node that keeps the "
                    "rank), restarts cannot help; different errors: flaky infrastructure",
        "isolate": "the first attempt's root cause (the cause below); is it always the same node or rank?",
        "recover": "fix the cause or exclude the node, relaunch from the last checkpoint; raise --max-restarts only "
                   "for transient faults",
    },
}
HINT = ("no known failure pattern. Is this the failing rank's stderr.log (torchrun --log-dir ... --redirects 3)? "
        "Pass the whole log folder, add the node's dmesg, rerun with NCCL_DEBUG=INFO TORCH_SHOW_CPP_STACKTRACES=1, "
        "or add a rule to RULES in labs/diagnose.py")


# ---- reading logs ---------------------------------------------------------------------------------------
PREFIX = re.compile(r"^\[(?:rank|default)(\d+)\]:\s?")      # torchrun --tee/--redirects and PyTorch's [rankN]:
GLOG = re.compile(r"^\[?[IWEF]\d{4} [\d:.]+ +(?:\d+ )?\S+:\d+\] ")  # c10/glog prefix: E1202 13:48:37.897 PID file:line]
PATH_RANK = re.compile(r"attempt_(\d+)/(\d+)/std(?:err|out)\.log$")
LINE_RANK = re.compile(r"\[Rank (\d+)\]|local_rank:? (\d+)|^\s*rank\s*:\s*(\d+)")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def log_files(path: Path) -> list[Path]:
    """The file itself, or every *.log under the folder: agent logs first, then by attempt and rank."""
    if path.is_file():
        return [path]

    def order(f: Path) -> tuple[int, int, str]:
        m = PATH_RANK.search(f.as_posix())
        return (int(m.group(1)), int(m.group(2)), str(f)) if m else (-1, -1, str(f))

    return sorted(path.rglob("*.log"), key=order)


def scan(file: Path, root: Path) -> list[dict[str, Any]]:
    """Every line of `file` that a rule claims, with where it came from (file, line number, attempt, rank)."""
    m = PATH_RANK.search(file.as_posix())
    attempt, file_rank = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    lines = file.read_text(errors="replace").splitlines()
    hits: list[dict[str, Any]] = []
    in_root_cause, block_rank = False, None  # inside torchrun's ChildFailedError report: whose failure this is
    for no, raw in enumerate(lines, 1):
        pm = PREFIX.match(raw)
        text = raw[pm.end():] if pm else raw
        if "Root Cause (first observed failure)" in text:
            in_root_cause = True
        elif text.startswith("====="):  # the end of the report (or its banner)
            in_root_cause, block_rank = False, None
        elif text.startswith("-----"):  # between the failures and the root cause
            block_rank = None
        rm = LINE_RANK.search(text)
        line_rank = next((int(g) for g in rm.groups() if g is not None), None) if rm else None
        if re.match(r"^\s*rank\s*:", text):
            block_rank = line_rank
        rule = next((r for r in COMPILED if r[3].search(text)), None)
        if rule is None or rule[0] == "ignore":
            continue
        cat, weight, kind, _ = rule
        ranks = (int(pm.group(1)) if pm else None, line_rank, block_rank, file_rank)
        hits.append({"file": file.relative_to(root).as_posix(), "line": no, "text": GLOG.sub("", text).strip()[:300],
                     "category": cat, "kind": kind, "weight": weight + (ROOT_CAUSE_BONUS if in_root_cause else 0),
                     "root_cause": in_root_cause, "attempt": attempt,
                     "rank": next((r for r in ranks if r is not None), None),
                     "frame": innermost_frame(lines, no - 1) if re.match(EXCEPTION, text) else None})
    return hits


def innermost_frame(lines: list[str], at: int) -> str | None:
    """The last `File "...", line N, in f` above line `at`: where the exception was raised."""
    for raw in reversed(lines[max(0, at - 60):at]):
        m = FRAME.search(raw)
        if m:
            return f"{m.group(1)}:{m.group(2)} in {m.group(3)}"
    return None


# ---- classifying ----------------------------------------------------------------------------------------
def strength(hit: dict[str, Any]) -> tuple:
    """Sort key: heaviest first, then the earliest attempt, then file order."""
    return (-hit["weight"], hit["attempt"] or 0, hit["file"], hit["line"])


def classify(hits: list[dict[str, Any]], known_ranks: set[int]) -> dict[str, Any]:
    """The heaviest cause (earliest attempt on ties); the outcome `restarts_exhausted` on top if torchrun gave up."""
    causes = [h for h in hits if h["category"] != OUTCOME]
    best = min(causes, key=strength, default=None)
    gave_up = any(h["category"] == OUTCOME for h in hits)
    category = OUTCOME if gave_up else best["category"] if best else "unclassified"
    out: dict[str, Any] = {"category": category, "title": TITLES.get(category, "unclassified"),
                           "cause": None, "origin": None}
    if best:
        out["cause"] = {"category": best["category"], "title": TITLES[best["category"]], "kind": best["kind"],
                        "line": best["text"]}
        out["origin"] = {k: best[k] for k in ("file", "line", "attempt", "rank")}
        if best["frame"]:  # an exception line: its type and where it was raised
            out["cause"]["exception"] = best["text"].split(":", 1)[0].strip()
            out["cause"]["frame"] = best["frame"]
            if best["category"] == "python_exception":
                out["cause"]["kind"] = f"uncaught {out['cause']['exception']}"
    if best and best["category"] == "hardware":
        codes = sorted({int(m.group(1)) for h in hits if (m := re.search(r"Xid \([^)]*\): (\d+)", h["text"]))})
        out["cause"]["xid"] = {c: XID_MEANING.get(c, "see NVIDIA's Xid catalog") for c in codes}
    if best and best["category"] == "timeout":
        out["cause"]["ranks"] = timeout_ranks(hits, known_ranks)
    return out


def timeout_ranks(hits: list[dict[str, Any]], known_ranks: set[int]) -> dict[str, list[int]]:
    """Ranks that reported a timeout, and the known ranks (from the file names, or below the highest reporting
    rank) that did not: the suspects, stuck before the collective everyone else waits in."""
    reporting = sorted({h["rank"] for h in hits if h["category"] == "timeout" and h["rank"] is not None})
    known = known_ranks | set(range(max(reporting, default=-1) + 1))
    return {"reporting": reporting, "silent": sorted(known - set(reporting))}


def rank_log(files: list[Path], root: Path, rank: int | None) -> dict[str, Any] | None:
    """The failing rank's own stderr.log in the earliest attempt (empty after a SIGKILL: no traceback)."""
    for f in files:
        m = PATH_RANK.search(f.as_posix())
        if m and int(m.group(2)) == rank and f.name == "stderr.log":
            return {"file": f.relative_to(root).as_posix(), "attempt": int(m.group(1)), "bytes": f.stat().st_size}
    return None


def diagnose(path: Path) -> dict[str, Any]:
    files = log_files(path)
    root = path if path.is_dir() else path.parent
    hits = [h for f in files for h in scan(f, root)]
    verdict = classify(hits, {int(m.group(2)) for f in files if (m := PATH_RANK.search(f.as_posix()))})
    if verdict["origin"]:
        verdict["origin"]["rank_log"] = rank_log(files, root, verdict["origin"]["rank"])
    steps = NEXT_STEPS.get(verdict["category"], {})
    cause = (verdict["cause"] or {}).get("category")
    underneath = NEXT_STEPS.get(cause, {}) if cause and cause != verdict["category"] else {}
    shown = sorted(hits, key=strength)
    per_file = {}
    for h in shown:
        per_file.setdefault(h["file"], h)
    return {
        "lab": "diagnose",
        "passed": verdict["category"] != "unclassified",
        "checks": {"log_found": bool(files), "classified": verdict["category"] != "unclassified"},
        "log": str(path),
        "files_scanned": [f.relative_to(root).as_posix() for f in files],
        **verdict,
        "next_steps": steps,
        "next_steps_for_cause": underneath,
        "hint": "" if hits else HINT,
        "files": [{"file": f, "category": h["category"], "kind": h["kind"], "attempt": h["attempt"],
                   "rank": h["rank"], "line": h["line"]} for f, h in per_file.items()],
        "evidence": shown[:200],
    }


# ---- the lab (python -m labs.run diagnose LOG) ----------------------------------------------------------
def main(cfg: Config) -> int:
    path = Path(cfg.log)
    if not cfg.log or not path.exists():
        report.console.print(f"[red]error:[/] no such log: {cfg.log!r} (give a file or a torchrun --log-dir folder)")
        return 2
    if path.is_dir() and not log_files(path):
        report.console.print(f"[red]error:[/] no *.log files under {path}")
        return 2
    result = diagnose(path)
    run_dir = report.new_run_dir("diagnose", cfg.out)
    result["config"] = dataclasses.asdict(cfg)
    result["plot"] = "evidence.png"
    report.write_json(run_dir / "report.json", result)
    plot_evidence(run_dir / "evidence.png", result)
    if cfg.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        show(result, cfg.evidence, run_dir)
    return 0 if result["passed"] else 1


def plot_evidence(path: Path, result: dict[str, Any]) -> None:
    """Evidence weight per category, the verdict in red: why this cause won over the symptoms around it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    weight: dict[str, float] = {}
    for hit in result["evidence"]:
        weight[hit["category"]] = weight.get(hit["category"], 0) + hit["weight"]
    names = sorted(weight, key=weight.get) or ["unclassified"]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(names) + 1.5))
    winner = (result["cause"] or {}).get("category", result["category"])
    ax.barh(names, [weight.get(n, 0) for n in names], color=["tab:red" if n == winner else "0.6" for n in names])
    ax.set_xlabel("summed evidence weight (matched log lines x rule weight)")
    ax.set_title(f"diagnose: {result['category']} ({Path(result['log']).name})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def show(result: dict[str, Any], n_evidence: int, run_dir: Path) -> None:
    cause, origin = result["cause"] or {}, result["origin"] or {}
    rows: list[tuple[str, Any]] = [("category", result["category"]), ("meaning", result["title"])]
    if cause:
        rows += [("likely cause", f"{cause['title']}: {cause['kind']}"), ("cause line", cause["line"][:160])]
        rows += [(k, cause[k]) for k in ("exception", "frame") if cause.get(k)]
        rows += [("xid", ", ".join(f"{c}: {m}" for c, m in cause["xid"].items()))] if cause.get("xid") else []
        if cause.get("ranks"):
            rows.append(("timeout ranks", f"reporting {cause['ranks']['reporting']}, silent (suspects) "
                                          f"{cause['ranks']['silent']}"))
        where = f"{origin['file']}:{origin['line']}"
        rows.append(("first error in", where + "".join(f", {k} {origin[k]}" for k in ("attempt", "rank")
                                                       if origin.get(k) is not None)))
        if origin.get("rank_log"):
            own = origin["rank_log"]
            rows.append((f"rank {origin['rank']}'s own log", own["file"] + (" (empty: no traceback)"
                                                                        if not own["bytes"] else "")))
    rows.append(("files scanned", len(result["files_scanned"])))
    report.console.print(report.summary_table("diagnose", [(k, escape(str(v))) for k, v in rows]))
    if result["evidence"]:
        table = Table(title="evidence (heaviest first)")
        for col in ("file:line", "rank", "category", "weight", "text"):
            table.add_column(col)
        for h in result["evidence"][:n_evidence]:
            rank = "-" if h["rank"] is None else str(h["rank"])
            where = "/".join(h["file"].split("/")[-3:])  # attempt_K/RANK/stderr.log: the run id adds nothing
            table.add_row(escape(f"{where}:{h['line']}"), rank, h["category"], str(h["weight"]),
                          escape(h["text"][:110]))
        report.console.print(table)
    for title, steps in (("next steps", result["next_steps"]),
                         ("and for the cause underneath", result["next_steps_for_cause"])):
        if steps:
            table = Table(title=title, show_header=False)
            table.add_column("phase", style="bold")
            table.add_column("what to do")
            for phase in ("collect", "classify", "isolate", "recover"):
                table.add_row(phase, escape(steps[phase]))
            report.console.print(table)
    if result["hint"]:
        report.console.print(f"[yellow]unclassified:[/] {escape(result['hint'])}")
    report.console.print(f"report: {run_dir / 'report.json'}")


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run diagnose LOG")
