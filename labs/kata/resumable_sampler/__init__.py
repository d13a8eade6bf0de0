from labs.kata.catalog import Kata

KATA = Kata("resumable_sampler", "Resumable distributed sampler", "可续训的分布式采样器",
            nproc=3, questions=("code-resumable-distributed-sampler", "dataresume-set-epoch-debug"), order=8)
