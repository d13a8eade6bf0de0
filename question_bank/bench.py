"""`python -m question_bank bench`: search latency on the real bank and on a 10,000-question synthetic one."""

from __future__ import annotations

import random
import statistics
import time

from question_bank.loader import Bank
from question_bank.schema import Answer, BilingualAnswer, Question, Text, TopicFile
from question_bank.search import Index, tokenize
from question_bank.taxonomy import load_taxonomy

# Interview-style phrasings on top of the taxonomy's own skill names, mixing the two languages as users do.
PHRASES = [
    "断点续训", "checkpoint resume", "流水线并行的气泡怎么算", "pipeline bubble 1F1B", "ZeRO-3 显存",
    "ZeRO stage memory per GPU", "NCCL timeout 排查", "千卡训练 卡死", "all-reduce 通信量",
    "ring all-reduce bandwidth", "fp16 loss scaling", "bf16 和 fp16 的区别", "弹性训练 torchrun rendezvous",
    "elastic training node failure", "how to debug a hang in NCCL", "掉卡之后怎么恢复", "MFU 怎么算",
    "6ND training FLOPs", "激活重计算 显存", "activation checkpointing memory", "张量并行 all-reduce 次数",
    "tensor parallel Megatron", "FSDP2 fully_shard", "DeepSpeed ZeRO offload", "检查点 保存 频率 Young Daly",
    "checkpoint interval MTBF", "梯度累积 no_sync", "gradient accumulation micro-batch",
    "STAR 项目经历 量化结果", "design a training platform for 1000 GPUs",
]


def queries() -> list[str]:
    """About 100 queries: every skill's zh and en name, then the phrases above."""
    skills = load_taxonomy().skills.values()
    return [s.zh for s in skills] + [s.en for s in skills] + PHRASES


def synthetic_bank(bank: Bank, n: int = 10_000, seed: int = 0) -> Bank:
    """`n` questions recombined from real ones: the question texts of two, their answer parts and tags."""
    rng = random.Random(seed)
    real = bank.questions
    made: dict[str, list[Question]] = {}
    for i in range(n):
        a, b = rng.choice(real), rng.choice(real)
        q = a.model_copy(update={
            "id": f"synthetic-{i}",
            "tags": list(dict.fromkeys(a.tags + b.tags)),
            "question": Text(zh=f"{a.question.zh} {b.question.zh}", en=f"{a.question.en} {b.question.en}"),
            "answer": BilingualAnswer(zh=_mix(a.answer.zh, b.answer.zh, rng),
                                      en=_mix(a.answer.en, b.answer.en, rng)),
            "key_points": a.key_points + b.key_points,
        })
        made.setdefault(bank.topic_of[a.id], []).append(q)
    return Bank({name: TopicFile.model_construct(topic=name, title=bank.topics[name].title, questions=qs)
                 for name, qs in made.items()})


def _mix(a: Answer, b: Answer, rng: random.Random) -> Answer:
    parts = a.parts + b.parts
    return Answer(essence=a.essence, parts=rng.sample(parts, k=min(len(parts), 6)))


def measure(bank: Bank, qs: list[str], rounds: int = 3) -> tuple[float, float]:
    """(index build seconds, p95 query milliseconds over `rounds` passes of `qs`)."""
    start = time.perf_counter()
    index = Index(bank)
    build = time.perf_counter() - start
    latencies = []
    for _ in range(rounds):
        for q in qs:
            start = time.perf_counter()
            index.search(q, k=10)
            latencies.append((time.perf_counter() - start) * 1000)
    return build, statistics.quantiles(latencies, n=20)[-1]


def run(bank: Bank, n: int = 10_000) -> str:
    qs = queries()
    tokenize("预热")  # load jieba's dictionary first, so the build times below are indexing only
    lines = [f"{len(qs)} queries (zh and en), 3 passes each; p95 of all query times"]
    for name, b in (("real bank", bank), ("synthetic bank", synthetic_bank(bank, n))):
        build, p95 = measure(b, qs)
        lines.append(f"{name:15} {len(b.questions):6} questions  "
                     f"index build {build:6.2f} s  p95 query {p95:6.2f} ms")
    return "\n".join(lines)
