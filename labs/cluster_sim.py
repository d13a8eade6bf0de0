"""cluster_sim: how often should a 1k-16k GPU job checkpoint? Simulated failures against Young/Daly.

Run it (in-process: numpy, seeded, a few seconds; no torchrun, no GPU):
    python -m labs.run cluster_sim                                   # 1,024 / 4,096 / 16,384 GPUs
    python -m labs.run cluster_sim --gpus 16384 --ckpt-cost-s 30 --restart-cost-s 300
    python -m labs.run cluster_sim --intervals 300,600,1200,2400,4800
    python -m labs.run cluster_sim --ckpt-cost-s 3000 --restart-cost-s 3000   # C, R not << M: first order fails

The failure rate comes from a published run: Meta's Llama 3 405B pre-training ("The Llama 3 Herd of Models",
Dubey et al. 2024, https://arxiv.org/abs/2407.21783, section 3.3.4) had 419 unexpected interruptions in a
54-day snapshot on 16,384 H100 GPUs. That is a job MTBF of 54*24/419 = 3.1 h, or, spread evenly over the
GPUs, an effective per-GPU MTBF of 16384*3.1 h = 50,700 h (every interruption counted, GPU-caused or not).

The model: a synchronous job stops when any of its N GPUs fails. Each GPU fails as a Poisson process with
the per-GPU MTBF, drawn GPU by GPU, so the job's MTBF (M = MTBF_gpu / N in theory) is measured here, not
assumed. The job trains for an interval tau, then blocks C seconds writing a checkpoint; a failure loses
everything since the last completed checkpoint and costs R seconds to restart (a failure during a restart
starts it over). Goodput = useful training time / wall time, swept over tau, for every GPU count.

Verification, per GPU count: the simulated best interval is near Young/Daly's sqrt(2CM)
(labs.core.theory.young_daly_interval): the curve is flat there, so the check compares goodput at the two intervals
(--flat-tol) and the intervals themselves loosely (--interval-tol); simulated goodput is within --closed-form-tol
of the first-order 1 - C/tau - (R + tau/2)/M (labs.core.theory.expected_waste_fraction) for tau in [YD/2, 2*YD],
where C, R, tau << M; it matches the exact expectation of this model, tau*exp(-R/M) / (M*(exp((tau+C)/M) - 1)),
within 4 standard errors; and the measured job MTBF matches labs.core.theory.job_mtbf_hours.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.table import Table

from labs.core import report, theory
from labs.core.config import Problem

DESCRIPTION = "Simulate a 1k-16k GPU job's failures: goodput vs checkpoint interval against Young/Daly"

LLAMA3 = {"gpus": 16384, "days": 54, "interruptions": 419, "source": "https://arxiv.org/abs/2407.21783"}
LLAMA3_JOB_MTBF_H = LLAMA3["days"] * 24 / LLAMA3["interruptions"]          # 3.09 h
LLAMA3_GPU_MTBF_H = float(round(LLAMA3_JOB_MTBF_H * LLAMA3["gpus"]))         # 50,677 h


@dataclass
class Config:
    gpus: str = "1024,4096,16384"
    """Comma list of job sizes (GPUs) to simulate, one curve each."""
    gpu_mtbf_h: float = LLAMA3_GPU_MTBF_H
    """Effective per-GPU MTBF in hours; default from Llama 3 405B: 16,384 GPUs, 419 interruptions in 54 days."""
    ckpt_cost_s: float = 60.0
    """C: seconds training is blocked to write one checkpoint."""
    restart_cost_s: float = 600.0
    """R: seconds from a failure until training runs again (reschedule, init, load the checkpoint)."""
    intervals: str = ""
    """Comma list of checkpoint intervals (seconds of training between checkpoints) to sweep; default a log
    grid from a quarter of the smallest Young/Daly interval to four times the largest."""
    points: int = 41
    """Points of the default interval grid."""
    failures: int = 100_000
    """Failures to simulate per GPU count: the simulated time is this many job MTBFs."""
    closed_form_tol: float = 0.02
    """Largest allowed |simulated - first-order| goodput for intervals in [YD/2, 2*YD]: first order drops
    terms like (C/tau)^2, (tau/M)^2 and (R/M)^2, up to ~0.017 there for 16,384 GPUs with the defaults."""
    flat_tol: float = 0.005
    """Goodput at the Young/Daly interval may be at most this far below the simulated best."""
    interval_tol: float = 0.3
    """The simulated best interval must be within this relative distance of Young/Daly."""
    seed: int = 1234
    """Seed of the failure draws."""
    out: str = ""
    """Run folder; default runs/cluster_sim/<timestamp>/."""


# ---- the simulation --------------------------------------------------------------------------------------
def failure_times(rng: np.random.Generator, n_gpus: int, gpu_mtbf_s: float, horizon_s: float) -> np.ndarray:
    """Sorted failure times of a job on n_gpus: each GPU a Poisson process (a count, then uniform times)."""
    counts = rng.poisson(horizon_s / gpu_mtbf_s, size=n_gpus)
    return np.sort(rng.uniform(0.0, horizon_s, counts.sum()))


def uptimes(times: np.ndarray, horizon_s: float, restart_s: float) -> tuple[np.ndarray, np.ndarray]:
    """Wall time between consecutive failures, and the training time in it: the gap minus the restart
    (none at the start); a gap shorter than the restart trains nothing."""
    gaps = np.diff(np.concatenate([[0.0], times, [horizon_s]]))
    lost = np.full(gaps.shape, restart_s)
    lost[0] = 0.0
    return gaps, np.maximum(gaps - lost, 0.0)


def useful(up: np.ndarray, interval_s: float, ckpt_s: float) -> np.ndarray:
    """Useful work per gap: only segments whose checkpoint completed before the next failure count."""
    return np.floor(up / (interval_s + ckpt_s)) * interval_s


def goodput(gaps: np.ndarray, up: np.ndarray, interval_s: float, ckpt_s: float,
            batches: int = 20) -> tuple[float, float]:
    """Goodput and its standard error (batch means over consecutive blocks of failures)."""
    work = useful(up, interval_s, ckpt_s)
    edges = np.linspace(0, len(up), batches + 1).astype(int)[:-1]
    per_batch = np.add.reduceat(work, edges) / np.add.reduceat(gaps, edges)
    return float(work.sum() / gaps.sum()), float(per_batch.std(ddof=1) / math.sqrt(batches))


def renewal_goodput(interval_s: float, ckpt_s: float, restart_s: float, mtbf_s: float) -> float:
    """The exact expectation of this model: P(restart finishes) = e^(-R/M), then E[completed segments] =
    1/(e^((tau+C)/M) - 1) per failure, each worth tau, per M seconds of wall time."""
    return interval_s * math.exp(-restart_s / mtbf_s) / (mtbf_s * math.expm1((interval_s + ckpt_s) / mtbf_s))


def best_interval(taus: np.ndarray, goodputs: np.ndarray) -> float:
    """Argmax of the sweep, refined by a parabola through its neighbours in log(tau)."""
    i = int(np.argmax(goodputs))
    if i == 0 or i == len(taus) - 1:
        return float(taus[i])
    x, y = np.log(taus[i - 1:i + 2]), goodputs[i - 1:i + 2]
    a, b, _ = np.polyfit(x, y, 2)
    return float(np.exp(-b / (2 * a))) if a < 0 else float(taus[i])


# ---- the orchestrator (python -m labs.run cluster_sim) -------------------------------------------------
def parse_list(text: str, kind: type) -> list:
    return [kind(x) for x in text.split(",") if x.strip()]


def check_config(cfg: Config) -> str:
    """A clear message for a config that cannot work, else ''."""
    try:
        gpus, taus = parse_list(cfg.gpus, int), parse_list(cfg.intervals, float)
    except ValueError as err:
        return Problem(f"--gpus takes integers and --intervals numbers, comma separated ({err})",
                       f"--gpus 须为整数、--intervals 须为数字，均以逗号分隔（{err}）")
    if not gpus or min(gpus) <= 0:
        return Problem(f"--gpus must be positive GPU counts, not {cfg.gpus!r}",
                       f"--gpus 必须是正的 GPU 数，而不是 {cfg.gpus!r}")
    if cfg.gpu_mtbf_h <= 0:
        return Problem(f"--gpu-mtbf-h must be > 0, not {cfg.gpu_mtbf_h}",
                       f"--gpu-mtbf-h 必须 > 0，而不是 {cfg.gpu_mtbf_h}")
    if cfg.ckpt_cost_s <= 0 or cfg.restart_cost_s < 0:
        return Problem(f"costs must be --ckpt-cost-s > 0 and --restart-cost-s >= 0, not {cfg.ckpt_cost_s} and "
                       f"{cfg.restart_cost_s}",
                       f"开销必须满足 --ckpt-cost-s > 0 且 --restart-cost-s >= 0，而不是 {cfg.ckpt_cost_s} 和 "
                       f"{cfg.restart_cost_s}")
    if taus and min(taus) <= 0:
        return Problem(f"--intervals must all be > 0 seconds, not {cfg.intervals!r}",
                       f"--intervals 必须全部 > 0 秒，而不是 {cfg.intervals!r}")
    if cfg.points < 5 or cfg.failures < 1000:
        return Problem("--points must be >= 5 and --failures >= 1000", "--points 必须 >= 5，且 --failures >= 1000")
    return ""


def grid(cfg: Config, yd: list[float]) -> np.ndarray:
    if cfg.intervals:
        return np.array(sorted(parse_list(cfg.intervals, float)))
    return np.geomspace(min(yd) / 4, max(yd) * 4, cfg.points)


def simulate(cfg: Config, n_gpus: int, taus: np.ndarray, rng: np.random.Generator, advance) -> dict[str, Any]:
    """One job size: draw its failures, sweep the intervals, compare with theory."""
    C, R = cfg.ckpt_cost_s, cfg.restart_cost_s
    M = theory.job_mtbf_hours(cfg.gpu_mtbf_h, n_gpus) * 3600
    yd = theory.young_daly_interval(C, M)
    horizon = cfg.failures * M
    times = failure_times(rng, n_gpus, cfg.gpu_mtbf_h * 3600, horizon)
    gaps, up = uptimes(times, horizon, R)
    sweep = []
    for tau in taus:
        g, se = goodput(gaps, up, tau, C)
        sweep.append({"interval_s": float(tau), "goodput": g, "se": se,
                      "first_order": 1 - theory.expected_waste_fraction(tau, C, R, M),
                      "renewal": renewal_goodput(tau, C, R, M)})
        advance()
    g_yd, se_yd = goodput(gaps, up, yd, C)
    best = best_interval(taus, np.array([s["goodput"] for s in sweep]))
    g_best = max(goodput(gaps, up, best, C)[0], max(s["goodput"] for s in sweep))
    near = [s for s in sweep if yd / 2 <= s["interval_s"] <= 2 * yd] + [
        {"interval_s": yd, "goodput": g_yd, "first_order": 1 - theory.expected_waste_fraction(yd, C, R, M)}]
    m_sim = horizon / len(times)
    checks = {
        "job_mtbf_matches": abs(m_sim / M - 1) <= 4 / math.sqrt(len(times)),
        "goodput_at_young_daly_near_best": g_yd >= g_best - cfg.flat_tol,
        "best_interval_near_young_daly": abs(best / yd - 1) <= cfg.interval_tol,
        "goodput_matches_first_order": bool(max(abs(s["goodput"] - s["first_order"]) for s in near)
                                            <= cfg.closed_form_tol),
        "goodput_matches_renewal_model": all(abs(s["goodput"] - s["renewal"]) <= 4 * s["se"] + 1e-9 for s in sweep),
    }
    return {
        "gpus": n_gpus, "failures": len(times), "simulated_days": horizon / 86400,
        "job_mtbf_h": {"theory": M / 3600, "simulated": m_sim / 3600, "ratio": m_sim / M},
        "young_daly_s": yd, "best_interval_s": best, "best_over_young_daly": best / yd,
        "goodput_at_young_daly": {"first_order": 1 - theory.expected_waste_fraction(yd, C, R, M),
                                  "renewal": renewal_goodput(yd, C, R, M), "simulated": g_yd, "se": se_yd},
        "goodput_best_simulated": g_best,
        "max_abs_error_first_order_near_yd": max(abs(s["goodput"] - s["first_order"]) for s in near),
        "checks": checks, "sweep": sweep,
    }


def scaling(jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Between consecutive job sizes: MTBF should scale as 1/N, the best interval as 1/sqrt(N)."""
    out = []
    for a, b in zip(jobs, jobs[1:], strict=False):
        k = b["gpus"] / a["gpus"]
        out.append({"gpus": [a["gpus"], b["gpus"]], "gpu_ratio": k,
                    "job_mtbf_ratio": a["job_mtbf_h"]["simulated"] / b["job_mtbf_h"]["simulated"],
                    "best_interval_ratio": a["best_interval_s"] / b["best_interval_s"],
                    "theory_mtbf_ratio": k, "theory_interval_ratio": math.sqrt(k)})
    return out


