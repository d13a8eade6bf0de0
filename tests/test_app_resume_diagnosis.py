"""The résumé page's diagnosis tab through AppTest: scores, chart, per-bullet table and fixes, in Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
RESUME = """# 张三
## 工作经历
### ACME | 训练平台 | 2021-2024
- 在 64 卡上训练 70亿参数模型时，实现异步检查点，把每次保存的停顿从 40 秒降到 6 秒
- 负责 NCCL 通信
"""
JD = "任职要求：\n1. 熟悉 NCCL；\n2. 有检查点经验。\n加分项：Megatron-LM 流水线并行。\n"


@pytest.fixture
def at(monkeypatch: pytest.MonkeyPatch) -> AppTest:
    for var in ("KGP_LLM_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    app = AppTest.from_file(ROOT / "app" / "streamlit_app.py", default_timeout=60)
    app.run()
    app.switch_page("app_pages/resume.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_diagnosis_asks_for_a_resume_first(at: AppTest) -> None:
    assert any("先在“简历”页" in i.value for i in at.info)
    assert not [m for m in at.metric if m.label == "量化"]


def test_diagnosis_scores_each_bullet_and_links_fixes(at: AppTest) -> None:
    at.text_area(key="_w_rj_text").set_value(RESUME).run()
    at.text_area(key="_w_rj_jd").set_value(JD).run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["量化"] == "50" and metrics["STAR 完整度"].isdigit() and metrics["JD 覆盖"].isdigit()
    table = next(d.value for d in at.dataframe if "量化" in d.value.columns)
    assert list(table["量化"]) == [100, 0]  # the strong bullet, then the one with no result
    weak = next(e for e in at.expander if "负责 NCCL 通信" in e.label)
    assert "没有可衡量的结果" in weak.markdown[0].value
    assert any("流水线并行" in m.value and "pipeline" in m.value for m in at.markdown)
