"""What the Labs page says about each lab, in both languages: what it is (and whether it trains for real),
its presets (a named set of option overrides on the lab's own Config), the label and help of every
option, and the names of the checks its report holds. Data only; the page draws it.

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

# Every option the page shows: field -> (zh, en) label (tests/test_lab_i18n.py keeps it complete).
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
    "rdzv_endpoint": ("rendezvous 地址", "Rendezvous endpoint"),
    "rdzv_id": ("rendezvous 作业 ID", "Rendezvous id"),
    "rdzv_conf": ("rendezvous 配置", "Rendezvous config"),
    "shutdown_timeout_s": ("关停宽限（秒）", "Shutdown grace (s)"),
    "pg_timeout_s": ("进程组超时（秒）", "Process-group timeout (s)"),
    "block": ("上下文长度（字节）", "Context length (bytes)"),
    "width": ("模型宽度", "Model width"),
    "layers": ("层数", "Layers"),
    "stop_grace_s": ("SIGTERM 后的宽限（秒）", "Stop grace after SIGTERM (s)"),
    "watchdog_s": ("watchdog 时限（秒）", "Watchdog limit (s)"),
    "watchdog_markers": ("watchdog 标记粒度", "Watchdog markers"),
    "mutation": ("故意破坏 checkpointer", "Checkpointer mutation"),
    "kill_cycles": ("连续杀死次数", "Kill cycles"),
    "micro_batches": ("每步 micro-batch 数（k）", "Micro-batches per step (k)"),
    "accum": ("梯度累积方式", "Accumulation mode"),
    "bucket_cap_mb": ("DDP 桶大小（MiB）", "Bucket cap (MiB)"),
    "optimizer": ("优化器", "Optimizer"),
    "dropout": ("dropout 比例", "Dropout"),
    "tolerance": ("允许误差", "Tolerance"),
    "timing_steps": ("计时步数", "Timing steps"),
    "dtype": ("数据类型", "Data type"),
    "ckpt_step": ("第几步后存 checkpoint", "Checkpoint after step"),
    "resume": ("运行续训作业", "Run the resume job"),
    "bucket": ("DeepSpeed 桶大小（元素数）", "Bucket size (elements)"),
    "persistence_threshold": ("ZeRO-3 不分片阈值（元素数）", "Persistence threshold (elements)"),
    "loss_tolerance": ("loss 允许误差", "Loss tolerance"),
    "microbatch_size": ("每个 micro-batch 的样本数", "Samples per micro-batch"),
    "repeats": ("计时重复次数", "Timed repeats"),
    "bubble_share": ("气泡检查的容差比例", "Bubble tolerance share"),
    "pin_cores": ("绑定 CPU 核", "Pin cores"),
    "grad_tol": ("梯度允许误差", "Gradient tolerance"),
    "gantt_m": ("甘特图的 micro-batch 数", "Gantt chart micro-batches"),
    "min_bytes": ("最小消息（字节）", "Smallest message (bytes)"),
    "max_bytes": ("最大消息（字节）", "Largest message (bytes)"),
    "factor": ("尺寸倍数", "Size factor"),
    "algorithm": ("手写算法", "Hand-written algorithm"),
    "passes": ("扫描遍数", "Sweeps"),
    "budget_s": ("每个尺寸的计时预算（秒）", "Timing budget per size (s)"),
    "min_calls": ("最少计时调用次数", "Min timed calls"),
    "max_calls": ("最多计时调用次数", "Max timed calls"),
    "atol": ("allclose 容差", "allclose tolerance"),
    "fit_tol": ("拟合允许误差", "Fit tolerance"),
    "init_scale": ("初始 loss scale", "Initial loss scale"),
    "growth_interval": ("scale 增长间隔（步）", "Scale growth interval"),
    "inject_step": ("注入溢出的步", "Overflow injected at step"),
    "inject_rank": ("注入溢出的 rank", "Overflow rank"),
    "inject_factor": ("loss 放大倍数", "Loss blow-up factor"),
    "backoff_check": ("预期的回退系数", "Expected backoff factor"),
    "tail": ("最终 loss 取最后几步", "Final-loss window (steps)"),
    "align_skips": ("对齐跳过的步", "Align skipped steps"),
    "min_nodes": ("最少节点数", "Min nodes"),
    "micro_batch": ("micro-batch 大小", "Micro-batch size"),
    "json": ("输出 JSON", "JSON output"),
    "evidence": ("证据行数", "Evidence lines"),
    "gpu_mtbf_h": ("单块 GPU 的 MTBF（小时）", "Per-GPU MTBF (h)"),
    "intervals": ("checkpoint 间隔（秒，逗号分隔）", "Checkpoint intervals (s, comma list)"),
    "points": ("间隔网格点数", "Interval grid points"),
    "failures": ("模拟的故障次数", "Failures simulated"),
    "closed_form_tol": ("闭式近似允许误差", "Closed-form tolerance"),
    "flat_tol": ("最优附近的平坦容差", "Flatness tolerance"),
    "interval_tol": ("最佳间隔允许误差", "Best-interval tolerance"),
}

# Each option's help, beside its field: key -> (zh, en); the en is the field's docstring, whitespace collapsed
# (tests/test_lab_i18n.py holds it to that). A key is the field's name, or "lab.field" where that lab's
# docstring differs from the one the other labs share.
_PEAK_LR = ("峰值学习率（AdamW），预热结束时达到。", "Peak learning rate (AdamW), reached after the warmup.")
_TIMED_WIDTH = ("模型宽度（embedding 维度）；256 及以上时 checkpoint 才大到值得计时。",
                "Model width (embedding size); 256 or more makes checkpoints big enough to time.")

HELP: dict[str, tuple[str, str]] = {
    "nproc": ("每个节点的 worker 进程数（torchrun --nproc-per-node）。",
              "Worker processes per node (torchrun --nproc-per-node)."),
    "elastic.nproc": ("每个模拟节点上的 worker 数。", "Workers per simulated node."),
    "nnodes": ("节点数，弹性作业可写成 MIN:MAX（torchrun --nnodes）。",
               "Number of nodes, or MIN:MAX for elastic jobs (torchrun --nnodes)."),
    "rdzv_endpoint": ("rendezvous 的 host:port；单节点时端口 0 表示自动挑一个空闲端口。每个节点填同一个值。",
                      "Rendezvous host:port; port 0 picks a free one on a single node. Same value on every node."),
    "rdzv_id": ("rendezvous 作业 ID：同一个作业的所有节点传同一个 ID。",
                "Rendezvous job id: every node of one job passes the same id."),
    "rdzv_conf": ("torchrun --rdzv-conf，例如 last_call_timeout=2（弹性 rendezvous 等待迟到节点的时长）。",
                  "torchrun --rdzv-conf, e.g. last_call_timeout=2 (how long an elastic rendezvous waits for late "
                  "nodes)."),
    "elastic.rdzv_conf": ("即将关闭的 rendezvous 等待迟到节点多久（torchrun 默认 30 秒）：要足够长，"
                          "让开始时所有节点都能加入；又要足够短，让存活的节点不必为已死的节点久等。",
                          "How long a closing rendezvous waits for late nodes (torchrun's default is 30 s): long "
                          "enough for all nodes to join at the start, short enough that the survivors do not wait "
                          "long for the dead one."),
    "backend": ("进程组后端：auto（有 CUDA 时用 nccl，否则用 gloo）、nccl 或 gloo。",
                "Process-group backend: auto (nccl when CUDA is available, else gloo), nccl or gloo."),
    "timeout_s": ("单个 torchrun 作业运行超过这个时长，就终止整个 lab。",
                  "Kill the whole lab if a single torchrun job runs longer than this."),
    "shutdown_timeout_s": ("torchrun --shutdown-timeout：agent 自身收到信号（抢占）时，从 SIGTERM 到 SIGKILL "
                           "的宽限时间。故障后为重启而停止 worker 时，torchrun 总是给固定的 30 秒。",
                           "torchrun --shutdown-timeout: grace between SIGTERM and SIGKILL when the agent itself is "
                           "signalled (preemption). Stopping workers for a restart after a failure always allows "
                           "torchrun's fixed 30 s."),
    "pg_timeout_s": ("进程组超时：集合通信等待缺席的对端多久（gloo 默认 30 分钟）。",
                     "Process-group timeout: how long a collective waits for a missing peer (gloo's default is 30 "
                     "min)."),
    "hang.pg_timeout_s": ("进程组超时（超过后 gloo 抛出异常）；watchdog 应当先触发。",
                          "Process-group timeout (gloo raises after it); the watchdog should fire first."),
    "seed": ("模型初始化、数据顺序和 dropout 的随机种子。", "Seed for model init, data order and dropout."),
    "cluster_sim.seed": ("故障抽样的随机种子。", "Seed of the failure draws."),
    "steps": ("整个作业的优化器步数。", "Optimizer steps in the whole job."),
    "ddp.steps": ("每个训练阶段（plain、accum、reference）的优化器步数。",
                  "Optimizer steps of each training phase (plain, accum, reference)."),
    "zero.steps": ("每种模式的优化器步数；字节数在最后一步测量（Adam 的状态从第 1 步起才存在）。",
                   "Optimizer steps per mode; bytes are measured on the last one (Adam's state exists from step 1 "
                   "on)."),
    "mixed_precision.steps": ("三次运行（fp32、bf16、fp16）各自的优化器步数。",
                              "Optimizer steps of each of the three runs (fp32, bf16, fp16)."),
    "global_batch": ("所有 rank 合计每步的样本数（必须能被 world size 整除）。",
                     "Samples per step across all ranks (must divide by the world size)."),
    "ddp.global_batch": ("所有 rank 合计每步的样本数：必须能被 world size × --micro-batches 整除。",
                         "Samples per step across all ranks: must divide by world size × --micro-batches."),
    "elastic.global_batch": ("每步的样本数：对作业经历的每一个 world size，都必须能被 micro_batch × world 整除。",
                             "Samples per step: must divide by micro_batch x world for every world size the job "
                             "passes through."),
    "lr": ("AdamW 学习率（恒定）。", "AdamW learning rate (constant)."),
    "fault_resume.lr": _PEAK_LR,
    "ddp.lr": ("学习率。", "Learning rate."),
    "hang.lr": _PEAK_LR,
    "torn_checkpoint.lr": _PEAK_LR,
    "block": ("上下文长度，以字节计。", "Context length in bytes."),
    "width": ("模型宽度（embedding 维度）。", "Model width (embedding size)."),
    "fault_resume.width": _TIMED_WIDTH,
    "pipeline.width": ("每个 Linear 层的宽度（stage 之间传送的激活是 micro-batch × width 个浮点数）。",
                       "Width of every Linear layer (the activation sent between stages is micro-batch x width "
                       "floats)."),
    "hang.width": _TIMED_WIDTH,
    "torn_checkpoint.width": _TIMED_WIDTH,
    "layers": ("Transformer 块数。", "Transformer blocks."),
    "pipeline.layers": ("整个模型中 Linear+GELU 块的数量（interleaved 调度下必须能被 p × 2 整除）。宁深勿宽：每个 "
                        "chunk 的计算量必须远大于调度在 chunk 之间做的事（约 1 ms 的 P2P 发起与唤醒，interleaved "
                        "时每步多一倍）：32 层时 interleaved 比理论值高 0.02-0.05。",
                        "Linear+GELU blocks in the whole model (must divide by p x 2 for the interleaved schedule). "
                        "Deep rather than wide: each chunk's compute must dwarf what the schedule does between "
                        "chunks (~1 ms of P2P issue and wake-ups, twice as many per step when interleaved): at 32 "
                        "layers interleaved sat 0.02-0.05 above theory."),
    "elastic.layers": ("Transformer 块数（每块各自是一个 FSDP2 单元）。",
                       "Transformer blocks (each one is its own FSDP2 unit)."),
    "warmup": ("线性预热的步数，之后余弦衰减到峰值的 10%。",
               "Linear warmup steps, then cosine decay to 10% of the peak."),
    "pipeline.warmup": ("每种调度、每个 m 先跑的不计时步数（第一步还会推断 stage 之间传送的张量形状）。",
                        "Untimed steps per schedule and m (the first one also infers the shapes sent between stages)."),
    "ckpt_every": ("每 N 步存一次 checkpoint（0：从不存，作为衡量 checkpoint 开销的基线）。",
                   "Checkpoint every N steps (0: never, the baseline that prices checkpointing)."),
    "elastic.ckpt_every": ("每 N 步存一次 DCP checkpoint。", "DCP checkpoint every N steps."),
    "ckpt_keep": ("保留最新的 K 个已提交的 checkpoint。", "Keep the newest K committed checkpoints."),
    "ckpt_mode": ("sync：训练循环自己写 checkpoint；async：先暂存到共享内存，由单独的进程写出。",
                  "sync: the loop writes the checkpoint; async: staged to shared memory, a separate process writes "
                  "it."),
    "stop_grace_s": ("收到 SIGTERM 后，若某个 rank 在这么多秒内还没走到步边界，就立即退出。",
                     "After SIGTERM, a rank that has not reached a step boundary within this many seconds exits at "
                     "once."),
    "watchdog_s": ("某个 rank 在一次集合通信里等了这么久，就结束它并给出诊断（0：关闭，只靠进程组超时）。",
                   "End a rank that has waited inside one collective this long, with a diagnosis (0: off, rely on "
                   "the process-group timeout alone)."),
    "hang.watchdog_s": ("我们自己的 watchdog 的时限：某个 rank 在一次集合通信里等了这么久，就结束作业（0：关闭）。",
                        "Our watchdog's limit: a rank waiting this long inside one collective ends the job (0: off)."),
    "watchdog_markers": ("collective：每次集合通信调用都打一个带序号的标记；phase：每个阶段只打一个标记（反例对照："
                         "它无法指出是哪个集合通信）。",
                         "collective: a marker with a sequence number at every collective call; phase: one marker "
                         "per phase (the negative control: it cannot name the collective)."),
    "fault": ("kill：用 SIGKILL 杀死一个 rank；exception：一个 rank 抛出异常；preempt：向作业发送 SIGTERM（紧急 "
              "checkpoint、干净退出、重新启动）；corrupt：截断最新的 checkpoint，然后杀死；hang："
              "在该步的集合通信之前卡住（见 labs.hang）；torn：写 checkpoint 写到一半时死掉（labs.torn_checkpoint）。",
              "kill: SIGKILL one rank; exception: one rank raises; preempt: SIGTERM to the job (emergency "
              "checkpoint, clean exit, relaunch); corrupt: truncate the newest checkpoint, then kill; hang: stall "
              "before the step's collectives (see labs.hang); torn: die halfway through a checkpoint write "
              "(labs.torn_checkpoint)."),
    "hang.fault": ("本 lab 注入的故障：一个 rank 在该步的集合通信之前卡住。",
                   "The fault this lab injects: a rank that stalls before the step's collectives."),
    "torn_checkpoint.fault": ("本 lab 注入的故障：写 checkpoint 文件写到一半时死掉。",
                              "The fault this lab injects: death halfway through a checkpoint file."),
    "fault_rank": ("出故障的 rank。", "The rank that fails."),
    "torn_checkpoint.fault_rank": ("在写入时死掉的 rank（rank 0 负责写那个大的共享文件）。",
                                   "The rank that dies while writing (rank 0 writes the big shared file)."),
    "fault_step": ("在这一步之后触发故障（如果这一步要存 checkpoint，则在存之前）。",
                   "The step after which the fault fires (before that step's checkpoint, if any)."),
    "torn_checkpoint.fault_step": ("写入被撕裂的那个 checkpoint 步（--ckpt-every 的倍数，且在第一个之后）。",
                                   "The checkpoint step whose write is torn (a multiple of --ckpt-every, after the "
                                   "first)."),
    "max_restarts": ("注入故障的作业的 torchrun --max-restarts。", "torchrun --max-restarts for the faulted job."),
    "elastic.max_restarts": ("每个 agent 的 torchrun --max-restarts。", "torchrun --max-restarts per agent."),
    "skip_state": ("续训时故意不恢复的 checkpoint 部分，逗号分隔（optimizer、scheduler、rng、data）："
                   "展示什么会破坏精确续训。",
                   "Comma list of checkpoint parts not to restore on resume, on purpose (optimizer, scheduler, rng, "
                   "data): shows what breaks an exact resume."),
    "mutation": ("故意破坏 checkpointer（一种对照）：alias（异步快照不做拷贝，在下一步之后才写出）或 "
                 "naive（没有暂存目录、没有 manifest、加载时不做检查）。",
                 "Break the checkpointer on purpose (a control): alias (async snapshot without a copy, written after "
                 "the next step) or naive (no staging folder, no manifest, loads without checking)."),
    "controls": ("运行结束后，用同一个参考再跑每个反例对照；只有每个都按设计失败才算通过。",
                 "After the run, run every negative control against the same reference; pass only if each fails as "
                 "designed."),
    "zero.controls": ("运行结束后的反例对照：把每个可续训模式中最大的已提交分片翻转一个字节（大小不变），"
                      "再启动一次它的续训作业；每个都必须因校验和不符而拒绝该 checkpoint，否则 lab 失败。",
                      "Negative controls after the run: flip one byte (same size) of each resumable mode's largest "
                      "committed shard and start its resume job again; each must refuse the checkpoint for its "
                      "checksum, or the lab fails."),
    "kill_cycles": ("耐久测试（soak）：配合 --fault kill，在前 N 次尝试中每次都再杀死该 rank（N 次重启）。",
                    "Soak: with --fault kill, kill the rank again on each of the first N attempts (N restarts)."),
    "micro_batches": ("k：梯度累积阶段每个 rank 每步的 micro-batch 数。",
                      "k: micro-batches per rank and step in the accumulation phase."),
    "accum": ("no_sync：前 k-1 次 backward 跳过 all-reduce；sync_each：每次 backward 都 all-reduce（调用变为 k 倍）。",
              "no_sync: the first k-1 backwards skip the all-reduce; sync_each: every backward all-reduces (k× "
              "calls)."),
    "bucket_cap_mb": ("DDP 的 bucket_cap_mb（MiB）。这个小 GPT 约有 0.55 MB 的 fp32 梯度：设为 0.1 会分成好几个桶。",
                      "DDP bucket_cap_mb (MiB). The tiny GPT has ~0.55 MB of fp32 gradients: 0.1 gives several "
                      "buckets."),
    "optimizer": ("sgd（动量 0.9）让浮点舍入差异保持原本那么小；adamw 用每个梯度自己的滑动幅度去除它，"
                  "可能把接近零的梯度里的舍入差异放大成一整个 lr 大小的步长（这里 --lr 0.003 时约 1e-4），"
                  "因此需要更宽松的 --tolerance。",
                  "sgd (momentum 0.9) keeps float rounding differences as small as they are; adamw divides each "
                  "gradient by its own running magnitude, which can blow a rounding difference in a near-zero "
                  "gradient up to a full lr-sized step (about 1e-4 here at --lr 0.003), so it needs a looser "
                  "--tolerance."),
    "dropout": ("模型的 dropout：设为 0 才能与单进程大 batch 的结果对比（见模块 docstring）。",
                "Dropout of the model: 0 makes one process on the big batch comparable (see the module docstring)."),
    "ddp.tolerance": ("允许的最大 max |DDP 参数 - 单进程参数|。",
                      "Largest allowed max |DDP parameter - single-process parameter|."),
    "zero.tolerance": ("每个 rank 的数值允许的 |实测 / 预期 - 1|（对齐填充、Adam 的步数计数器）。最近的错误标签也差 "
                       "2 倍（ZeRO-1 与 ZeRO-2 的梯度、ZeRO-2 与 ZeRO-3 的参数）。",
                       "Allowed |measured / expected - 1| of every rank's figure (alignment padding, Adam's step "
                       "counters). The nearest wrong label is 2x away (ZeRO-1 vs ZeRO-2 gradients, ZeRO-2 vs ZeRO-3 "
                       "parameters)."),
    "timing_steps": ("计时阶段的步数（有通信与无通信交替进行；前两步是预热）。",
                     "Steps of the timing phase (alternating with and without communication; the first two are "
                     "warm-up)."),
    "modes": ("要运行的内容，逗号分隔：ZeRO stage 0-3（DeepSpeed）和/或 fsdp2（torch fully_shard）。",
              "Comma list of what to run: ZeRO stages 0-3 (DeepSpeed) and/or fsdp2 (torch fully_shard)."),
    "dtype": ("bf16：参数和梯度用 bf16，另有 fp32 主权重与 Adam 状态（2+2+12）；fp32：全部用 fp32。",
              "bf16: bf16 params/grads with fp32 master + Adam (2+2+12); fp32: everything fp32."),
    "ckpt_step": ("stage 3 和 FSDP2 在这一步之后保存分片 checkpoint；续训作业从它开始。",
                  "Stage 3 and FSDP2 save a sharded checkpoint after this step; the resume job starts from it."),
    "resume": ("为 stage 3 和 fsdp2 运行续训作业（一个新的 torchrun 作业），并与测量作业对比。",
               "Run the resume job (a new torchrun job) for stage 3 and fsdp2 and compare it with the measure job."),
    "bucket": ("DeepSpeed 的 reduce/all-gather/prefetch 桶大小，以元素计（默认的 5e8 比这个模型大得多）。",
               "DeepSpeed reduce/all-gather/prefetch bucket size in elements (default 5e8 would dwarf this model)."),
    "persistence_threshold": ("ZeRO-3 会把元素数少于这个值的参数在每个 rank 上完整保留。DeepSpeed 的默认值 100000 "
                              "会让这个小模型的所有参数都不分片：设成它就能看到验证失败。",
                              "ZeRO-3 keeps parameters below this many elements whole on every rank. DeepSpeed's "
                              "default, 100000, keeps every parameter of the tiny model unsharded: set it to see the "
                              "verification fail."),
    "zero.loss_tolerance": ("仅用于 fp32：每种模式的 loss 必须与第一种模式的在此范围内一致（ZeRO 挪动的是字节，"
                            "不是数学）。在 bf16 下，归约顺序会让 bf16 loss 偏差几个 ulp：只报告，不检查。",
                            "fp32 only: every mode's losses must agree with the first mode's within this (ZeRO moves "
                            "bytes, not math). In bf16 the reduction order moves the bf16 loss by a few ulps: "
                            "reported, not checked."),
    "mixed_precision.loss_tolerance": ("bf16 和 fp16 允许的最大 |最终 loss - fp32 最终 loss| / fp32 最终 loss。",
                                       "Largest allowed |final loss - fp32 final loss| / fp32 final loss for bf16 "
                                       "and fp16."),
    "schedules": ("调度列表，逗号分隔：gpipe、1f1b、interleaved（ScheduleInterleaved1F1B，每个 rank 2 个 chunk）。",
                  "Comma list of schedules: gpipe, 1f1b, interleaved (ScheduleInterleaved1F1B, 2 chunks per rank)."),
    "microbatches": ("要测量的 micro-batch 数 m，逗号分隔。", "Comma list of micro-batch counts m to measure."),
    "microbatch_size": ("每个 micro-batch 的样本数，固定不变：一步的 batch 是它的 m 倍，因此每个 micro-batch "
                        "的计算量恒定。",
                        "Samples per micro-batch, fixed: a step's batch is m times this, so compute per micro-batch "
                        "is constant."),
    "repeats": ("每种调度、每个 m 的计时步数；lab 检查的是气泡的中位数（CPU 噪声会让单步往两个方向偏："
                "邻居卡顿会增加空闲时间，动作本身卡顿会增加忙碌时间）。",
                "Timed steps per schedule and m; the lab checks the median bubble (CPU noise moves single steps both "
                "ways: a stalled neighbour adds idle time, a stalled action adds busy time)."),
    "bubble_share": ("气泡检查允许 |实测中位数 - 理论值| 最多达到“该情形的理论值与最近邻情形（neighbouring_cases）"
                     "理论值之差的一半”乘以这个比例：小于 1 时，通过就意味着实测值离自己的情形比离任何邻居都近。"
                     "这个余量要容纳传输与 gloo 的唤醒（每个 chunk 约 1 ms，报告为 实测 - 回放）以及 chunk 时长不均；"
                     "p = 2、m = 8 时它是 0.023。",
                     "The bubble check allows |median measured - theory| up to this share of half the gap between "
                     "the case's theory and its nearest neighbour's (neighbouring_cases): below 1, a pass means the "
                     "measurement is nearer its own case than any neighbour. The allowance has to hold the transfers "
                     "and gloo's wake-ups (~1 ms per chunk, reported as measured - replayed) and uneven chunk "
                     "durations; for p = 2 it is 0.023 at m = 8."),
    "pin_cores": ("核数足够时，把每个 rank 的计算线程绑定到各自独占的核上（仅限 CPU），使两个 stage 不互相抢核；gloo "
                  "的线程仍可在任意核上运行。",
                  "Pin each rank's compute thread to a core of its own when there are enough (CPU only), so the two "
                  "stages do not steal each other's core; gloo's threads stay free to run on any core."),
    "grad_tol": ("每个 rank 允许的 max |grad - reference| / max |reference|：求和顺序不同，float32 "
                 "差异随深度增长（64 层时为 1.0-1.7e-5）。丢掉或重复一个 micro-batch 会差 1/m。",
                 "Allowed max |grad - reference| / max |reference|, per rank: summation order differs, and the "
                 "float32 difference grows with depth (1.0-1.7e-5 at 64 layers). A dropped or doubled micro-batch is "
                 "off by 1/m."),
    "gantt_m": ("timeline.png 中画出的 micro-batch 数。", "Micro-batch count drawn in timeline.png."),
    "min_bytes": ("扫描中最小的消息，以字节计（float32 元素：须为 4 的倍数）。",
                  "Smallest message of the sweep, in bytes (float32 elements: a multiple of 4)."),
    "max_bytes": ("扫描中最大的消息，以字节计。", "Largest message of the sweep, in bytes."),
    "factor": ("每个尺寸是前一个的多少倍。", "Each size is this many times the previous one."),
    "algorithm": ("手写的 all-reduce：ring（reduce-scatter + all-gather，每个 rank 发送 2(n-1)/n·S）或 "
                  "naive（把整个张量发给每个对端，(n-1)·S：从 n = 3 起通不过字节数检查）。",
                  "The hand-written all-reduce: ring (reduce-scatter + all-gather, 2(n-1)/n·S per rank) or naive "
                  "(whole tensor to every peer, (n-1)·S: fails the bytes check from n = 3 on)."),
    "passes": ("对所有尺寸扫描的遍数；每个尺寸取最快的那一遍（见 best_of_sweeps）。",
               "Sweeps over all sizes; each size keeps its fastest sweep (see best_of_sweeps)."),
    "budget_s": ("每个尺寸、每种算法、每遍扫描的计时预算；调用次数由一次计时的预热调用推算出来。",
                 "Timing budget per size, algorithm and sweep; the number of calls follows from one timed warm-up "
                 "call."),
    "min_calls": ("每个尺寸、每种算法最少的计时调用次数。", "Fewest timed calls per size and algorithm."),
    "max_calls": ("每个尺寸、每种算法最多的计时调用次数。", "Most timed calls per size and algorithm."),
    "atol": ("手写版与 dist.all_reduce 比较时 torch.allclose 的容差（绝对与相对）：两者以不同顺序相加同样的数，"
             "所以从 n = 3 起浮点和可能在最后几位上不同。",
             "torch.allclose tolerance (absolute and relative) of by-hand vs dist.all_reduce: both add the same "
             "numbers in a different order, so from n = 3 on the float sums may differ in the last bits."),
    "fit_tol": ("每个尺寸的 实测 / 拟合 时间都在 1 ± 这个值以内时，alpha-beta 拟合才算通过。",
                "The alpha-beta fit passes when every size's measured / fitted time is within 1 ± this."),
    "init_scale": ("GradScaler 的初始 scale：高于溢出阈值，因此最初几个 fp16 步会溢出并回退。",
                   "GradScaler's first scale: above the overflow threshold, so the first fp16 steps overflow and "
                   "back off."),
    "growth_interval": ("连续多少个无溢出的步之后，GradScaler 把 scale 翻倍（PyTorch 默认 2000）。",
                        "Clean steps in a row after which GradScaler doubles the scale (PyTorch's default is 2000)."),
    "inject_step": ("在第几个 fp16 步把一个 rank 的 loss 放大（0：不放大）。",
                    "The fp16 step at which one rank's loss is blown up (0: none)."),
    "inject_rank": ("loss 被放大的 rank。", "The rank whose loss is blown up."),
    "inject_factor": ("乘在该 rank 的 loss 上的倍数：让它的梯度在 fp16 下溢出（65504），在 fp32 下不溢出。",
                      "Factor on that rank's loss: its gradients overflow fp16 (65504) but not fp32."),
    "backoff_check": ("lab 预期溢出时 scale 乘上的系数（GradScaler 的 backoff_factor 是 0.5；换成别的值会让验证失败，"
                      "以表明它检查的是真实的 scale）。",
                      "The scale factor the lab expects on overflow (GradScaler's backoff_factor is 0.5; another "
                      "value makes the verification fail, to show it checks the real scale)."),
    "tail": ("最终 loss = 最后 N 步 loss 的平均值。", "Final loss = mean loss of the last N steps."),
    "align_skips": ("凡是 fp16 溢出的步，fp32 和 bf16 也跳过优化器步，这样三次运行施加相同的更新、只在精度上不同；"
                    "--no-align-skips 则让它们照常训练，fp16 落在后面。",
                    "fp32 and bf16 skip the optimizer step wherever fp16 overflowed, so all three runs apply the "
                    "same updates and differ only in precision; --no-align-skips lets them train on and fp16 lag "
                    "behind."),
    "nodes": ("模拟的节点数：加入同一个 rendezvous 的各自独立的 torchrun agent。",
              "Simulated nodes: separate torchrun agents joining one rendezvous."),
    "min_nodes": ("torchrun --nnodes MIN:MAX：只要还剩至少 MIN 个节点，作业就继续。",
                  "torchrun --nnodes MIN:MAX: the job goes on while at least MIN nodes are left."),
    "lose_node": ("永久死掉的节点（它的 agent 和 worker）。",
                  "The node that dies for good (its agent and its workers)."),
    "lose_at_step": ("该节点在这一步之后死掉。", "The step after which that node dies."),
    "micro_batch": ("每次 forward/backward 的样本数；累积次数 = global_batch / (micro_batch × world)。",
                    "Samples per forward/backward; accumulation = global_batch / (micro_batch x world)."),
    "log": ("要读的日志：一个文件（worker 的 stderr.log、torchrun 的 agent.log、dmesg）或一个目录（其中所有 *.log）。",
            "The log to read: a file (worker stderr.log, torchrun agent.log, dmesg) or a folder (every *.log in it)."),
    "json": ("在 stdout 上以 JSON 打印报告，而不是表格。", "Print the report as JSON on stdout instead of the tables."),
    "evidence": ("显示多少行证据。", "How many evidence lines to show."),
    "gpus": ("要模拟的作业规模（GPU 数），逗号分隔，每个画一条曲线。",
             "Comma list of job sizes (GPUs) to simulate, one curve each."),
    "gpu_mtbf_h": ("每块 GPU 的有效 MTBF（小时）；默认值来自 Llama 3 405B：16,384 块 GPU，54 天内中断 419 次。",
                   "Effective per-GPU MTBF in hours; default from Llama 3 405B: 16,384 GPUs, 419 interruptions in 54 "
                   "days."),
    "ckpt_cost_s": ("C：写一个 checkpoint 时训练被阻塞的秒数。",
                    "C: seconds training is blocked to write one checkpoint."),
    "restart_cost_s": ("R：从故障到训练重新跑起来的秒数（重新调度、初始化、加载 checkpoint）。",
                       "R: seconds from a failure until training runs again (reschedule, init, load the checkpoint)."),
    "intervals": ("要扫描的 checkpoint 间隔（两次 checkpoint 之间的训练秒数），逗号分隔；默认是一个对数网格，"
                  "从最小的 Young/Daly 间隔的四分之一到最大的四倍。",
                  "Comma list of checkpoint intervals (seconds of training between checkpoints) to sweep; default a "
                  "log grid from a quarter of the smallest Young/Daly interval to four times the largest."),
    "points": ("默认间隔网格的点数。", "Points of the default interval grid."),
    "failures": ("每种 GPU 数要模拟的故障次数：模拟时长为这么多个作业 MTBF。",
                 "Failures to simulate per GPU count: the simulated time is this many job MTBFs."),
    "closed_form_tol": ("间隔在 [YD/2, 2*YD] 内时，模拟值与一阶近似的 goodput 之差 |simulated - first-order| 的上限："
                        "一阶近似丢掉了 (C/tau)^2、(tau/M)^2、(R/M)^2 这类项，默认参数下 16,384 块 GPU "
                        "在该区间内最多差约 0.017。",
                        "Largest allowed |simulated - first-order| goodput for intervals in [YD/2, 2*YD]: first "
                        "order drops terms like (C/tau)^2, (tau/M)^2 and (R/M)^2, up to ~0.017 there for 16,384 GPUs "
                        "with the defaults."),
    "flat_tol": ("Young/Daly 间隔处的 goodput 最多可以比模拟出的最优值低这么多。",
                 "Goodput at the Young/Daly interval may be at most this far below the simulated best."),
    "interval_tol": ("模拟出的最佳间隔与 Young/Daly 间隔的相对距离必须在此以内。",
                     "The simulated best interval must be within this relative distance of Young/Daly."),
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


def help_text(lab: str, field: str, lang: str) -> str | None:
    """The option's help: the lab's own entry ("lab.field") first, then the field's shared one."""
    return pick(HELP, f"{lab}.{field}", lang) or pick(HELP, field, lang)


def presets(lab: str) -> list[Preset]:
    """The lab's presets; a lab without any gets one: its defaults."""
    return PRESETS.get(lab) or [Preset("default", "默认设置", "Default settings")]


def describe(lab: str, lang: str) -> str | None:
    entry = LABS.get(lab)
    return None if entry is None else entry[1 if lang == "zh" else 2]


def check_name(key: str, lang: str) -> str:
    return pick(CHECKS, key, lang) or key
