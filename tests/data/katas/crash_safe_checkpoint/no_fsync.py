# expect-fail: fsync_order
"""A plausible wrong checkpoint: temp file and atomic rename, but no fsync at all. Safe against a killed process
(the page cache survives it), not against a power loss or a node crash: the rename can reach the disk before the
data, leaving the final name on an empty or partial file, and the rename itself may be lost."""
import os

import torch


def save(state, path):
    tmp = path + ".tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def load(path):
    try:
        return torch.load(path, weights_only=True)
    except FileNotFoundError:
        return None
