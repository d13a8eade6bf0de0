"""Atomic, checksummed checkpoints in `step-N/` folders; the newest valid one is found automatically.

Layout of one checkpoint (torchtitan-style `step-N/`):
    step-000010/shared.pt      state replicated on every rank (model, optimizer, scheduler), written by rank 0
    step-000010/rank-1.pt      state that differs per rank (RNG streams, data position)
    step-000010/manifest.json  sha256 and size of every file; written last, after every rank finished

Every write goes to `step-N.tmp/`, each file through `.part` + fsync + rename; rank 0 commits the folder by
renaming it to `step-N/` and fsyncing the parent. A folder without a manifest, or whose files fail their
checksums, is never loaded: `load_latest` falls back to the previous good one and says which it skipped.
Async mode snapshots the state to host memory (the only part that blocks training) and writes it from a
background thread, the same idea as `torch.distributed.checkpoint.async_save`. Assumes a filesystem
shared by all ranks, as on a real cluster.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

STEP_DIR = re.compile(r"^step-(\d+)$")


@dataclass
class SaveStats:
    step: int
    mode: str
    blocking_s: float
    """Time the training loop was stopped: snapshot (async) or snapshot + serialise + write (sync)."""
    write_s: float = 0.0
    """Serialise + checksum + write + fsync of this rank's files."""
    bytes: int = 0


