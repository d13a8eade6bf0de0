"""The judge of one_f_one_b: the candidate's order, checked as a list and then run on a real pipeline.

Every rank calls `schedule` for every stage (it is pure) and checks all the lists the same way, so every rank
reaches the same verdict before any message is sent. The lists are then played on paper (messages pair up in
send order, sends do not block, a receive waits), which finds a deadlock or a gradient paired with the wrong
micro-batch at once instead of after the process-group timeout. Only then does each rank run its own
stage's list for real: a Linear + tanh per stage, activations sent forward and gradients backward with
isend/recv, the peak number of micro-batches in flight counted as it goes. The expected gradients come from
the whole model on one process (every rank builds all stages from one seed), the losses summed over the
micro-batches; the expected order is 1F1B written out from its definition below.
"""

from __future__ import annotations

from collections import deque
from types import ModuleType

import torch
import torch.distributed as dist

from labs.kata.cases import Case, Ctx, Outcome, fail, first_failure, ok, same

D, BATCH = 4, 3  # features per stage, rows per micro-batch


def one_f_one_b(stage: int, p: int, m: int) -> list[tuple[str, int]]:
    """The expected order, by position: after w = min(p - stage - 1, m) warm-up forwards, forward w + k comes
    right before backward k; the backwards left over close the list."""
    w = min(p - stage - 1, m)
    order = [("F", i) for i in range(w)]
    for k in range(m):
        if w + k < m:
            order.append(("F", w + k))
        order.append(("B", k))
    return order


def lists_of(sol: ModuleType, p: int, m: int) -> tuple[list[list[tuple[str, int]]], str]:
    """Every stage's list, normalised to (str, int) tuples, or a reason it is not a valid order."""
    out = []
    for s in range(p):
        got = sol.schedule(s, p, m)
        if not isinstance(got, (list, tuple)):
            return [], f"schedule({s}, {p}, {m}) returned {type(got).__name__}, not a list of (str, int)"
        ops = []
        for op in got:
            if not (isinstance(op, (list, tuple)) and len(op) == 2 and op[0] in ("F", "B")
                    and isinstance(op[1], int) and 0 <= op[1] < m):
                return [], f"stage {s} (p={p}, m={m}): {op!r} is not ('F', i) or ('B', i) with 0 <= i < {m}"
            ops.append((op[0], int(op[1])))
        for i in range(m):
            f, b = ops.count(("F", i)), ops.count(("B", i))
            if (f, b) != (1, 1):
                return [], (f"stage {s} (p={p}, m={m}): micro-batch {i} appears {f} time(s) as F and {b} as B; "
                            f"each must appear once as each")
            if ops.index(("B", i)) < ops.index(("F", i)):
                return [], f"stage {s} (p={p}, m={m}): ('B', {i}) comes before ('F', {i})"
        out.append(ops)
    return out, ""


def on_paper(lists: list[list[tuple[str, int]]]) -> str:
    """Play the lists with non-blocking sends and blocking receives: '' if they finish, else what goes wrong."""
    p = len(lists)
    acts = [deque() for _ in range(p)]  # acts[s]: micro-batch ids of the activations stage s - 1 has sent
    grads = [deque() for _ in range(p)]  # grads[s]: micro-batch ids of the gradients stage s + 1 has sent
    pos, moved = [0] * p, True
    while moved:
        moved = False
        for s in range(p):
            while pos[s] < len(lists[s]):
                kind, i = lists[s][pos[s]]
                queue = acts[s] if kind == "F" and s > 0 else grads[s] if kind == "B" and s < p - 1 else None
                if queue is not None:
                    if not queue:
                        break
                    sent = queue.popleft()
                    if sent != i:
                        peer, what = (s - 1, "activation") if kind == "F" else (s + 1, "gradient")
                        return (f"stage {s} runs ('{kind}', {i}), but the next {what} stage {peer} sends it is "
                                f"micro-batch {sent}'s: messages pair up in send order, so neighbouring stages "
                                f"must run their {kind}s in the same micro-batch order")
                if kind == "F" and s < p - 1:
                    acts[s + 1].append(i)
                if kind == "B" and s > 0:
                    grads[s - 1].append(i)
                pos[s] += 1
                moved = True
    stuck = [s for s in range(p) if pos[s] < len(lists[s])]
    if stuck:
        waits = "; ".join(f"stage {s} at {lists[s][pos[s]]} waits for stage "
                          f"{s - 1 if lists[s][pos[s]][0] == 'F' else s + 1}" for s in stuck)
        return f"the pipeline deadlocks: {waits}"
    return ""