def main(cfg: Config) -> int:
    run_dir = report.new_run_dir("cluster_sim", cfg.out)
    gpus = parse_list(cfg.gpus, int)
    yds = [theory.young_daly_interval(cfg.ckpt_cost_s, theory.job_mtbf_hours(cfg.gpu_mtbf_h, n) * 3600)
           for n in gpus]
    taus = grid(cfg, yds)
    rng = np.random.default_rng(cfg.seed)
    report.console.print(f"[bold]cluster_sim[/]: {gpus} GPUs, per-GPU MTBF {cfg.gpu_mtbf_h:,.0f} h, "
                         f"C={cfg.ckpt_cost_s:g} s, R={cfg.restart_cost_s:g} s, run folder {run_dir}")
    jobs = []
    with report.progress("sweep") as bar:
        task = bar.add_task("sweep", total=len(gpus) * len(taus), status="")
        for n in gpus:
            bar.update(task, status=f"{n} GPUs")
            jobs.append(simulate(cfg, n, taus, rng, lambda: bar.advance(task)))
    checks = {f"{j['gpus']} GPUs: {k}": v for j in jobs for k, v in j["checks"].items()}
    result = {
        "lab": "cluster_sim", "passed": all(checks.values()), "checks": checks,
        "config": dataclasses.asdict(cfg),
        "failure_rate_source": {**LLAMA3, "job_mtbf_h": LLAMA3_JOB_MTBF_H, "gpu_mtbf_h": LLAMA3_GPU_MTBF_H,
                                "paper": "The Llama 3 Herd of Models (Dubey et al. 2024), section 3.3.4"},
        "jobs": jobs, "scaling": scaling(jobs), "plot": "goodput.png",
    }
    plot(run_dir / "goodput.png", jobs, cfg)
    report.write_json(run_dir / "report.json", result)
    show(result, run_dir)
    return 0 if result["passed"] else 1


