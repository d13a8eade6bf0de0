# expect-fail: pipeline_gradients
"""A plausible wrong 1F1B: the warm-up count is the stage index instead of p - stage - 1, so the first stage
waits for a gradient after one forward while the second still waits for its second activation: a deadlock."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = min(stage, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops + [("B", i) for i in range(m - warmup, m)]
