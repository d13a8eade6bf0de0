from labs.kata.catalog import Kata

KATA = Kata("reduce_scatter_allgather", "Reduce-scatter and all-gather from send/recv",
            "用 send/recv 分别手写 reduce-scatter 和 all-gather", nproc=3,
            questions=("code-reduce-scatter-all-gather",), order=2)
