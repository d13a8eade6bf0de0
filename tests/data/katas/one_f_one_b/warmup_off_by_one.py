# expect-fail: activation_bound
"""A plausible wrong 1F1B: the warm-up runs p - s forwards instead of p - s - 1 (counting the stage itself), so
stage s holds p - s + 1 micro-batches in flight, one more than 1F1B needs."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = min(num_stages - stage, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops + [("B", i) for i in range(m - warmup, m)]
