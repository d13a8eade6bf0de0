r"""torn_checkpoint: the process dies in the middle of writing a checkpoint; the torn files are never loaded.

Run it:
    python -m labs.run torn_checkpoint                 # rank 0 dies halfway through step-10's shared.pt
    python -m labs.run torn_checkpoint --ckpt-mode sync --fault-rank 1
The workers, as printed by the lab:
    TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1 --nproc-per-node=2 --max-restarts=3 ... \
        -m labs.core.worker torn_checkpoint --out runs/x

While saving step 10, the chosen rank writes half of its file to disk (fsynced: these bytes really are
there) and is SIGKILLed, as on a power loss or an OOM kill during I/O. Because every write goes to
`step-N.tmp/` and only a complete, checksummed folder is renamed to `step-N/`, the restarted job finds
step 10 uncommitted, removes the torn folder, resumes from step 5, and must still end bit-exact with an
uninterrupted run. For contrast the lab also tears a naive checkpoint (torch.save straight to its final
name) the same way and shows what loading it does.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import torch

from labs import fault_resume
from labs.core import report
from labs.core.events import read_events
from labs.fault_resume import check_config, worker  # noqa: F401  (labs.run checks, torchrun runs)

DESCRIPTION = "Kill the process in the middle of a checkpoint write: the torn files are never loaded"


@dataclass
class Config(fault_resume.Config):
    CHOICES: ClassVar[dict[str, list[str]]] = {**fault_resume.Config.CHOICES, "fault": ["torn", "none"]}

    fault: str = "torn"
    """The fault this lab injects: death halfway through a checkpoint file."""
    fault_rank: int = 0
    """The rank that dies while writing (rank 0 writes the big shared file)."""
    fault_step: int = 10
    """The checkpoint step whose write is torn (a multiple of --ckpt-every, after the first)."""


def naive_torn_load(folder: Path) -> str:
    """What a non-atomic checkpoint gives after the same tear: torch.load of a half-written file."""
    buf = io.BytesIO()
    torch.save({"w": torch.randn(256, 256)}, buf)
    path = folder / "naive-ckpt.pt"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    try:
        torch.load(path, weights_only=True)
        return "loaded without error (silently wrong)"
    except Exception as err:  # noqa: BLE001 - the message is the point
        return f"{type(err).__name__}: {str(err).splitlines()[0][:160]}"


def torn_figures(cfg: Config, run_dir: Path, result: dict[str, Any]) -> dict[str, Any]:
    events = read_events(run_dir / "faulted" / "events")
    tear = next((e for e in events if e["ev"] == "fault"), {})
    cleaned = [f for e in events if e["ev"] == "cleaned" for f in e["folders"]]
    resumed = [e["step"] for e in events if e["ev"] == "resumed" and e["rank"] == 0]
    return {"torn_file": tear.get("torn"), "bytes_written": tear.get("bytes_written"),
            "bytes_total": tear.get("bytes_total"), "cleaned_folders": cleaned,
            "resumed_from": resumed[0] if resumed else None, "naive_checkpoint": naive_torn_load(run_dir)}


def main(cfg: Config) -> int:
    run_dir, result = fault_resume.execute(cfg, "torn_checkpoint")
    torn = torn_figures(cfg, run_dir, result)
    result["torn"] = torn
    result["checks"]["write_was_torn"] = bool(torn["torn_file"]) and torn["bytes_written"] < torn["bytes_total"]
    result["checks"]["torn_folder_removed"] = f"step-{cfg.fault_step:06d}.tmp" in torn["cleaned_folders"]
    result["checks"]["resumed_from_previous_good"] = torn["resumed_from"] == cfg.fault_step - cfg.ckpt_every
    result["passed"] = all(result["checks"].values())
    report.write_json(run_dir / "report.json", result)
    extra = [(k, torn[k]) for k in ("torn_file", "cleaned_folders", "resumed_from", "naive_checkpoint")]
    fault_resume.show(result, run_dir, extra)
    return 0 if result["passed"] else 1
