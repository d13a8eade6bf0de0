"""What the Labs page says about each lab, in both languages: what it is (and whether it trains for real),
its presets (a named set of option overrides on the lab's own Config), the labels of the options a user
changes most, and the names of the checks its report holds. Data only; the page draws it.

A preset never bypasses anything: the page builds the lab's Config from it and runs the lab's own
`check_config` before launching, exactly as for options typed by hand (tests/test_app_labs.py runs every
preset through that check).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TORCHRUN, SIMULATION, READER = "torchrun", "simulation", "reader"

# lab -> (kind, zh, en). The kind decides the page's one-line claim about how it runs.
LABS: dict[str, tuple[str, str, str]] = {
    "fault_resume": (TORCHRUN, "在训练中途杀死、抢占或损坏一个 DDP 作业，恢复后逐张量证明续训与无故障参考完全一致。",
                     "Kill, preempt or corrupt a DDP job mid-run, resume, and prove it tensor by tensor "
                     "identical to a fault-free reference."),
    "ddp": (TORCHRUN, "N 个 rank 的 DDP 等于单进程 N 倍 batch；分桶、no_sync 梯度累积与通信占比。",
            "DDP on N ranks equals one process on the N-times batch; buckets, no_sync accumulation, comm share."),
    "zero": (TORCHRUN, "DeepSpeed ZeRO 0-3 与 FSDP2：从张量实测每个 rank 的字节数，对比 2+2+12 公式。",
             "DeepSpeed ZeRO 0-3 and FSDP2: bytes per rank measured from the tensors vs the 2+2+12 formula."),
    "pipeline": (TORCHRUN, "GPipe 与 1F1B：实测流水线气泡，对比 (p-1)/(m+p-1)，并画甘特图。",
                 "GPipe vs 1F1B: measured pipeline bubble vs (p-1)/(m+p-1), with a Gantt chart."),
    "allreduce": (TORCHRUN, "手写 ring all-reduce 对比 dist.all_reduce：发送字节数、algbw/busbw 与 alpha-beta 拟合。",
                  "Ring all-reduce by hand vs dist.all_reduce: bytes sent, algbw/busbw, alpha-beta fit."),
    "mixed_precision": (TORCHRUN, "bf16 autocast 与 fp16 loss scaling：跳过一次溢出、scale 自适应、"
                                  "与 fp32 的 loss 对比。",
                        "bf16 autocast and fp16 loss scaling: an overflow skipped, the scale adapting, loss vs fp32."),
    "hang": (TORCHRUN, "一个 rank 在集合通信前卡住：超时与 watchdog 指出是哪个 rank、哪个操作，torchrun 重启。",
             "One rank stalls before a collective: the timeout and watchdog name the rank and op; torchrun "
             "restarts."),
    "elastic": (TORCHRUN, "永久失去一个节点：3 → 2 个 worker，重分片 checkpoint，用梯度累积保持全局 batch。",
                "Lose a node for good: 3 -> 2 workers, resharded checkpoint, global batch kept by accumulation."),
    "torn_checkpoint": (TORCHRUN, "在写 checkpoint 的中途杀死进程：写了一半的文件永远不会被加载。",
                        "Kill the process in the middle of a checkpoint write: the torn files are never loaded."),
    "diagnose": (READER, "读一份故障日志（OOM、超时、连接重置、ECC、CUDA 错误……），判断类别并给出下一步。",
                 "Read a failure log (OOM, timeout, connection reset, ECC, CUDA error...), classify it, say what "
                 "to do next."),
    "cluster_sim": (SIMULATION, "模拟 1k-16k GPU 作业的故障：goodput 随 checkpoint 间隔的变化，对比 Young/Daly。",
                    "Simulate a 1k-16k GPU job's failures: goodput vs checkpoint interval against Young/Daly."),
}

# The page's claim per kind: only the torchrun labs are "real multi-process PyTorch training".
KIND_TEXT: dict[str, tuple[str, str]] = {
    TORCHRUN: ("真实的多进程 PyTorch 训练（torchrun 启动，CPU 上即可运行）。",
               "Real multi-process PyTorch training (launched by torchrun; runs on CPU)."),
    SIMULATION: ("进程内的数值模拟（numpy，固定随机种子），不启动训练进程。",
                 "An in-process numerical simulation (numpy, seeded); no training processes."),
    READER: ("只读取日志文本，不启动任何进程。", "Reads log text only; starts no process."),
}


@dataclass(frozen=True)
class Preset:
    id: str
    zh: str
    en: str
    overrides: dict[str, Any] = field(default_factory=dict)


QUICK_FAULT = {"steps": 4, "global_batch": 4, "ckpt_every": 2, "fault_step": 2, "warmup": 1}  # the cheapest run

PRESETS: dict[str, list[Preset]] = {
    "fault_resume": [
        Preset("kill", "在第 12 步杀死 rank 1", "Kill rank 1 at step 12", {"fault": "kill", "fault_rank": 1,
                                                                             "fault_step": 12}),
        Preset("preempt", "抢占（SIGTERM）：紧急保存，零丢失步", "Preempt (SIGTERM): emergency save, no lost step",
               {"fault": "preempt"}),
        Preset("corrupt", "最新 checkpoint 损坏：回退到上一个", "Corrupt the newest checkpoint: fall back",
               {"fault": "corrupt"}),
        Preset("skip_rng", "不恢复 RNG（验证应当失败）", "Do not restore RNG (verification must fail)",
               {"skip_state": "rng"}),
        Preset("quick", "快速版：4 步，第 2 步杀死 rank 1", "Quick: 4 steps, kill rank 1 after step 2", QUICK_FAULT),
    ],
    "torn_checkpoint": [Preset("torn", "写 checkpoint 时被杀（torn checkpoint）",
                               "Killed mid-write (torn checkpoint)")],
    "hang": [Preset("hang", "rank 1 在集合通信前卡住", "Rank 1 stalls before a collective")],
    "elastic": [Preset("lose_node", "失去一个节点：3 → 2", "Lose a node: 3 -> 2")],
    "ddp": [Preset("default", "推荐设置", "Recommended settings")],
    "zero": [Preset("default", "ZeRO 0-3 与 FSDP2 全部对比", "Every ZeRO stage and FSDP2"),
             Preset("zero3", "只看 ZeRO-3", "ZeRO-3 only", {"modes": "3"})],
    "pipeline": [Preset("default", "GPipe、1F1B 与 interleaved 对比", "GPipe, 1F1B and interleaved")],
    "allreduce": [Preset("default", "1 KB 到 16 MB 扫描", "Sweep 1 KB to 16 MB")],
    "mixed_precision": [Preset("default", "推荐设置", "Recommended settings")],
    "cluster_sim": [
        Preset("default", "1k / 4k / 16k GPU", "1k / 4k / 16k GPUs"),
        Preset("16k", "16k GPU，checkpoint 30 秒、重启 300 秒", "16k GPUs, 30 s checkpoints, 300 s restarts",
               {"gpus": "16384", "ckpt_cost_s": 30.0, "restart_cost_s": 300.0}),
    ],
    "diagnose": [
        Preset("nccl_timeout", "示例：NCCL 超时日志", "Sample: an NCCL timeout log",
               {"log": "tests/data/logs/samples/nccl_timeout/stderr.log"}),
        Preset("cuda_oom", "示例：CUDA OOM 日志", "Sample: a CUDA OOM log",
               {"log": "tests/data/logs/samples/cuda_oom/stderr.log"}),
    ],
}

# The options people change most: field -> (zh, en). Others keep the field's name and its English docstring.
FIELDS: dict[str, tuple[str, str]] = {
    "steps": ("训练步数", "Training steps"),
    "global_batch": ("全局 batch", "Global batch"),
    "lr": ("学习率", "Learning rate"),
    "warmup": ("预热步数", "Warmup steps"),
    "ckpt_every": ("每隔几步存 checkpoint", "Checkpoint every N steps"),
    "ckpt_keep": ("保留最近几个 checkpoint", "Checkpoints kept"),
    "ckpt_mode": ("checkpoint 方式（同步 / 异步）", "Checkpoint mode (sync / async)"),
    "fault": ("故障类型", "Fault"),
    "fault_rank": ("出故障的 rank", "Failing rank"),
    "fault_step": ("第几步后出故障", "Fault after step"),
    "max_restarts": ("最多重启次数", "Max restarts"),
    "skip_state": ("续训时故意不恢复的部分", "State not restored on resume (on purpose)"),
    "controls": ("再跑一遍反例对照", "Also run the negative controls"),
    "nproc": ("每个节点的进程数", "Processes per node"),
    "nnodes": ("节点数", "Nodes"),
    "backend": ("通信后端", "Backend"),
    "timeout_s": ("整体超时（秒）", "Overall timeout (s)"),
    "seed": ("随机种子", "Seed"),
    "modes": ("要比较的模式", "Modes to compare"),
    "gpus": ("GPU 数（逗号分隔）", "GPU counts (comma list)"),
    "ckpt_cost_s": ("一次 checkpoint 的耗时（秒）", "Checkpoint cost (s)"),
    "restart_cost_s": ("一次重启的耗时（秒）", "Restart cost (s)"),
    "log": ("日志文件或目录", "Log file or folder"),
    "nodes": ("初始节点数", "Nodes at start"),
    "lose_node": ("失去的节点", "Node lost"),
    "lose_at_step": ("第几步失去节点", "Lose it at step"),
    "schedules": ("流水线调度", "Pipeline schedules"),
    "microbatches": ("micro-batch 数", "Micro-batches"),
}

# Check names in reports: key -> (zh, en). Unknown ones are shown as their key.
CHECKS: dict[str, tuple[str, str]] = {
    "fault_fired": ("故障确实发生了", "The fault fired"),
    "worker_exit_seen": ("agent 看到了 worker 退出", "The agent saw a worker exit"),
    "restarts_match_faults": ("重启次数与故障次数一致", "Restarts match the faults"),
    "resumed_from_newest_good": ("从最新的完好 checkpoint 恢复", "Resumed from the newest good checkpoint"),
    "lost_steps_as_implied": ("丢失的步数与推算一致", "Lost steps as implied"),
    "job_completed": ("作业跑完了", "The job completed"),
    "checkpoint_loads_clean": ("checkpoint 加载无错", "Checkpoints load cleanly"),
    "bit_exact": ("最终状态逐位一致", "Final state bit-exact"),
    "losses_identical": ("每步 loss 一致", "Every step's loss identical"),
    "recomputed_steps_identical": ("重算的步结果一致", "Recomputed steps identical"),
    "samples_identical": ("每步样本一致", "Every step's samples identical"),
    "samples_exactly_once": ("每个样本恰好用一次", "Every sample used exactly once"),
    "lost_steps_within_bound": ("丢失步数在上限内", "Lost steps within the bound"),
    "no_reconnect_errors": ("没有重连错误", "No reconnect errors"),
    "corrupt_checkpoint_skipped": ("跳过了损坏的 checkpoint", "The corrupt checkpoint was skipped"),
    "controls_fail_as_designed": ("反例对照都按设计失败", "Every negative control failed as designed"),
}


def pick(table: dict[str, tuple[str, str]], key: str, lang: str) -> str | None:
    entry = table.get(key)
    return None if entry is None else entry[0 if lang == "zh" else 1]


def presets(lab: str) -> list[Preset]:
    """The lab's presets; a lab without any gets one: its defaults."""
    return PRESETS.get(lab) or [Preset("default", "默认设置", "Default settings")]


def describe(lab: str, lang: str) -> str | None:
    entry = LABS.get(lab)
    return None if entry is None else entry[1 if lang == "zh" else 2]


def check_name(key: str, lang: str) -> str:
    return pick(CHECKS, key, lang) or key
