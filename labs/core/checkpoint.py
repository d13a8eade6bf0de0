"""The one checkpoint path every lab uses: sharded DCP save/load, an atomic commit, per-shard checksums, keep-K.

Layout of one checkpoint (torchtitan-style `step-N/`):
    step-000010/__0_0.distcp    shard files of `torch.distributed.checkpoint`, one per rank that wrote data
    step-000010/.metadata       DCP's index of every tensor and object (written by the coordinator, rank 0)
    step-000010/manifest.json   sha256, size and writer of every file above; written last

Saving: DCP writes into `step-N.tmp/` (each file fsynced by its FileSystemWriter); replicated tensors (DDP)
are written once, spread over the ranks by DCP's planner. The writer hashes each shard file as its bytes go
out (HashingWriter: no second read); each rank then drops `rank-R.sha256.json`; rank 0 waits for every
rank's, writes manifest.json, renames the folder to `step-N/` and fsyncs the parent. So a folder named
`step-N/` is complete by construction, and its manifest says what complete means. Older folders beyond the
newest `keep` are removed.

Loading: the newest committed folder whose files match their manifest. Every file is checked by exactly one
rank (rank r takes files r, r + world, ...), and the ranks agree on the verdict with one all-gather, so a
checkpoint is read once for verification, not once per rank. A bad folder is skipped, and the report says
why. DCP reshards on load: a job may resume on another world size (labs/elastic.py).

Async mode: the state is staged into shared memory (the only part that blocks the loop), then a separate
process writes and hashes it (`dcp.async_save` with the process executor), so training does not share the
GIL with a writer thread. That process exits when its rank dies, and takes idle CPU priority and one
thread: where the training ranks keep every core busy (a CPU-only lab) it works in their idle moments rather
than time-slicing with them. A small thread of ours waits for the write and runs the commit (a marker, a
manifest, a rename). The time a save blocks the loop includes waiting for the previous write when saves
come faster than writes. Assumes a filesystem shared by all ranks, as on a real cluster.

Mutations for the negative controls (labs.fault_resume --controls), each breaking one guarantee on purpose:
`alias` stages nothing (the writer process sees the live tensors) and writes only once the next step
has changed them; `naive` writes straight
into `step-N/` and loads without checking.
"""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemWriter
from torch.distributed.checkpoint.filesystem import FileSystem
from torch.distributed.checkpoint.staging import DefaultStager, StagingOptions
from torch.distributed.checkpoint.state_dict_saver import AsyncCheckpointerType

STEP_DIR = re.compile(r"^step-(\d+)$")
MUTATIONS = ("", "alias", "naive")
ALIAS_RELEASE = ".release"  # `step-N.tmp.release`, from the `alias` control's wait(): no step will change the tensors
ALIAS_WAIT_S = 60.0  # the `alias` writer's limit on waiting for a change, in case no release comes


@dataclass
class SaveStats:
    step: int
    mode: str
    blocking_s: float
    """Time the training loop was stopped: staging (async) or the whole write and commit (sync)."""
    write_s: float = 0.0
    """From the start of the save to its commit: DCP write, hashing, manifest, rename."""
    bytes: int = 0
    """Bytes of the shard files this rank wrote."""
    writer_pid: int | None = None
    """Async: the pid of DCP's writer process, so the lab can check that it exits with its rank."""


@dataclass
class Loaded:
    step: int
    path: str
    skipped: list[dict[str, str]] = field(default_factory=list)
    load_s: float = 0.0
    verified_bytes: int = 0
    """Bytes this rank read to verify checksums: about 1/world of the checkpoint."""
    state: dict[str, Any] = field(default_factory=dict)
    """The loaded state dict (empty when nothing good was found)."""
    saved_world: int | None = None
    """The world size that wrote it (from its manifest): differs from ours after an elastic shrink."""


def blob(obj: Any) -> io.BytesIO:
    """A Python object as one opaque DCP entry (scheduler state, RNG streams), so that DCP neither flattens
    it nor needs its exact structure in the load template. `unblob` turns the loaded entry back."""
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf


