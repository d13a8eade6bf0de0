from labs.kata.catalog import Kata

KATA = Kata("zero1_step", "ZeRO-1: Adam with sharded optimizer state", "ZeRO-1：优化器状态分片的 Adam",
            nproc=3, questions=("code-zero1-optimizer-step",), order=4)
