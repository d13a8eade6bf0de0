# expect-fail: pipeline_gradients
"""A plausible wrong 1F1B: the cool-down runs the remaining backwards newest first, as GPipe's backward pass is
often drawn. The cool-downs of neighbouring stages differ in length, so a stage sends its gradients in another
micro-batch order than the stage before it receives them: messages pair up in send order, and the gradients
land on the wrong micro-batches (same shapes, no error on a real cluster, just wrong gradients)."""


def schedule(stage, num_stages, num_microbatches):
    m = num_microbatches
    warmup = min(num_stages - stage - 1, m)
    ops = [("F", i) for i in range(warmup)]
    for i in range(m - warmup):
        ops += [("F", warmup + i), ("B", i)]
    return ops + [("B", i) for i in reversed(range(m - warmup, m))]
