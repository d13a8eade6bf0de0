# expect-fail: activation_bound
"""A plausible wrong 1F1B: the GPipe order, every forward and then every backward. It runs and the gradients
are right, but stage s keeps all m micro-batches' activations alive instead of at most p - s."""


def schedule(stage, num_stages, num_microbatches):
    return [("F", i) for i in range(num_microbatches)] + [("B", i) for i in range(num_microbatches)]