@dataclass
class Loaded:
    step: int
    shared: dict[str, Any]
    local: dict[str, Any]
    path: str
    skipped: list[dict[str, str]] = field(default_factory=list)
    load_s: float = 0.0


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes) -> None:
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _snapshot(state: Any) -> Any:
    """A host-memory copy that later training steps cannot change under the writer thread."""
    if isinstance(state, torch.Tensor):
        return state.detach().to("cpu", copy=True)
    if isinstance(state, dict):
        return {k: _snapshot(v) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(_snapshot(v) for v in state)
    return copy.deepcopy(state)


class Checkpointer:
    """Save and load `step-N/` checkpoints under `root` for one rank of a job."""

    def __init__(self, root: Path, rank: int, world: int, keep: int = 3, mode: str = "sync",
                 on_saved: Callable[[SaveStats], None] | None = None, commit_timeout_s: float = 120.0,
                 tear: Callable[[int, Path, bytes], None] | None = None) -> None:
        if mode not in ("sync", "async"):
            raise ValueError(f"checkpoint mode must be sync or async, got {mode!r}")
        self.root, self.rank, self.world, self.keep, self.mode = Path(root), rank, world, keep, mode
        self.on_saved = on_saved or (lambda stats: None)
        self.commit_timeout_s = commit_timeout_s
        self.tear = tear  # fault injection (labs/core/fault.py): may write part of a file and kill the process
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self.root.mkdir(parents=True, exist_ok=True)

    # ---- saving -------------------------------------------------------------------------------------
    def save(self, step: int, shared: dict[str, Any] | None, local: dict[str, Any], sync: bool = False) -> None:
        """Checkpoint `step`. `shared` is written by rank 0 only; every rank writes its `local` state."""
        self.wait()  # one save in flight at a time; also surfaces a failed background write
        t0 = time.perf_counter()
        files = {"shared.pt": _snapshot(shared)} if self.rank == 0 and shared is not None else {}
        files[f"rank-{self.rank}.pt"] = _snapshot(local)
        stats = SaveStats(step=step, mode="sync" if sync else self.mode, blocking_s=0.0)
        if stats.mode == "sync":
            self._write(step, files, stats)
            stats.blocking_s = time.perf_counter() - t0
            self.on_saved(stats)
            return
        stats.blocking_s = time.perf_counter() - t0
        self._thread = threading.Thread(target=self._write_bg, args=(step, files, stats), daemon=True)
        self._thread.start()

    def wait(self) -> None:
        """Block until the background write (if any) is committed; re-raise its error here."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            err, self._error = self._error, None
            raise RuntimeError("background checkpoint write failed") from err

    def _write_bg(self, step: int, files: dict[str, Any], stats: SaveStats) -> None:
        try:
            self._write(step, files, stats)
            self.on_saved(stats)
        except BaseException as err:  # noqa: BLE001 - handed to the training thread by wait()
            self._error = err

    def _write(self, step: int, files: dict[str, Any], stats: SaveStats) -> None:
        t0 = time.perf_counter()
        tmp = self.root / f"step-{step:06d}.tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        for name, state in files.items():
            buf = io.BytesIO()
            torch.save(state, buf)
            data = buf.getvalue()
            if self.tear:
                self.tear(step, tmp / (name + ".part"), data)
            _write_atomic(tmp / name, data)
            # The .sha256 marker says "this file is complete" to rank 0, which commits the folder.
            _write_atomic(tmp / (name + ".sha256"), json.dumps(
                {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}).encode())
            stats.bytes += len(data)
        if self.rank == 0:
            self._commit(step, tmp, list(files))
        stats.write_s = time.perf_counter() - t0

    def _commit(self, step: int, tmp: Path, own: list[str]) -> None:
        expected = own + [f"rank-{r}.pt" for r in range(1, self.world)]
        deadline = time.monotonic() + self.commit_timeout_s
        while not all((tmp / (n + ".sha256")).exists() for n in expected):
            if time.monotonic() > deadline:
                missing = [n for n in expected if not (tmp / (n + ".sha256")).exists()]
                raise TimeoutError(f"checkpoint step {step}: ranks did not finish {missing} "
                                   f"within {self.commit_timeout_s:.0f}s")
            time.sleep(0.005)
        manifest = {"step": step, "world_size": self.world, "created": time.time(),
                    "files": {n: json.loads((tmp / (n + ".sha256")).read_text()) for n in expected}}
        _write_atomic(tmp / "manifest.json", json.dumps(manifest, indent=1).encode())
        final = self.root / f"step-{step:06d}"
        if final.exists():  # an older attempt committed this step before failing; replace it whole
            shutil.rmtree(final)
        os.replace(tmp, final)
        _fsync_dir(self.root)
        self._prune()

    def _prune(self) -> None:
        for path in committed_steps(self.root)[:-self.keep]:
            shutil.rmtree(path, ignore_errors=True)

    # ---- loading ------------------------------------------------------------------------------------
    def clean_partial(self) -> list[str]:
        """Remove half-written `step-N.tmp/` folders left by a crash (rank 0, before training starts)."""
        removed = []
        for path in sorted(self.root.glob("step-*.tmp")):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
        return removed

    def load_latest(self) -> Loaded | None:
        """The newest checkpoint whose manifest and checksums are all good, or None to start fresh."""
        t0 = time.perf_counter()
        skipped: list[dict[str, str]] = []
        for path in reversed(committed_steps(self.root)):
            problem = verify(path)
            if problem:
                skipped.append({"path": path.name, "reason": problem})
                continue
            local = torch.load(path / f"rank-{self.rank}.pt", weights_only=False)
            shared = torch.load(path / "shared.pt", weights_only=False)
            step = int(STEP_DIR.match(path.name).group(1))  # type: ignore[union-attr]
            return Loaded(step, shared, local, path.name, skipped, time.perf_counter() - t0)
        if skipped:
            return Loaded(0, {}, {}, "", skipped, time.perf_counter() - t0)
        return None


def committed_steps(root: Path) -> list[Path]:
    """Committed `step-N/` folders under `root`, oldest first."""
    found = [p for p in Path(root).iterdir() if p.is_dir() and STEP_DIR.match(p.name)]
    return sorted(found, key=lambda p: int(STEP_DIR.match(p.name).group(1)))  # type: ignore[union-attr]


def verify(path: Path) -> str:
    """Empty string when every file in the manifest exists with its recorded size and sha256."""
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        return "no manifest.json (incomplete write)"
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as err:
        return f"manifest.json unreadable: {err}"
    for name, meta in manifest["files"].items():
        file = path / name
        if not file.exists():
            return f"{name} missing"
        if file.stat().st_size != meta["bytes"]:
            return f"{name} is {file.stat().st_size} bytes, manifest says {meta['bytes']}"
        if _sha256(file) != meta["sha256"]:
            return f"{name} fails its sha256 checksum"
    return ""


def stats_dict(stats: SaveStats) -> dict[str, Any]:
    return asdict(stats)