def unblob(value: Any) -> Any:
    """The object inside a loaded blob entry (DCP hands back the BytesIO itself)."""
    if isinstance(value, io.BytesIO):
        value.seek(0)
        return torch.load(value, weights_only=False)
    return value


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
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


class _HashingStream(io.RawIOBase):
    """A write-only file that hashes every byte on its way out, so a shard is never read back to be hashed."""

    def __init__(self, raw: Any) -> None:
        super().__init__()
        self.raw, self.sha, self.nbytes = raw, hashlib.sha256(), 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        n = self.raw.write(data)
        self.sha.update(memoryview(data).cast("B")[:n])
        self.nbytes += n
        return n

    def tell(self) -> int:
        return self.raw.tell()

    def flush(self) -> None:
        self.raw.flush()

    def fileno(self) -> int:
        return self.raw.fileno()


class _HashingFileSystem(FileSystem):
    def __init__(self) -> None:
        super().__init__()
        self.digests: dict[str, dict[str, Any]] = {}

    @contextmanager
    def create_stream(self, path: str | os.PathLike, mode: str) -> Iterator[io.IOBase]:
        with super().create_stream(path, mode) as raw:
            if "w" not in mode or not Path(path).name.endswith(".distcp"):
                yield raw
                return
            stream = _HashingStream(raw)
            yield stream  # type: ignore[misc]
        self.digests[Path(path).name] = {"sha256": stream.sha.hexdigest(), "bytes": stream.nbytes}


class HashingWriter(FileSystemWriter):
    """DCP's file writer, hashing each shard file as it is written, in whichever process writes (the loop's
    in sync mode, DCP's writer process in async mode); leaves `rank-R.digests.json` for the commit."""

    def __init__(self, path: str, rank: int, background: bool = False) -> None:
        super().__init__(path)
        self.fs = _HashingFileSystem()
        self.rank, self.background = rank, background

    def write_data(self, plan: Any, planner: Any) -> Any:
        if self.background:
            _become_background_writer()
        done = super().write_data(plan, planner)  # returns once every file is written and fsynced
        digests = {name: {**d, "rank": self.rank} for name, d in self.fs.digests.items()}
        _write_atomic(Path(self.path) / f"rank-{self.rank}.digests.json", json.dumps(digests).encode())
        return done


_BACKGROUND = False


def _become_background_writer() -> None:
    """In DCP's writer process, once: take the lowest CPU priority and one thread (on cores the training ranks
    keep busy, the writer then works in their idle moments instead of taking turns with them), and die with
    the rank that started it. A SIGKILLed rank cannot tell its writer to stop: without this, every killed
    rank leaves a writer (about 270 MB) waiting forever for the next request."""
    global _BACKGROUND
    if _BACKGROUND:
        return
    _BACKGROUND = True
    try:  # SCHED_IDLE: runs only on a core nothing else wants (Linux); nice 19 still takes turns with training
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)
    torch.set_num_threads(1)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)  # orphaned: the rank is gone, nobody will commit or read what we would write
    threading.Thread(target=watch, daemon=True, name="kgp-orphan-watch").start()


class LateWriter(HashingWriter):
    """The `alias` control's writer: waits until the live tensors it is handed have changed (the next optimizer
    step) before writing, so the checkpoint holds a later step's weights by construction, not by a race with
    training. It writes unchanged tensors only when the loop says no step will come (`ALIAS_RELEASE`)."""

    def write_data(self, plan: Any, planner: Any) -> Any:
        tensors = [d for d in (planner.resolve_data(item) for item in plan.items) if isinstance(d, torch.Tensor)]
        before = _fingerprint(tensors)
        release, deadline = _release_marker(Path(self.path)), time.monotonic() + ALIAS_WAIT_S
        while _fingerprint(tensors) == before and not release.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return super().write_data(plan, planner)


def _release_marker(folder: Path) -> Path:
    return folder.with_name(folder.name + ALIAS_RELEASE)


