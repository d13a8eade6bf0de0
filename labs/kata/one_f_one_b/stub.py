"""Kata: the 1F1B pipeline schedule · 1F1B 流水线调度

Write `schedule(stage, num_stages, num_microbatches)`: the operations one stage of a pipeline runs, in order,
under the non-interleaved 1F1B schedule (PipeDream-Flush, as in Megatron-LM), as a list of ("F", i) and
("B", i): the forward and the backward of micro-batch i. 1F1B runs a warm-up of forwards, then alternates one
forward and one backward, then finishes the remaining backwards (the cool-down).

Given: num_stages p >= 1, 0 <= stage < p, num_microbatches m >= 1, possibly smaller than p. The function is pure
(it must not communicate or depend on the rank): the judge calls it for every stage. The judge runs the lists
on a real pipeline, one stage per rank (rank = stage): each stage is a small Linear + tanh, ("F", i) receives
micro-batch i's activation from stage - 1 and sends its output to stage + 1, ("B", i) receives the gradient
from stage + 1 and sends the input's gradient to stage - 1. Messages carry no micro-batch number: they pair up
in the order they are sent.
Must hold: every micro-batch appears exactly once as "F" and once as "B", its B after its F, nothing else; the
pipeline runs without deadlock and every stage's parameter gradients equal those of the whole model on one
process, summed over the micro-batches; at any moment stage s holds at most min(m, p - s) micro-batches whose
F is done and whose B is not (1F1B's activation bound; GPipe holds m); the order is exactly 1F1B's.

实现 `schedule(stage, num_stages, num_microbatches)`：返回流水线某一级在非交错 1F1B 调度（PipeDream-Flush，与
Megatron-LM 相同）下依次执行的操作列表，元素为 ("F", i) 和 ("B", i)，即 micro-batch i 的前向和反向。1F1B 先做
若干个前向预热，然后交替执行一个前向、一个反向，最后做完剩下的反向（冷却）。
已知：级数 p >= 1，0 <= stage < p，micro-batch 数 m >= 1，可能小于 p。该函数是纯函数（不能通信，也不能依赖
rank）：评测会对每一级都调用它。评测在真实流水线上执行这些列表，每个 rank 一级（rank = stage）：每级是一个小的
Linear + tanh，("F", i) 从 stage - 1 接收 micro-batch i 的激活，把输出发给 stage + 1；("B", i) 从 stage + 1 接收
梯度，把输入的梯度发给 stage - 1。消息不带 micro-batch 编号，只按发送顺序配对。
要求：每个 micro-batch 恰好出现一次 "F" 和一次 "B"，B 在它的 F 之后，没有别的元素；流水线不死锁，每一级的参数梯度
等于单进程上整个模型对所有 micro-batch 求和的梯度；任一时刻第 s 级已做完 F、还没做 B 的 micro-batch 最多
min(m, p - s) 个（1F1B 的激活上界；GPipe 要保留 m 个）；顺序与 1F1B 完全一致。
"""


def schedule(stage: int, num_stages: int, num_microbatches: int) -> list[tuple[str, int]]:
    raise NotImplementedError("your 1F1B order goes here")
