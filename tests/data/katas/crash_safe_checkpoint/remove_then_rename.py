# expect-fail: killed_before_rename
"""A plausible wrong checkpoint: it removes the old file before renaming the new one into place (a habit from
Windows, where os.rename refuses to overwrite). Between the remove and the rename there is no checkpoint at all:
a kill there leaves nothing to load, although a whole one was committed before."""
import os

import torch


def save(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    if os.path.exists(path):
        os.remove(path)
    os.rename(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def load(path):
    if not os.path.exists(path):
        return None
    return torch.load(path, weights_only=True)