def _fingerprint(tensors: list[torch.Tensor]) -> list[float]:
    return [float(t.detach().double().sum()) for t in tensors]


class NoCopyStager:
    """The `alias` control's stager: hands DCP the live state instead of a copy (the bug async must avoid)."""

    should_synchronize_after_execute = False

    def stage(self, state_dict: dict[str, Any]) -> dict[str, Any]:
        return state_dict

    def synchronize_staging(self) -> None:
        pass

    def close(self) -> None:
        pass


class Checkpointer:
    """Save and load `step-N/` checkpoints under `root`; every rank of the job calls every method together."""

    def __init__(self, root: Path, rank: int, world: int, keep: int = 3, mode: str = "sync",
                 on_saved: Callable[[SaveStats], None] | None = None, commit_timeout_s: float = 120.0,
                 tear: Callable[[int, Path], None] | None = None, mutation: str = "") -> None:
        if mode not in ("sync", "async"):
            raise ValueError(f"checkpoint mode must be sync or async, got {mode!r}")
        if mutation not in MUTATIONS:
            raise ValueError(f"checkpoint mutation must be one of {MUTATIONS}, got {mutation!r}")
        self.root, self.rank, self.world, self.keep, self.mode = Path(root), rank, world, keep, mode
        self.on_saved = on_saved or (lambda stats: None)
        self.commit_timeout_s, self.tear, self.mutation = commit_timeout_s, tear, mutation
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._stager: Any = None
        self._folder = self.root  # the folder of the write in flight
        self.root.mkdir(parents=True, exist_ok=True)
        self.writer_pid: int | None = None
        if mode == "async":
            self._warm_up()

    def _warm_up(self) -> None:
        """Start DCP's writer process now, before the first step, with a one-number save (collective). It is
        a spawn, a fresh interpreter importing torch: seconds of CPU that, left to overlap the first steps,
        slow them down on a machine whose cores train; paid here, it counts as start-up time instead."""
        writer = HashingWriter(str(self.root / ".warmup"), self.rank, background=True)  # idle priority, watched
        dcp.async_save({"warmup": torch.zeros(1)}, storage_writer=writer,
                       async_checkpointer_type=AsyncCheckpointerType.PROCESS).result()
        self.writer_pid = next((c.pid for c in multiprocessing.active_children()), None)  # DCP's, our only child

    # ---- saving -------------------------------------------------------------------------------------
    def save(self, step: int, state: dict[str, Any], sync: bool = False) -> None:
        """Checkpoint `state` (a DCP state dict: tensors, DTensors, BytesIO blobs) as step `step`."""
        t0 = time.perf_counter()  # blocking time includes waiting for the previous write to finish
        self.wait()  # one save in flight at a time; also surfaces a failed background write
        mode = "sync" if sync else self.mode
        folder = self.root / (f"step-{step:06d}" if self.mutation == "naive" else f"step-{step:06d}.tmp")
        stats = SaveStats(step=step, mode=mode, blocking_s=0.0)
        if mode == "sync":
            dcp.save(state, storage_writer=HashingWriter(str(folder), self.rank))
            self._finish(step, folder, stats, t0)
            stats.blocking_s = time.perf_counter() - t0
            self.on_saved(stats)
            return
        future = self._async_save(state, folder)
        self._folder = folder
        stats.blocking_s = time.perf_counter() - t0
        stats.writer_pid = self.writer_pid
        self._thread = threading.Thread(target=self._finish_bg, args=(step, folder, stats, t0, future), daemon=True)
        self._thread.start()

    def _async_save(self, state: dict[str, Any], folder: Path) -> Future:
        if self.mutation == "alias":
            return dcp.async_save(state, storage_writer=LateWriter(str(folder), self.rank, background=True),
                                  async_stager=NoCopyStager(), async_checkpointer_type=AsyncCheckpointerType.PROCESS)
        if self._stager is None:  # shared memory: the writer process maps the staged copy instead of a pickle
            self._stager = DefaultStager(StagingOptions(use_pinned_memory=torch.cuda.is_available(),
                                                        use_shared_memory=True, use_async_staging=False,
                                                        use_non_blocking_copy=False))
        return dcp.async_save(state, storage_writer=HashingWriter(str(folder), self.rank, background=True),
                              async_stager=self._stager, async_checkpointer_type=AsyncCheckpointerType.PROCESS)

    def wait(self) -> None:
        """Block until the background write (if any) is committed; re-raise its error here."""
        if self._thread is not None:
            release = _release_marker(self._folder)
            if self.mutation == "alias":  # the loop is waiting: the tensors will not change before the write
                release.touch()
            self._thread.join()
            release.unlink(missing_ok=True)
            self._thread = None
        if self._error is not None:
            err, self._error = self._error, None
            raise RuntimeError("background checkpoint write failed") from err

    def _finish_bg(self, step: int, folder: Path, stats: SaveStats, t0: float, future: Future) -> None:
        try:
            future.result()
            self._finish(step, folder, stats, t0)
            self.on_saved(stats)
        except BaseException as err:  # noqa: BLE001 - handed to the training thread by wait()
            self._error = err

    def _finish(self, step: int, folder: Path, stats: SaveStats, t0: float) -> None:
        """After this rank's DCP write (its shards hashed by the writer): drop its marker; rank 0 commits."""
        digests = folder / f"rank-{self.rank}.digests.json"
        files = json.loads(digests.read_text()) if digests.exists() else {}
        digests.unlink(missing_ok=True)
        if self.tear and files:
            self.tear(step, folder / min(files))  # fault injection (labs/core/fault.py): cuts the file, kills us
        if self.rank == 0:  # DCP's index, written by the coordinator after every rank's data: tiny, hashed here
            meta = folder / ".metadata"
            files[meta.name] = {"sha256": _sha256(meta), "bytes": meta.stat().st_size, "rank": 0}
        stats.bytes = sum(f["bytes"] for f in files.values())
        if self.mutation != "naive":
            _write_atomic(folder / f"rank-{self.rank}.sha256.json", json.dumps(files).encode())
            if self.rank == 0:
                self._commit(step, folder)
        stats.write_s = time.perf_counter() - t0

    def _commit(self, step: int, tmp: Path) -> None:
        markers = [tmp / f"rank-{r}.sha256.json" for r in range(self.world)]
        deadline = time.monotonic() + self.commit_timeout_s
        while not all(m.exists() for m in markers):
            if time.monotonic() > deadline:
                missing = [m.name for m in markers if not m.exists()]
                raise TimeoutError(f"checkpoint step {step}: no {missing} within {self.commit_timeout_s:.0f}s")
            time.sleep(0.005)
        files: dict[str, Any] = {}
        for m in markers:
            files |= json.loads(m.read_text())
            m.unlink()
        manifest = {"step": step, "world_size": self.world, "created": time.time(), "files": files}
        _write_atomic(tmp / "manifest.json", json.dumps(manifest, indent=1).encode())
        final = self.root / f"step-{step:06d}"
        if final.exists():  # an older attempt committed this step before failing; replace it whole
            shutil.rmtree(final)
        os.replace(tmp, final)
        _fsync_dir(self.root)
        for path in committed_steps(self.root)[:-self.keep]:
            shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Wait for the last write and release the shared-memory staging buffers."""
        self.wait()
        if self._stager is not None:
            self._stager.close()
            self._stager = None

    # ---- loading ------------------------------------------------------------------------------------
    def clean_partial(self) -> list[str]:
        """Remove half-written `step-N.tmp/` folders left by a crash (rank 0, before training starts)."""
        removed = []
        for path in sorted(self.root.glob("step-*.tmp")):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
        return removed

    def load_latest(self, template: Callable[[], dict[str, Any]]) -> Loaded | None:
        """Load the newest good checkpoint into `template()` (DCP takes shapes and sharding from it; built only
        once a good folder is found, since building it may initialise optimizer state). None when there is
        no checkpoint at all; step 0 with `skipped` when every one failed its checks."""
        t0 = time.perf_counter()
        skipped: list[dict[str, str]] = []
        verified = 0
        for path in reversed(committed_steps(self.root)):
            if self.mutation == "naive":
                problems, nbytes = [], 0
            else:
                problems, nbytes = verify_agreed(path, self.rank, self.world)
            verified += nbytes
            if problems:
                skipped.append({"path": path.name, "reason": problems[0]})
                continue
            state = template()
            dcp.load(state, checkpoint_id=str(path))
            step = int(STEP_DIR.match(path.name).group(1))  # type: ignore[union-attr]
            manifest = read_manifest(path)[0] or {}
            return Loaded(step, path.name, skipped, time.perf_counter() - t0, verified, state,
                          manifest.get("world_size"))
        if skipped:
            return Loaded(0, "", skipped, time.perf_counter() - t0, verified)
        return None


def verify_agreed(path: Path, rank: int, world: int) -> tuple[list[str], int]:
    """Each rank checks its own share of `path`, then all ranks learn every problem (empty: all good), so
    they load or refuse together; also returns the bytes this rank read."""
    problem, nbytes = verify_share(path, rank, world)
    return _agree(problem, world), nbytes


def _agree(problem: str, world: int) -> list[str]:
    """Every rank's verification problem, on every rank (empty when all are happy)."""
    if not (dist.is_available() and dist.is_initialized()) or world == 1:
        return [problem] if problem else []
    found = [""] * world
    dist.all_gather_object(found, problem)
    return [p for p in found if p]


