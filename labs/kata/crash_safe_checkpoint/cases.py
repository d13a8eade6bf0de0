"""The judge of crash_safe_checkpoint: kill a real process inside save(), then load() must give old or new, exact.

Every rank works alone in its own folder (no communication). The states are small dicts of seeded tensors
(float32, bfloat16, int64) that cases.py draws itself; "exact" means the same keys, dtypes, shapes and bits.
A crash is a child process (os.fork of the rank: no second torch import) that hooks one call, imports the
user's file afresh and runs `save(new, path)` over a committed old state; the hook kills it with SIGKILL at a
fixed point, with no timer: while torch.save writes (half of the serialised bytes are out, flushed), just
before os.replace/os.rename, just after it. The judge, the parent, then calls `load(path)`. For the fsync
case the child records every os.fsync (which file: /proc/self/fd) and every rename, in order, and the
judge requires the renamed file to have been fsynced before the rename and its folder after it.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch

from labs.kata.cases import Case, Ctx, Outcome, fail, first_failure, ok, same


def die() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def hooks(mode: str, events: list) -> None:
    """In the child: replace the one call where `mode` kills (or, for 'fsync', records) the process."""
    real_save, real_replace, real_rename, real_fsync, real_fdatasync = (torch.save, os.replace, os.rename, os.fsync,
                                                                        os.fdatasync)

    def torn_save(obj: object, f: object, *args: object, **kwargs: object) -> None:
        buf = io.BytesIO()  # serialise, write the first half where save was pointed, die
        real_save(obj, buf, *args, **kwargs)
        half = buf.getvalue()[: len(buf.getvalue()) // 2]
        if isinstance(f, (str, os.PathLike)):
            with open(f, "wb") as out:
                out.write(half)
                out.flush()
        else:
            f.write(half)
            f.flush()
        die()

    def kill_after(real: Callable) -> Callable:
        def rename(src: object, dst: object, *args: object, **kwargs: object) -> None:
            real(src, dst, *args, **kwargs)
            die()
        return rename

    def record_fsync(real: Callable) -> Callable:
        def fsync(fd: object) -> None:
            fd = fd if isinstance(fd, int) else fd.fileno()
            events.append(["fsync", os.readlink(f"/proc/self/fd/{fd}")])
            return real(fd)
        return fsync

    def record_rename(real: Callable) -> Callable:
        def rename(src: object, dst: object, *args: object, **kwargs: object) -> None:
            events.append(["rename", os.path.realpath(src), os.path.realpath(dst)])
            return real(src, dst, *args, **kwargs)
        return rename

    if mode == "mid_write":
        torch.save = torch.serialization.save = torn_save
    elif mode == "before_rename":
        os.replace = os.rename = lambda *a, **k: die()
    elif mode == "after_rename":
        os.replace, os.rename = kill_after(real_replace), kill_after(real_rename)
    elif mode == "fsync":
        os.fsync, os.fdatasync = record_fsync(real_fsync), record_fsync(real_fdatasync)
        os.replace, os.rename = record_rename(real_replace), record_rename(real_rename)


def child(solution: str, mode: str, path: Path, state: dict, log: Path) -> None:
    """The forked child: hooks first, then the user's file imported afresh (so that a `from os import replace`
    there gets the hook too), then save(). Ends the process: 0 saved, 1 raised (its error in log), or killed."""
    events: list = []
    try:
        hooks(mode, events)
        spec = importlib.util.spec_from_file_location("solution_child", solution)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.save(state, str(path))
        log.write_text(json.dumps(events))
        code = 0
    except BaseException as exc:
        log.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:200]}))
        code = 1
    os._exit(code)


HOOKED = {"mid_write": "torch.save", "before_rename": "os.replace/os.rename", "after_rename": "os.replace/os.rename"}


def draw(ctx: Ctx, version: int) -> dict[str, torch.Tensor]:
    """A small optimizer-like state, different for each version; every version has its own keys too."""
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + version * 101 + ctx.rank)
    state = {"model.w": torch.randn(24, 16, generator=g),
             "model.emb": torch.randn(8, 12, generator=g).to(torch.bfloat16),
             "step": torch.tensor(1000 * version, dtype=torch.int64)}
    if version % 2 == 0:
        state["optim.exp_avg"] = torch.randn(24, 16, generator=g) * 1e-3
    return state


def folder(ctx: Ctx, case: str) -> Path:
    d = ctx.workdir / case
    d.mkdir(parents=True, exist_ok=True)
    return d


def is_state(got: object, expected: dict[str, torch.Tensor], what: str) -> Outcome:
    if not isinstance(got, dict):
        return fail(f"{what}: load returned {type(got).__name__}, expected a dict of tensors")
    if sorted(got) != sorted(expected):
        return fail(f"{what}: keys {sorted(got)}, expected {sorted(expected)}")
    return first_failure(*(same(got[k], v, f"{what}, {k!r}", atol=0, rtol=0) for k, v in expected.items()))


def loaded(sol: ModuleType, path: Path, when: str) -> tuple[object, Outcome]:
    try:
        return sol.load(str(path)), ok()
    except NotImplementedError:
        raise
    except Exception as exc:
        return None, fail(f"load raised {type(exc).__name__}: {str(exc).strip().split('. ')[0][:160]} ({when})")


def old_or_new(sol: ModuleType, path: Path, old: dict | None, new: dict, when: str) -> Outcome:
    got, raised = loaded(sol, path, when)
    if not raised.passed:
        return raised
    if old is None and got is None:
        return ok()
    vs_new = is_state(got, new, "vs the new state")
    if vs_new.passed:
        return ok()
    if old is None:
        return fail(f"{when}, load returned {type(got).__name__}, expected None: nothing was committed yet")
    if got is None:
        return fail(f"{when}, load returned None, but a whole checkpoint had been committed before this save")
    vs_old = is_state(got, old, "vs the old state")
    if vs_old.passed:
        return ok()
    return fail(f"{when}, load returned neither the old state nor the new one ({vs_old.detail})")


def crash(sol: ModuleType, ctx: Ctx, mode: str, path: Path, new: dict) -> tuple[Outcome, list]:
    """Run save(new, path) in a forked child with `mode`'s hook; ok when it died (or, for 'fsync', finished) as
    planned. A fork, not a new interpreter: the child needs no second `import torch` (seconds per kill)."""
    log = ctx.workdir / "inputs" / f"{path.parent.name}.json"  # never in the checkpoint's folder
    log.parent.mkdir(exist_ok=True)
    log.unlink(missing_ok=True)
    pid = os.fork()
    if pid == 0:
        child(sol.__file__, mode, path, new, log)
    deadline = time.time() + 18
    while (done := os.waitpid(pid, os.WNOHANG)) == (0, 0):
        if time.time() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return fail(f"save in the child process did not finish within 18 s ({mode})"), []
        time.sleep(0.01)
    code = os.waitstatus_to_exitcode(done[1])
    written = json.loads(log.read_text()) if log.exists() else None
    last = written.get("error", "") if isinstance(written, dict) else ""
    if mode == "fsync":
        if code != 0:
            return fail(f"save in a child process failed (exit {code}): {last}"), []
        return ok(), written
    if code == -signal.SIGKILL:
        return ok(), []
    if code == 0:
        return fail(f"save returned without calling {HOOKED[mode]}, where the judge's kill point is"), []
    return fail(f"save in a child process failed (exit {code}) before the kill point: {last}"), []


def first_save(sol: ModuleType, ctx: Ctx) -> Outcome:
    path = folder(ctx, "first") / "model.pt"
    got, raised = loaded(sol, path, "on an empty folder")
    if not raised.passed:
        return raised
    if got is not None:
        return fail(f"load on an empty folder returned {type(got).__name__}, expected None")
    v1, v2 = draw(ctx, 1), draw(ctx, 2)
    killed, _ = crash(sol, ctx, "mid_write", path, v1)
    if not killed.passed:
        return killed
    nothing = old_or_new(sol, path, None, v1, "after a kill in the middle of the very first save")
    if not nothing.passed:
        return nothing
    sol.save(v1, str(path))
    got, raised = loaded(sol, path, "after a first save")
    if not raised.passed or not (o := is_state(got, v1, "after save(v1)")).passed:
        return raised if not raised.passed else o
    sol.save(v2, str(path))
    got, raised = loaded(sol, path, "after a second save")
    return first_failure(raised, is_state(got, v2, "after save(v1), save(v2)") if raised.passed else raised)


def killed_at(mode: str, when: str):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        path = folder(ctx, mode) / "model.pt"
        v1, v2 = draw(ctx, 3), draw(ctx, 4)
        sol.save(v1, str(path))
        killed, _ = crash(sol, ctx, mode, path, v2)
        return first_failure(killed, old_or_new(sol, path, v1, v2, when))
    return run


def fsync_order(sol: ModuleType, ctx: Ctx) -> Outcome:
    path = folder(ctx, "fsync") / "model.pt"
    v1, v2 = draw(ctx, 5), draw(ctx, 6)
    sol.save(v1, str(path))
    done, events = crash(sol, ctx, "fsync", path, v2)
    if not done.passed:
        return done
    target, parent = os.path.realpath(path), os.path.realpath(path.parent)
    commit = next((i for i, e in enumerate(events) if e[0] == "rename" and e[2] == target), None)
    if commit is None:
        return fail(f"no os.replace/os.rename onto {path.name}: the new file must become visible by one rename")
    src = events[commit][1]
    if not any(e == ["fsync", src] for e in events[:commit]):
        later = " (it was fsynced only after the rename)" if ["fsync", target] in events[commit:] else ""
        return fail(f"{Path(src).name} was renamed onto {path.name} without an os.fsync of it first{later}: "
                    f"after a power loss the name could point at data still in the page cache")
    if not any(e == ["fsync", parent] for e in events[commit + 1:]):
        return fail(f"the folder was not fsynced after the rename onto {path.name}: the rename itself may not "
                    f"survive a power loss")
    got, raised = loaded(sol, path, "after a save that finished")
    return first_failure(raised, is_state(got, v2, "after the save") if raised.passed else raised)


def stale_leftovers(sol: ModuleType, ctx: Ctx) -> Outcome:
    d = folder(ctx, "leftovers")
    path = d / "model.pt"
    v1, v2, v3, junk = draw(ctx, 7), draw(ctx, 8), draw(ctx, 9), draw(ctx, 10)
    sol.save(v1, str(path))
    torch.save(junk, d / "junk.pt")
    torn = (d / "junk.pt").read_bytes()[:700]
    (d / "junk.pt").unlink()
    for name in ("model.pt.tmp", "model.pt.tmp.12345", ".model.pt.tmp", "model.pt.partial", "tmpk3x9_q2a"):
        (d / name).write_bytes(torn)  # torn files from crashed saves, newer than the committed one
    got, raised = loaded(sol, path, "with stale temp files in the folder")
    if not raised.passed or not (o := is_state(got, v1, "with stale temp files beside the checkpoint")).passed:
        return raised if not raised.passed else o
    for version, state in ((8, v2), (9, v3)):
        sol.save(state, str(path))
        got, raised = loaded(sol, path, "after a save into a folder with stale temp files")
        if not raised.passed or not (o := is_state(got, state, f"after save(v{version}) beside them")).passed:
            return raised if not raised.passed else o
    return ok()


CASES = [
    Case("first_save", "empty folder -> None; a kill inside the first save -> still None; then save, save",
         "Until a save has committed, there is no checkpoint: load must not fall back to a half-written temp file.",
         "在第一次保存提交之前，检查点并不存在：load 不能退而读取写了一半的临时文件。", first_save),
    Case("killed_mid_write", "SIGKILL while torch.save has written half of the new state",
         "Never write the bytes where the reader looks: write elsewhere and make them visible in one atomic step.",
         "不要把字节直接写到读者读取的位置：先写到别处，再用一个原子操作让它可见。", killed_at(
             "mid_write", "after a kill while torch.save was writing")),
    Case("killed_before_rename", "SIGKILL just before os.replace/os.rename runs",
         "At every instant up to the commit, the old checkpoint must still be there, whole, under its name.",
         "直到提交的那一刻，旧检查点都必须完整地保留在原来的名字下。", killed_at(
             "before_rename", "after a kill just before the rename")),
    Case("killed_after_rename", "SIGKILL just after the rename, before the folder is fsynced",
         "The commit is one rename onto the final name; any second step that moves the old file away opens a gap.",
         "提交就是一次改名到最终文件名；任何先把旧文件挪开的额外步骤都会留下空档。", killed_at(
             "after_rename", "after a kill just after the rename")),
    Case("fsync_order", "records os.fsync targets and renames: file fsynced before its rename, folder after",
         "A rename can reach the disk before the data does: fsync the file before the rename, the folder after.",
         "改名可能比数据先落盘：改名前 fsync 文件，改名后 fsync 目录。", fsync_order),
    Case("stale_leftovers", "torn temp files of earlier crashes (newer than the checkpoint) beside it; save twice",
         "load reads the committed name only; temp names must not collide with leftovers or be mistaken for data.",
         "load 只读已提交的文件名；临时文件名既不能和残留文件冲突，也不能被当成数据。", stale_leftovers),
]
