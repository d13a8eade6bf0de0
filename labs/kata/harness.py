"""What torchrun runs on every rank of a kata check: `python -m labs.kata.harness NAME OUT SOLUTION...`.

It joins a gloo process group, imports the user's file and runs the kata's cases one by one, writing a
start and an end line per case to OUT/<k>/rank<r>.jsonl as it goes, so a crash or a hang still leaves the
cases before it and the case it was in (k: the file's place on the command line; a user's check has one
file, the tests judge a kata's wrong solutions in one launch, each in a fresh process group).

After each case the ranks meet over the c10d store, not over
the process group, which the user's code may have left mid-message: when any rank's case raised, every
rank stops there instead of pairing the next case's messages with the leftovers of this one.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback
from datetime import timedelta
from pathlib import Path
from types import ModuleType

import torch
import torch.distributed as dist
from torch.distributed import PrefixStore

from labs.kata.cases import Ctx, Outcome


def load_solution(path: Path) -> ModuleType:
    """The user's file as the module `solution` (a later file judged in the same run replaces it)."""
    spec = importlib.util.spec_from_file_location("solution", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path.name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["solution"] = module
    spec.loader.exec_module(module)
    return module


def describe(exc: BaseException, solution: Path) -> str:
    """One line: the error, and where in the user's file it came from (our frames are not the user's concern)."""
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == solution.resolve():
            where = f" (your code, line {frame.lineno}: {(frame.line or '').strip()[:80]})"
    if isinstance(exc, SyntaxError) and exc.lineno:
        where = f" (your code, line {exc.lineno})"
    message = str(exc).strip().splitlines()[0][:240] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message}{where}"


class Events:
    def __init__(self, out: Path, rank: int) -> None:
        out.mkdir(parents=True, exist_ok=True)
        self.file = open(out / f"rank{rank}.jsonl", "a", encoding="utf-8")  # noqa: SIM115 - open for the run

    def emit(self, **fields: object) -> None:
        self.file.write(json.dumps({"t": time.time(), **fields}) + "\n")
        self.file.flush()


def kata_cases(name: str) -> list:
    return importlib.import_module(f"labs.kata.{name}.cases").CASES


def run_cases(name: str, solution: ModuleType, solution_path: Path, ctx: Ctx, events: Events,
              store: dist.Store, case_timeout_s: float) -> None:
    for i, case in enumerate(kata_cases(name)):
        events.emit(ev="start", case=case.name)
        t0 = time.perf_counter()
        crashed = False
        try:
            outcome = case.run(solution, ctx)
            if not isinstance(outcome, Outcome):
                raise TypeError(f"case {case.name} returned {type(outcome).__name__}")
        except BaseException as exc:  # the user's code failing (even exit()) is a verdict, not our error
            outcome, crashed = Outcome(False, describe(exc, solution_path)), True
        events.emit(ev="end", case=case.name, passed=outcome.passed, detail=outcome.detail,
                    seconds=time.perf_counter() - t0, crashed=crashed)
        store.set(f"kata/{i}/{ctx.rank}", "crashed" if crashed else "done")
        keys = [f"kata/{i}/{r}" for r in range(ctx.world)]
        try:
            store.wait(keys, timedelta(seconds=case_timeout_s))
            stop = any(store.get(k) == b"crashed" for k in keys)
        except Exception:  # a peer died or hangs inside the user's code: the judge reports which case
            stop = True
        if stop:
            events.emit(ev="stopped", after=case.name)
            return


def farewell(store: dist.Store, rank: int, world: int, timeout_s: float) -> None:
    """Rank 0 hosts the store: it leaves last, so no peer loses the store in the middle of a wait."""
    store.set(f"kata/bye/{rank}", "1")
    if rank == 0:
        try:
            store.wait([f"kata/bye/{r}" for r in range(world)], timedelta(seconds=timeout_s))
        except Exception:
            pass  # a peer is gone: nothing left to wait for


def judge_one(name: str, k: int, path: Path, out: Path, seed: int, store: dist.Store, timeout_s: float) -> None:
    """Every case of kata `name` on the k-th solution, its events under OUT/<k>/."""
    rank, world = dist.get_rank(), dist.get_world_size()
    events = Events(out / str(k), rank)
    if rank == 0:  # the judge shows every case, also those a crash leaves unrun
        events.emit(ev="plan", cases=[{"name": c.name, "what": c.what, "hint_en": c.hint_en, "hint_zh": c.hint_zh}
                                      for c in kata_cases(name)])
    try:
        solution = load_solution(path)
    except BaseException as exc:  # SyntaxError, ImportError, a top-level raise or exit(): all the user's
        events.emit(ev="import_error", detail=describe(exc, path))
        return
    workdir = out / str(k) / f"work{rank}"
    workdir.mkdir(parents=True, exist_ok=True)
    run_cases(name, solution, path, Ctx(rank, world, seed, workdir), events, PrefixStore(f"{k}/", store), timeout_s)
    events.emit(ev="done")


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="labs.kata.harness")
    ap.add_argument("name")
    ap.add_argument("out", type=Path)
    ap.add_argument("solutions", type=Path, nargs="+", help="one file from the user; the tests judge several")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--case-timeout-s", type=float, default=10.0)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    # The process group's timeout bounds how long a rank waits for a message its peer never sends.
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.case_timeout_s))
    store = dist.distributed_c10d._get_default_store()
    rank, world = dist.get_rank(), dist.get_world_size()
    for k, path in enumerate(args.solutions):
        if k:  # a fresh process group: messages a wrong file left unreceived must not reach the next file
            dist.destroy_process_group()
            dist.init_process_group("gloo", store=PrefixStore(f"pg{k}/", store), rank=rank, world_size=world,
                                    timeout=timedelta(seconds=args.case_timeout_s))
        judge_one(args.name, k, path, args.out, args.seed, store, args.case_timeout_s)
    farewell(store, rank, world, args.case_timeout_s)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # no process-group teardown: a peer may be gone or stuck in the user's last message


if __name__ == "__main__":
    main(sys.argv[1:])