def committed_steps(root: Path) -> list[Path]:
    """Committed `step-N/` folders under `root`, oldest first."""
    found = [p for p in Path(root).iterdir() if p.is_dir() and STEP_DIR.match(p.name)]
    return sorted(found, key=lambda p: int(STEP_DIR.match(p.name).group(1)))  # type: ignore[union-attr]


def read_manifest(path: Path) -> tuple[dict[str, Any] | None, str]:
    manifest_path = path / "manifest.json"
    if not manifest_path.exists():
        return None, "no manifest.json (incomplete write)"
    try:
        return json.loads(manifest_path.read_text()), ""
    except json.JSONDecodeError as err:
        return None, f"manifest.json unreadable: {err}"


def verify_share(path: Path, rank: int = 0, world: int = 1) -> tuple[str, int]:
    """Check this rank's share of the files (every world-th, from `rank`): '' when good, and bytes read."""
    manifest, problem = read_manifest(path)
    if manifest is None:
        return problem, 0
    names = sorted(manifest["files"])
    read = 0
    for name in names[rank::world]:
        meta, file = manifest["files"][name], path / name
        if not file.exists():
            return f"{name} missing", read
        if file.stat().st_size != meta["bytes"]:
            return f"{name} is {file.stat().st_size} bytes, manifest says {meta['bytes']}", read
        read += meta["bytes"]
        if _sha256(file) != meta["sha256"]:
            return f"{name} fails its sha256 checksum", read
    return "", read


def verify(path: Path) -> str:
    """Empty string when every file of the checkpoint matches its manifest (one process checks all)."""
    return verify_share(path)[0]


def commit_folder(tmp: Path, final: Path, step: int, world: int, keep: int | None = None) -> dict[str, Any]:
    """Commit a folder some other writer filled (DeepSpeed's own save): hash every file into a manifest,
    rename `tmp` to `final`, fsync; one process calls it after every rank finished writing."""
    files = {str(p.relative_to(tmp)): {"sha256": _sha256(p), "bytes": p.stat().st_size, "rank": -1}
             for p in sorted(tmp.rglob("*")) if p.is_file()}
    manifest = {"step": step, "world_size": world, "created": time.time(), "files": files}
    _write_atomic(tmp / "manifest.json", json.dumps(manifest, indent=1).encode())
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    _fsync_dir(final.parent)
    if keep:
        for path in committed_steps(final.parent)[:-keep]:
            shutil.rmtree(path, ignore_errors=True)
    return manifest