def model(ctx: Ctx, p: int, m: int, salt: int) -> tuple[list[torch.nn.Linear], torch.Tensor, torch.Tensor]:
    """All p stages, the micro-batches and their targets: the same on every rank."""
    g = torch.Generator().manual_seed(ctx.seed * 1_000_003 + salt * 101)
    layers = []
    for _ in range(p):
        layer = torch.nn.Linear(D, D)
        with torch.no_grad():
            layer.weight.copy_(torch.randn(D, D, generator=g) / D ** 0.5)
            layer.bias.copy_(torch.randn(D, generator=g))
        layers.append(layer)
    return layers, torch.randn(m, BATCH, D, generator=g), torch.randn(m, BATCH, D, generator=g)


def loss_of(y: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return 0.5 * ((y - target) ** 2).sum()


def expected_grads(layers: list[torch.nn.Linear], inputs: torch.Tensor, targets: torch.Tensor, stage: int):
    """The whole model on this process, the micro-batches' losses summed: the gradients of `stage`'s layer."""
    total = torch.zeros(())
    for x, t in zip(inputs, targets, strict=True):
        for layer in layers:
            x = torch.tanh(layer(x))
        total = total + loss_of(x, t)
    total.backward()
    return layers[stage].weight.grad.clone(), layers[stage].bias.grad.clone()


def run_stage(ops: list[tuple[str, int]], layer: torch.nn.Linear, inputs: torch.Tensor, targets: torch.Tensor,
              ctx: Ctx) -> int:
    """This rank's stage, for real: returns the peak number of micro-batches with F done and B not yet."""
    s, p = ctx.rank, ctx.world
    saved: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}
    sends, peak = [], 0
    for kind, i in ops:
        if kind == "F":
            if s == 0:
                x = inputs[i].clone()
            else:
                x = torch.empty(BATCH, D)
                dist.recv(x, s - 1)
                x.requires_grad_()
            y = torch.tanh(layer(x))
            if s < p - 1:
                out = y.detach().clone()
                sends.append((out, dist.isend(out, s + 1)))
            saved[i] = (x, y)
            peak = max(peak, len(saved))
        else:
            x, y = saved.pop(i)
            if s == p - 1:
                loss_of(y, targets[i]).backward()
            else:
                g = torch.empty(BATCH, D)
                dist.recv(g, s + 1)
                y.backward(g)
            if s > 0:
                sends.append((x.grad, dist.isend(x.grad, s - 1)))
    for _, work in sends:
        work.wait()
    return peak


def pipeline_case(m: int, salt: int, check_grads: bool = True, check_bound: bool = True, check_order: bool = False):
    def run(sol: ModuleType, ctx: Ctx) -> Outcome:
        p, s = ctx.world, ctx.rank
        lists, problem = lists_of(sol, p, m)
        problem = problem or on_paper(lists)
        if problem:  # the same on every rank: nobody sends anything
            return fail(problem)
        layers, inputs, targets = model(ctx, p, m, salt)
        want_w, want_b = expected_grads(layers, inputs, targets, s)
        layer = layers[s]
        layer.zero_grad()
        peak = run_stage(lists[s], layer, inputs, targets, ctx)
        checks = []
        if check_grads:
            checks += [same(layer.weight.grad, want_w, f"stage {s} weight gradient (p={p}, m={m})", 1e-5, 1e-4),
                       same(layer.bias.grad, want_b, f"stage {s} bias gradient (p={p}, m={m})", 1e-5, 1e-4)]
        bound = min(m, p - s)
        if check_bound and peak > bound:
            checks.append(fail(f"stage {s} held {peak} micro-batches in flight (F done, B not yet) with p={p}, "
                               f"m={m}; 1F1B holds at most min(m, p - s) = {bound}"))
        if check_order:
            checks.append(order_matches(lists, p, m))
        return first_failure(*checks)
    return run


