from labs.kata.catalog import Kata

KATA = Kata("ring_allreduce", "Ring all-reduce (average) from send/recv", "用 send/recv 手写 ring all-reduce（求平均）",
            nproc=3, questions=("code-ring-allreduce-send-recv", "code-ring-allreduce-debug"), order=1)
