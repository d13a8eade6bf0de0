"""Checkpoint and recovery benchmark: ratios measured within one run (absolute times are context only).

    python -m labs.bench                 # ~10 minutes on 2 CPU cores; exit 0 when every target holds
    python -m labs.bench --parts price   # only the price of checkpoints (~5 minutes)
    python -m labs.bench --cycles 30 --width 512

It runs `fault_resume` as a user would (subprocesses, real torchrun) and reports:
  - the price of checkpointing, end to end: the same job with no checkpoints, with sync and with async ones,
    at --ckpt-every 1 and at the default interval; overhead = extra wall time of steps 1..N (up to the last
    write committed) over the job without checkpoints, and the blocking time the loop itself measured;
  - save throughput: checkpoint bytes (all ranks) / wall time of a sync save, over a plain sequential write
    + fsync of the same number of bytes;
  - recovery (fault to first resumed step) / cold start (launch to first step) of the same job, by phase;
  - a soak of N consecutive kill/restart cycles: restarts, reconnection failures, still bit-exact.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import mean
from typing import Any

from labs.core import report
from labs.core.events import read_events


def run_lab(out: Path, *args: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "labs.run", "fault_resume", "--out", str(out), *args]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return json.loads((out / "report.json").read_text())


def plain_write_mb_s(path: Path, nbytes: int, repeats: int = 3) -> float:
    """Best-of-N throughput of one sequential write + fsync of `nbytes`, the floor a checkpoint can reach."""
    data = os.urandom(nbytes)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        best = min(best, time.perf_counter() - t0)
    path.unlink()
    return nbytes / 1e6 / best


def job_figures(job_dir: Path) -> dict[str, Any]:
    """Wall time from the end of step 1 to `done` (after the last write is committed), mean step time, and
    per sync save the bytes all ranks wrote over the slowest rank's write time."""
    events = read_events(job_dir / "events")
    rank0 = [e for e in events if e["rank"] == 0]
    steps = [e for e in rank0 if e["ev"] == "step"]
    done = next(e["t"] for e in rank0 if e["ev"] == "done")
    saves: dict[int, list[dict[str, Any]]] = {}
    for e in events:
        if e["ev"] == "ckpt":
            saves.setdefault(e["step"], []).append(e)
    sync = [s for s in saves.values() if s[0]["mode"] == "sync"]
    return {"wall_s": done - steps[0]["t"], "step_s": mean(e["step_s"] for e in steps[1:]),
            "blocking_s": mean([e["blocking_s"] for s in saves.values() for e in s if e["rank"] == 0] or [0.0]),
            "saves": len(saves), "save_bytes": mean([sum(e["bytes"] for e in s) for s in sync] or [0]),
            "save_s": mean([max(e["write_s"] for e in s) for s in sync] or [0.0])}


def price(root: Path, model: list[str], every: int, base: dict[str, Any]) -> dict[str, Any]:
    """Sync and async checkpoints every `every` steps against the same job without checkpoints."""
    run_lab(root / f"every-{every}", "--fault", "none", "--ckpt-mode", "async", "--ckpt-every", str(every), *model)
    asyn, sync = job_figures(root / f"every-{every}" / "faulted"), job_figures(root / f"every-{every}" / "reference")

    def overhead(fig: dict[str, Any]) -> float:
        return (fig["wall_s"] - base["wall_s"]) / base["wall_s"]
    return {"every": every, "sync_overhead": overhead(sync), "async_overhead": overhead(asyn),
            "async_over_sync_overhead": overhead(asyn) / overhead(sync) if overhead(sync) > 0 else None,
            "sync_blocking_over_step": sync["blocking_s"] / base["step_s"],
            "async_blocking_over_step": asyn["blocking_s"] / base["step_s"], "sync": sync, "async": asyn}


def price_part(root: Path, model: list[str], width: int, layers: int) -> dict[str, Any]:
    report.console.print(f"[bold]price[/]: the job without checkpoints, width {width}, {layers} layers")
    run_lab(root / "none", "--fault", "none", "--ckpt-every", "0", *model)
    base = job_figures(root / "none" / "faulted")
    report.console.print("[bold]price[/]: the same job with sync and async checkpoints, every step and every 5")
    every1, every5 = price(root, model, 1, base), price(root, model, 5, base)
    save_mb = every1["sync"]["save_bytes"] / 1e6
    save_mb_s = save_mb / every1["sync"]["save_s"]
    plain = plain_write_mb_s(root / "plain.bin", int(every1["sync"]["save_bytes"]))
    return {"checkpoint_mb": save_mb, "step_s_without_checkpoints": base["step_s"],
            "every_1": {k: v for k, v in every1.items() if k not in ("sync", "async")},
            "every_5": {k: v for k, v in every5.items() if k not in ("sync", "async")},
            "sync_save_mb_s": save_mb_s, "plain_write_mb_s": plain, "save_over_plain_write": save_mb_s / plain,
            "jobs": {"none": base, "every_1": {m: every1[m] for m in ("sync", "async")},
                     "every_5": {m: every5[m] for m in ("sync", "async")}}}


