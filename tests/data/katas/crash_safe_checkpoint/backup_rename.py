# expect-fail: killed_after_rename
"""A plausible wrong checkpoint: it keeps the previous checkpoint as .bak by renaming it away first, then renames
the new file into place: two renames, not one. A kill between them leaves no file under the final name, and load
(which reads only that name) finds nothing, although two whole checkpoints sit on disk."""
import os

import torch


def save(state, path):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    if os.path.exists(path):
        os.replace(path, path + ".bak")
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def load(path):
    if not os.path.exists(path):
        return None
    return torch.load(path, weights_only=True)
