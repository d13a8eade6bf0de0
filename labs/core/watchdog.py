"""Our watchdog for gloo, which (unlike NCCL) has none: which collective, which sequence number, who is missing.

Every collective the training loop issues goes through `Watchdog.collective(name, step)`: the rank's counter
goes up by one and its heartbeat (op, sequence number, step, since when) is published in the job's c10d
store. DDP's gradient all-reduces are marked from a communication hook (`ddp_hook`), one per bucket, so the
marker sits at the real collective call, not at the phase around it. Collectives are issued in the same
order on every rank, so sequence number N names the same call everywhere.

A thread refreshes the heartbeat and, once this rank has waited in one collective longer than `limit_s`,
reads every rank's heartbeat from the store: ranks whose counter is behind never issued collective N. As a
second opinion it asks gloo's `monitored_barrier` (on a side group) which ranks fail to answer; then it
logs the diagnosis and ends the process, so that torchrun restarts the job from its last checkpoint
instead of everyone waiting for the process-group timeout (gloo's default: 30 minutes). On GPUs, NCCL's
own watchdog and flight recorder (TORCH_NCCL_TRACE_BUFFER_SIZE, set by labs/core/launch.py) do the same job
inside the library.

`markers="phase"` is the negative control: one marker per phase, set before backward, as in the old version.
It cannot name a bucket or a sequence number, and the hang lab's check then fails.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

from labs.core.events import EventLog

HANG_EXIT_CODE = 3
PREFIX = "kgp/heartbeat/"


def _store() -> dist.Store:
    """A client of the job's c10d store (hosted by rank 0's process), for the watchdog thread alone."""
    store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                          timeout=timedelta(seconds=10))
    return dist.PrefixStore(PREFIX, store)


class Watchdog:
    def __init__(self, rank: int, world: int, limit_s: float, log: EventLog, beat_s: float = 0.25,
                 markers: str = "collective") -> None:
        self.rank, self.world, self.limit_s, self.log, self.markers = rank, world, limit_s, log, markers
        self.store = _store()
        self.issued, self.step = 0, 0
        self.pending: dict[int, tuple[str, int, float]] = {}  # seq -> (op, step, since): issued, not finished
        self.state: dict[str, Any] = {}
        self._lock = threading.Lock()
        # A side group for monitored_barrier: the default group is the one stuck in the hung collective.
        self.side = dist.new_group(backend="gloo")
        self._refresh()
        self._beat()
        threading.Thread(target=self._run, args=(beat_s,), daemon=True).start()

    # ---- markers, called by the training loop (and by DDP's hook) ----------------------------------
    def _refresh(self) -> None:
        """The heartbeat names the oldest collective this rank issued and is still waiting for."""
        if self.pending:
            seq = min(self.pending)
            op, step, since = self.pending[seq]
        else:
            seq, op, step, since = self.issued, "compute", self.step, time.time()
        self.state = {"rank": self.rank, "op": op, "seq": seq, "issued": self.issued, "step": step, "since": since}

    def enter(self, op: str, step: int) -> int:
        """This rank issues collective `op`: it takes the next sequence number."""
        with self._lock:
            self.issued += 1
            self.step = step
            self.pending[self.issued] = (op, step, time.time())
            self._refresh()
            seq = self.issued
        self._beat()
        return seq

    def done(self, seq: int) -> None:
        with self._lock:
            self.pending.pop(seq, None)
            self._refresh()

    @contextmanager
    def collective(self, op: str, step: int) -> Iterator[None]:
        """Around one blocking collective call."""
        seq = self.enter(op, step) if self.markers == "collective" else 0
        try:
            yield
        finally:
            if seq:
                self.done(seq)

    def phase(self, op: str, step: int) -> None:
        """The control's marker: a phase name, set before the phase, with no sequence number."""
        if self.markers == "phase":
            with self._lock:
                self.state = {"rank": self.rank, "op": op, "seq": -1, "issued": -1, "step": step,
                              "since": time.time()}
            self._beat()

    def ddp_hook(self, step_of: Callable[[], int]) -> Callable[..., torch.futures.Future[torch.Tensor]]:
        """A DDP comm hook: DDP's averaging all-reduce of each bucket, marked with its own sequence number
        when it is issued and cleared when it completes."""
        # No annotations on `hook`: DDP checks them at runtime, and postponed (string) annotations fail that check.
        def hook(state, bucket):  # noqa: ANN001, ANN202
            name = f"all_reduce (DDP gradient bucket {bucket.index()})"
            seq = self.enter(name, step_of()) if self.markers == "collective" else 0
            fut = dist.all_reduce(bucket.buffer().div_(self.world), async_op=True).get_future()

            def finished(f: torch.futures.Future[list[torch.Tensor]]) -> torch.Tensor:
                if seq:
                    self.done(seq)
                return f.value()[0]
            return fut.then(finished)
        return hook

    # ---- the thread ------------------------------------------------------------------------------------
    def _beat(self) -> None:
        with self._lock:
            beat = json.dumps({**self.state, "beat": time.time(), "pid": os.getpid()})
        try:
            self.store.set(str(self.rank), beat)
        except Exception:  # noqa: BLE001 - rank 0's store is gone when the job is being torn down
            pass

    def _run(self, beat_s: float) -> None:
        while True:
            time.sleep(beat_s)
            self._beat()
            with self._lock:
                op, waited = self.state["op"], time.time() - self.state["since"]
            if self.limit_s > 0 and op != "compute" and waited > self.limit_s:
                found = diagnose(read_heartbeats(self.store, self.world))
                found["monitored_barrier"] = self._monitored_barrier()
                self.log.log("hang", detector="watchdog", waited_s=waited, limit_s=self.limit_s, **found)
                os._exit(HANG_EXIT_CODE)  # from a thread: the main thread is stuck inside the collective

    def _monitored_barrier(self, timeout_s: float = 0.5) -> dict[str, Any]:
        """gloo's own answer: rank 0 names the ranks that do not reach the barrier (others only time out)."""
        try:
            dist.monitored_barrier(group=self.side, timeout=timedelta(seconds=timeout_s), wait_all_ranks=True)
            return {"missing_ranks": [], "message": "all ranks answered"}
        except RuntimeError as err:
            text = str(err).splitlines()[0][:300]
            listed = re.search(r"Ranks? ([\d, ]+) failed to pass monitoredBarrier", text)
            missing = [int(r) for r in re.findall(r"\d+", listed.group(1))] if listed else None
            return {"missing_ranks": missing, "message": text}