def recovery_part(root: Path, model: list[str]) -> dict[str, Any]:
    report.console.print("[bold]recovery[/]: kill + resume, recovery vs cold start")
    rep = run_lab(root / "recovery", "--fault", "kill", *model)
    return {"recovery_s": rep["recovery_seconds"], "cold_start_s": rep["cold_start_seconds"],
            "recovery_over_cold_start": rep["recovery_over_cold_start"],
            "recovery_phases": rep["recovery_phases"][0]["phases"] if rep["recovery_phases"] else None,
            "cold_start_phases": rep["cold_start_phases"]["phases"] if rep["cold_start_phases"] else None,
            "recovery_run_passed": rep["passed"]}


def soak_part(root: Path, cycles: int) -> dict[str, Any]:
    report.console.print(f"[bold]soak[/]: {cycles} kill/restart cycles")
    soak = run_lab(root / "soak", "--fault", "kill", "--kill-cycles", str(cycles), "--steps", str(3 * cycles + 6))
    return {"soak_cycles": cycles, "soak_restarts": soak["restarts"],
            "soak_reconnect_errors": len(soak["reconnect_errors"]), "soak_bit_exact": soak["bit_exact"],
            "soak_passed": soak["passed"]}


def targets(r: dict[str, Any]) -> dict[str, bool]:
    """The issue's targets, judged on this run's ratios (only for the parts that ran)."""
    out = {}
    if "every_1" in r:
        ratio = r["every_1"]["async_over_sync_overhead"]
        out["async_overhead_le_fifth_of_sync_every_1"] = ratio is not None and ratio <= 0.2
        out["async_overhead_le_2pct_every_5"] = r["every_5"]["async_overhead"] <= 0.02
        out["save_ge_0.6_of_plain_write"] = r["save_over_plain_write"] >= 0.6 and r["checkpoint_mb"] >= 150
    if "recovery_over_cold_start" in r:
        out["recovery_le_1.5x_cold_start"] = r["recovery_run_passed"] and r["recovery_over_cold_start"] <= 1.5
    if "soak_passed" in r:
        out["soak_clean_and_bit_exact"] = (r["soak_passed"] and r["soak_reconnect_errors"] == 0
                                           and r["soak_bit_exact"] and r["soak_restarts"] == r["soak_cycles"])
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=20, help="kill/restart cycles in the soak")
    ap.add_argument("--width", type=int, default=512, help="model width for the checkpoint figures")
    ap.add_argument("--layers", type=int, default=4, help="transformer blocks for the checkpoint figures")
    ap.add_argument("--steps", type=int, default=20, help="steps of each priced job")
    ap.add_argument("--out", default="", help="bench folder (default runs/bench/<timestamp>)")
    ap.add_argument("--parts", default="price,recovery,soak",
                    help="comma list of what to run: price (checkpoint overhead and throughput), recovery, soak")
    args = ap.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = sorted(set(parts) - {"price", "recovery", "soak"})
    if unknown or not parts:
        ap.error(f"--parts takes a comma list of price, recovery, soak; got {args.parts!r}")
    root = report.new_run_dir("bench", args.out)
    model = ["--width", str(args.width), "--layers", str(args.layers), "--steps", str(args.steps)]
    result: dict[str, Any] = {}
    if "price" in parts:
        result |= price_part(root, model, args.width, args.layers)
    if "recovery" in parts:
        result |= recovery_part(root, model)
    if "soak" in parts:
        result |= soak_part(root, args.cycles)
    result["targets"] = targets(result)
    report.write_json(root / "bench.json", result)
    rows = [(k, v) for k, v in result.items() if k not in ("jobs", "targets") and not isinstance(v, dict)]
    rows += [(f"{k}.{kk}", vv) for k in ("every_1", "every_5") for kk, vv in result.get(k, {}).items()]
    rows += [(f"{k}.{kk}", vv) for k in ("recovery_phases", "cold_start_phases") for kk, vv in
             (result.get(k) or {}).items()]
    rows += [(f"target: {k}", v) for k, v in result["targets"].items()]
    report.console.print(report.summary_table("labs.bench (ratios from one run)", rows))
    report.console.print(f"bench: {root / 'bench.json'}")
    return 0 if all(result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
