# expect-fail: each_op_once
"""A plausible wrong 1F1B: warm-up and steady state are right, but the cool-down is forgotten, so the last
backwards of every stage but the last are never run."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = min(num_stages - stage - 1, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops
