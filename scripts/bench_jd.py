"""JD analysis and coverage timings (a benchmark, not a test): python scripts/bench_jd.py

First call in a fresh process (taxonomy load and regex compilation included), then the warm median over the
labelled JDs in tests/data/jds/. Targets (issue 14): first call < 1 s, analysis < 50 ms, coverage < 10 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RESUME = """# 张三
## 工作经历
- 在 64 张卡上用 DeepSpeed ZeRO-3 训练 7B 模型，MFU 从 38% 提升到 52%
- 实现基于 torchrun 的弹性训练与断点续训，节点故障后 5 分钟内恢复
- 用 Nsight Systems 定位 NCCL all-reduce 瓶颈，做计算通信重叠
## Skills
Python, C++, CUDA, Kubernetes, Slurm, bf16
"""


def main() -> None:
    files = sorted((ROOT / "tests/data/jds").glob("*.yaml"))
    texts = [yaml.safe_load(p.read_text(encoding="utf-8"))["text"] for p in files]
    start = time.perf_counter()
    from coach.jd import analyze_jd, coverage

    first = analyze_jd(texts[0])
    coverage(first, RESUME)
    first_s = time.perf_counter() - start
    analysis_ms, coverage_ms = [], []
    for _ in range(5):
        for text in texts:
            t0 = time.perf_counter()
            jd = analyze_jd(text)
            t1 = time.perf_counter()
            coverage(jd, RESUME)
            t2 = time.perf_counter()
            analysis_ms.append((t1 - t0) * 1e3)
            coverage_ms.append((t2 - t1) * 1e3)
    print(f"first call (import + analysis + coverage): {first_s:.2f} s  (target < 1 s)")
    for name, ms, target in (("analysis", analysis_ms, 50), ("coverage", coverage_ms, 10)):
        print(f"{name} warm: median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms  (target < {target} ms)")


if __name__ == "__main__":
    main()
