from labs.kata.catalog import Kata

KATA = Kata("column_row_parallel", "Tensor-parallel MLP: column-parallel then row-parallel",
            "张量并行 MLP：先列并行、再行并行", nproc=2,
            questions=("code-column-row-parallel-linear", "tp-megatron-mlp-attention"), order=5)