def plot(path: Path, jobs: list[dict[str, Any]], cfg: Config) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for j, color in zip(jobs, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False):
        xs = [s["interval_s"] / 60 for s in j["sweep"]]
        ax.plot(xs, [s["goodput"] for s in j["sweep"]], color=color, lw=1.8,
                label=f"{j['gpus']:,} GPUs (job MTBF {j['job_mtbf_h']['simulated']:.1f} h)")
        ax.plot(xs, [s["first_order"] for s in j["sweep"]], color=color, lw=0.8, ls="--")
        yd = j["young_daly_s"] / 60
        ax.axvline(yd, color=color, ls=":", lw=1)
        ax.plot([yd], [j["goodput_at_young_daly"]["simulated"]], marker="*", ms=12, color=color)
        ax.plot([j["best_interval_s"] / 60], [j["goodput_best_simulated"]], marker="x", ms=8, color="black")
        ax.annotate(f"Young/Daly {yd:.0f} min", (yd, j["goodput_at_young_daly"]["simulated"]), color=color,
                    fontsize=8, xytext=(4, 6), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_ylim(max(0.0, min(s["goodput"] for j in jobs for s in j["sweep"]) - 0.05), 1.01)
    ax.set_xlabel("checkpoint interval (minutes of training between checkpoints)")
    ax.set_ylabel("goodput (useful time / wall time)")
    ax.set_title(f"simulated (solid, x = best) vs first order 1 - C/tau - (R + tau/2)/M (dashed); "
                 f"C={cfg.ckpt_cost_s:g} s, R={cfg.restart_cost_s:g} s", fontsize=9)
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def show(result: dict[str, Any], run_dir: Path) -> None:
    table = Table(title="cluster_sim: theory vs simulated")
    for col in ("GPUs", "job MTBF h: theory / sim / ratio", "interval s: Young/Daly / best sim / ratio",
                "goodput at YD: 1-waste / sim / ratio", "best sim"):
        table.add_column(col, justify="right")
    for j in result["jobs"]:
        m, g = j["job_mtbf_h"], j["goodput_at_young_daly"]
        table.add_row(f"{j['gpus']:,}", f"{m['theory']:.2f} / {m['simulated']:.2f} / {m['ratio']:.3f}",
                      f"{j['young_daly_s']:.0f} / {j['best_interval_s']:.0f} / {j['best_over_young_daly']:.2f}",
                      f"{g['first_order']:.4f} / {g['simulated']:.4f} / {g['simulated'] / g['first_order']:.4f}",
                      f"{j['goodput_best_simulated']:.4f}")
    report.console.print(table)
    rows: list[tuple[str, Any]] = [("passed", result["passed"])]
    rows += [(f"check: {k}", v) for k, v in result["checks"].items()]
    rows += [(f"scaling {s['gpus'][0]}->{s['gpus'][1]}", f"MTBF x1/{s['job_mtbf_ratio']:.3f} (theory "
              f"{s['theory_mtbf_ratio']:g}), best interval x1/{s['best_interval_ratio']:.3f} (theory "
              f"{s['theory_interval_ratio']:.3f})") for s in result["scaling"]]
    src = result["failure_rate_source"]
    rows.append(("failure rate from", f"Llama 3 405B: {src['interruptions']} interruptions / {src['days']} days on "
                 f"{src['gpus']:,} GPUs = job MTBF {src['job_mtbf_h']:.2f} h ({src['source']})"))
    report.console.print(report.summary_table("cluster_sim", rows))
    report.console.print(f"report: {run_dir / 'report.json'}  plot: {run_dir / 'goodput.png'}")


if __name__ == "__main__":
    sys.exit("run it with: python -m labs.run cluster_sim")
