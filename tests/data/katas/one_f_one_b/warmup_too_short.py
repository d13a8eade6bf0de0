# expect-fail: exact_order
"""A plausible wrong 1F1B: the warm-up runs p - s - 2 forwards (off by one the other way). It runs, the gradients
are right and fewer activations are kept, but stage s starts waiting for its first gradient one forward too
early, so the pipeline idles longer: it is not 1F1B's order."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = max(0, min(num_stages - stage - 2, m))
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops + [("B", i) for i in range(m - warmup, m)]
