# expect-fail: first_save
"""A plausible wrong checkpoint: the save protocol is right, but load "helps" by falling back to the temp file
when the final name is missing, thinking a save may have been cut off just before its rename. Before the first
commit the temp file is exactly what a crash leaves half-written, so load raises instead of returning None."""
import os

import torch


def save(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def load(path):
    for candidate in (path, path + ".tmp"):
        if os.path.exists(candidate):
            return torch.load(candidate, weights_only=True)
    return None