def order_matches(lists: list[list[tuple[str, int]]], p: int, m: int) -> Outcome:
    for s, ops in enumerate(lists):
        want = one_f_one_b(s, p, m)
        if ops != want:
            k = next(k for k, (a, b) in enumerate(zip(ops, want, strict=True)) if a != b)  # both hold 2m ops
            return fail(f"stage {s} (p={p}, m={m}): position {k} is {ops[k]}, "
                        f"1F1B runs {want[k]} there; 1F1B: {' '.join(f'{a}{i}' for a, i in want)}")
    return ok()


def each_op_once(sol: ModuleType, ctx: Ctx) -> Outcome:
    _, problem = lists_of(sol, ctx.world, 6)
    return fail(problem) if problem else ok()


def exact_order(sol: ModuleType, ctx: Ctx) -> Outcome:
    for p, m in [(4, 8), (4, 4), (4, 3), (4, 1), (3, 5), (2, 1), (1, 3)]:
        lists, problem = lists_of(sol, p, m)
        outcome = fail(problem) if problem else order_matches(lists, p, m)
        if not outcome.passed:
            return outcome
    return ok()


CASES = [
    Case("each_op_once", "p=4, m=6: every stage's list holds each micro-batch once as F and once as B, B after F",
         "Count what the list owes: m forwards and m backwards. The cool-down runs the backwards the steady "
         "state has not reached.",
         "数一数列表应有的内容：m 个前向、m 个反向。冷却阶段要把稳定阶段没做到的反向补完。",
         each_op_once),
    Case("pipeline_gradients", "p=4, m=6 on 4 ranks: no deadlock, gradients equal the whole model's",
         "A stage's first backward needs the last stage's first backward, which needs p - s - 1 more forwards "
         "from this stage first.",
         "某一级的第一个反向要等末级的第一个反向，而那需要本级先再送出 p - s - 1 个前向。",
         pipeline_case(6, salt=1, check_bound=False)),
    Case("activation_bound", "p=4, m=8: micro-batches in flight on stage s <= min(m, p - s)",
         "1F1B's point is memory: after the warm-up, every new forward is paired with a backward, so the count "
         "in flight stops growing. How many forwards should stage s run before its first backward?",
         "1F1B 的意义在于显存：预热之后，每个新的前向都配一个反向，在途的数量不再增长。第 s 级在第一个反向之前应该做"
         "几个前向？",
         pipeline_case(8, salt=2)),
    Case("fewer_microbatches_than_stages", "p=4, m=2: warm-up capped by m, run for real, the exact order",
         "The warm-up is min(p - s - 1, m): with few micro-batches a stage may have no steady state at all.",
         "预热数是 min(p - s - 1, m)：micro-batch 很少时，某一级可能根本没有稳定阶段。",
         pipeline_case(2, salt=3, check_order=True)),
    Case("exact_order", "every stage for (p, m) = (4,8) (4,4) (4,3) (4,1) (3,5) (2,1) (1,3): the exact 1F1B order",
         "Warm-up forwards, then forward of the next micro-batch before backward of the oldest, then the "
         "remaining backwards in increasing order.",
         "先做预热前向，然后下一个 micro-batch 的前向排在最早那个的反向之前，最后按编号递增做完剩下的反向。",
         exact_order),
]
