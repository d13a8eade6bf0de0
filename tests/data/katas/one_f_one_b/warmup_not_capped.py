# expect-fail: fewer_microbatches_than_stages
"""A plausible wrong 1F1B: the warm-up is p - s - 1 forwards without the cap at m, so with fewer micro-batches
than stages the first stages schedule forwards of micro-batches that do not exist."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = num_stages - stage - 1
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops + [("B", i) for i in range(max(0, m - warmup), m)]
