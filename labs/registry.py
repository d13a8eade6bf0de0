"""The labs `python -m labs.run` knows: name -> one-line description. Each lab lives in `labs/<name>.py`.

Kept apart from the lab modules so that listing labs (and the bank's link check) does not import torch.
"""

LABS: dict[str, str] = {
    "fault_resume": "Kill, crash, preempt or corrupt a DDP job mid-run, resume it, and prove the resume bit-exact",
    "ddp": "DDP on N ranks equals one process on the N-times batch; bucketing, no_sync accumulation, comm share",
    "zero": "DeepSpeed ZeRO 0-3 and FSDP2: bytes per rank measured from the tensors vs the 2+2+12 formula",
    "pipeline": "GPipe vs 1F1B with torch.distributed.pipelining: measured bubble vs (p-1)/(m+p-1), Gantt chart",
    "allreduce": "Ring all-reduce by hand vs dist.all_reduce: bytes sent vs 2(n-1)/n*S, algbw/busbw, alpha-beta fit",
    "mixed_precision": "bf16 autocast and fp16 loss scaling: an overflow skipped, the scale adapting, loss vs fp32",
    "hang": "One rank stalls before a collective: timeout/watchdog names the rank and op, torchrun restarts",
    "elastic": "Lose a node for good: 3 -> 2 workers, resharded checkpoint, global batch kept by accumulation",
    "torn_checkpoint": "Kill the process in the middle of a checkpoint write: the torn files are never loaded",
    "diagnose": "Classify a failure log (OOM, timeout, connection reset, ECC, CUDA error...) and say what to do",
    "cluster_sim": "Simulate a 1k-16k GPU job's failures: goodput vs checkpoint interval against Young/Daly",
}
