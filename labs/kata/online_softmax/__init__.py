from labs.kata.catalog import Kata

KATA = Kata("online_softmax", "Ring attention with the online softmax", "用 online softmax 手写 ring attention",
            nproc=3, questions=("code-online-softmax", "cp-ring-attention-basics"), order=10)
