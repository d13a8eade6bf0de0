"""Kata: crash-safe checkpoint save and load · 崩溃安全的检查点保存与加载

Write `save(state, path)` and `load(path)`. A training job may be killed (SIGKILL, a preemption) at any
instant, also while it is saving; whatever moment that is, the next start must load a whole checkpoint.

Given: `state` is a dict of name -> CPU tensor (a few KB; float32, bfloat16, int64); `path` is a file name
in a folder that may already hold a committed checkpoint and leftovers of earlier crashed saves (stray temp
files, torn ones, newer than the checkpoint). Every rank uses a folder of its own; there is no communication.
Must hold: `load(path)` returns the last committed state bit-exact (same keys, dtypes, shapes, values), or
None when nothing was ever committed, and it never raises. The judge kills a real child process inside
`save(new, path)` while torch.save is writing (half the bytes are out), just before os.replace/os.rename runs
and just after it; afterwards `load(path)` must return the previous state or the new one, never a torn file.
The file is fsynced before it is renamed onto `path`, and its folder is fsynced after the rename. A first
save with nothing before it, and a save after a crash, work like any other. Serialise with torch.save and
commit with os.replace or os.rename (the judge's kill points hook them, and os.fsync).

实现 `save(state, path)` 和 `load(path)`。训练任务可能在任何时刻被杀掉（SIGKILL、抢占），保存检查点时也不例外；不论在哪
一刻被杀，下次启动都必须加载到一个完整的检查点。
已知：`state` 是名字 -> CPU 张量的字典（几 KB；float32、bfloat16、int64）；`path` 是一个文件名，所在目录里可能已有一个
已提交的检查点，以及以前保存崩溃时留下的残余（零散的临时文件、写了一半的文件，比检查点还新）。每个 rank 用自己的目录，
不需要通信。
要求：`load(path)` 逐位精确地返回最后一次提交的状态（键、dtype、形状、数值都相同）；从未提交过时返回 None；并且永远不抛
异常。评测会在真实的子进程里执行 `save(new, path)`，并在三个时刻杀掉它：torch.save 写到一半时（已写出一半字节）、
os.replace/os.rename 执行前一刻、执行后一刻；之后 `load(path)` 必须返回旧状态或新状态，绝不能是写坏的文件。文件在被改名
为 `path` 之前要 fsync，改名之后要 fsync 它所在的目录。之前什么都没有的第一次保存、崩溃之后的再次保存，都要和平常一样
工作。用 torch.save 序列化，用 os.replace 或 os.rename 提交（评测的杀进程点挂在它们和 os.fsync 上）。
"""

import os

import torch


def save(state: dict[str, torch.Tensor], path: str) -> None:
    folder, name = os.path.split(os.path.abspath(path))
    raise NotImplementedError("write state so that a kill at any point leaves the old or the new checkpoint")


def load(path: str) -> dict[str, torch.Tensor] | None:
    raise NotImplementedError("return the last committed state, or None")