def read_heartbeats(store: dist.Store, world: int) -> list[dict[str, Any]]:
    beats = []
    for r in range(world):
        try:
            if store.check([str(r)]):
                beats.append(json.loads(store.get(str(r))))
                continue
        except Exception:  # noqa: BLE001 - a store that is gone reads as "unknown"
            pass
        beats.append({"rank": r, "op": "unknown", "seq": -1, "issued": -1, "step": -1, "since": 0.0, "beat": 0.0})
    return beats


def diagnose(beats: list[dict[str, Any]], now: float | None = None) -> dict[str, Any]:
    """Which collective (name and sequence number) the group is stuck in, who waits, who never issued it."""
    now = now or time.time()
    waiting = [b for b in beats if b["op"] not in ("compute", "unknown")]
    if not waiting:
        return {"collective": None, "collective_seq": None, "collective_step": None, "waiting_ranks": [],
                "stalled_ranks": [], "summary": "no rank waits in a collective"}
    head = max(waiting, key=lambda b: (b["seq"], b["step"]))
    inside = [b["rank"] for b in waiting if (b["seq"], b["op"]) == (head["seq"], head["op"])]
    stalled = [b for b in beats if b["rank"] not in inside]
    details = [f"rank {b['rank']}: {b['op']!r} after issuing #{b.get('issued', -1)} at step {b['step']}, "
               f"{'alive' if now - b['beat'] < 2 else 'no heartbeat'} ({now - b['beat']:.1f}s since last beat)"
               for b in stalled]
    return {"collective": head["op"], "collective_seq": head["seq"], "collective_step": head["step"],
            "waiting_ranks": inside, "stalled_ranks": [b["rank"] for b in stalled],
            "stalled_issued": {str(b["rank"]): b.get("issued", -1) for b in stalled},
            "summary": f"ranks {inside} wait in {head['op']} #{head['seq']} at step {head['step']}; "
                       "never issued it: " + "; ".join(details)}
