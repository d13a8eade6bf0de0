from labs.kata.catalog import Kata

KATA = Kata("moe_dispatch", "MoE token dispatch and combine with all_to_all_single",
            "用 all_to_all_single 实现 MoE 的 token 分发与回收", nproc=4,
            questions=("code-moe-alltoall-dispatch", "tp-expert-parallel"), order=11)
