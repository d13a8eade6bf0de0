# expect-fail: killed_mid_write
"""A plausible wrong checkpoint: torch.save straight onto the final name. A kill while it writes leaves a torn
file under the name load reads (torch.load then fails on the missing zip central directory), and the old
checkpoint is already gone: the preempted job crash-loops on restart."""
import os

import torch


def save(state, path):
    torch.save(state, path)


def load(path):
    if not os.path.exists(path):
        return None
    return torch.load(path, weights_only=True)
