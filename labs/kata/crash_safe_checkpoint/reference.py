"""Reference: crash-safe checkpoint save and load (temp file, fsync, atomic rename, fsync of the folder).

A reader must only ever see a complete old file or a complete new one. So the new bytes go to a temporary
file in the same folder (rename is atomic only within one file system), which is flushed and fsynced before
os.replace puts it onto `path` in one step: a kill before the rename leaves the old file untouched, a kill
after it leaves the new, complete one. The fsync before the rename makes sure that, after a power loss, the
name never points at data that was still in the page cache; the fsync of the folder afterwards makes the
rename itself durable. `load` reads `path` and nothing else, so temp files from crashed saves never count.
"""

import os
import tempfile

import torch


def fsync_dir(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY)  # a directory is fsynced through a read-only descriptor
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save(state: dict[str, torch.Tensor], path: str) -> None:
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    # A unique temp name: a leftover of an earlier crash (same prefix) neither blocks nor confuses this save.
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(state, f)
            f.flush()  # Python's buffer -> the kernel
            os.fsync(f.fileno())  # the kernel's page cache -> the disk, before the name can point at it
        os.replace(tmp, path)  # atomic: `path` is the old file or the new one, never a mix
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(folder)  # the rename is a change to the folder: make it durable too


def load(path: str) -> dict[str, torch.Tensor] | None:
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        return None  # nothing was ever committed; temp files are never a fallback
