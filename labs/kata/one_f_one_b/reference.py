"""Reference: the non-interleaved 1F1B order of one stage.

Stage s must have sent p - s - 1 activations down the pipeline before the first gradient can come back from
the last stage, so it warms up with that many forwards (fewer when m is smaller). From then on each forward is
paired with the oldest backward, which keeps p - s micro-batches in flight at most, whatever m is. When the
forwards run out, the backwards still owed are the cool-down.
"""


def schedule(stage: int, num_stages: int, num_microbatches: int) -> list[tuple[str, int]]:
    m = num_microbatches
    warmup = min(num_stages - stage - 1, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):  # steady state: forward of the next micro-batch, backward of the oldest
        ops += [("F", warmup + i), ("B", i)]
    ops += [("B", i) for i in range(m - warmup, m)]  # cool-down: the backwards not yet run
    return ops
