from labs.kata.catalog import Kata

KATA = Kata("loss_scaler", "Dynamic loss scaler for data-parallel fp16", "手写数据并行 fp16 的动态 loss scaler",
            nproc=2, questions=("code-dynamic-loss-scaler", "mp-dynamic-loss-scaling"), order=9)
