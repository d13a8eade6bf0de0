from labs.kata.catalog import Kata

KATA = Kata("ddp_bucketing", "DDP gradient bucketing with all-reduce during backward",
            "手写 DDP 梯度分桶：反向过程中发起 all-reduce", nproc=2,
            questions=("code-ddp-gradient-bucketing", "dp-ddp-bucketing-overlap"), order=3)
