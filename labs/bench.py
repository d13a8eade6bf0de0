"""Checkpoint and recovery benchmark: ratios measured within one run (absolute times are context only).

    python -m labs.bench                 # ~3 minutes on 2 CPU cores
    python -m labs.bench --cycles 30 --width 512

It runs `fault_resume` as a user would (subprocesses, real torchrun) and reports:
  - checkpoint blocking time / step time, sync and async (the same model, one run each mode);
  - recovery time (fault to first resumed step) / cold start time (launch to first step) of the same job;
  - checkpoint save throughput / a plain sequential write + fsync of the same number of bytes;
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
from typing import Any

from labs.core import report


def run_lab(out: Path, *args: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "labs.run", "fault_resume", "--out", str(out), *args]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    return json.loads((out / "report.json").read_text())


def plain_write_mb_s(path: Path, nbytes: int, repeats: int = 5) -> float:
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


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m labs.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cycles", type=int, default=20, help="kill/restart cycles in the soak")
    ap.add_argument("--width", type=int, default=256, help="model width for the checkpoint figures")
    ap.add_argument("--layers", type=int, default=4, help="transformer blocks for the checkpoint figures")
    ap.add_argument("--out", default="", help="bench folder (default runs/bench/<timestamp>)")
    args = ap.parse_args(argv)
    root = report.new_run_dir("bench", args.out)
    model = ["--width", str(args.width), "--layers", str(args.layers)]

    report.console.print(f"[bold]1/2[/] kill + resume, width {args.width}, {args.layers} layers")
    rep = run_lab(root / "checkpoint", "--fault", "kill", *model)
    sync, asyn = rep["checkpoint"]["sync"], rep["checkpoint"]["async"]
    plain = plain_write_mb_s(root / "plain.bin", int(sync["mb_per_save_rank0"] * 1e6))

    report.console.print(f"[bold]2/2[/] soak: {args.cycles} kill/restart cycles")
    soak = run_lab(root / "soak", "--fault", "kill", "--kill-cycles", str(args.cycles),
                   "--steps", str(3 * args.cycles + 6))
    result = {
        "checkpoint_mb_rank0": sync["mb_per_save_rank0"],
        "step_s": sync["step_s_mean"],
        "sync_blocking_over_step": sync["blocking_over_step"],
        "async_blocking_over_step": asyn["blocking_over_step"],
        "async_over_sync_blocking": asyn["blocking_s_mean"] / sync["blocking_s_mean"],
        "recovery_s": rep["recovery_seconds"],
        "cold_start_s": rep["cold_start_seconds"],
        "recovery_over_cold_start": rep["recovery_over_cold_start"],
        "sync_save_mb_s": sync["mb_per_s"],
        "plain_write_mb_s": plain,
        "save_over_plain_write": sync["mb_per_s"] / plain,
        "checkpoint_run_passed": rep["passed"],
        "soak_cycles": args.cycles,
        "soak_restarts": soak["restarts"],
        "soak_reconnect_errors": len(soak["reconnect_errors"]),
        "soak_bit_exact": soak["bit_exact"],
        "soak_passed": soak["passed"],
    }
    report.write_json(root / "bench.json", result)
    report.console.print(report.summary_table("labs.bench (ratios from one run)", list(result.items())))
    report.console.print(f"bench: {root / 'bench.json'}")
    return 0 if rep["passed"] and soak["passed"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
