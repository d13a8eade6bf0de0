from labs.kata.catalog import Kata

KATA = Kata("crash_safe_checkpoint", "Crash-safe checkpoint save and load", "崩溃安全的检查点保存与加载",
            nproc=2, questions=("code-atomic-checkpoint-writer", "ckpt-truncated-file-debug"), order=7)
