"""Bilingual search: tokens, taxonomy matching, synonym expansion across languages, filters, the bench."""

from __future__ import annotations

import pytest
import yaml

from question_bank.bench import measure, synthetic_bank
from question_bank.loader import Bank, load_bank
from question_bank.search import Index, tokenize
from question_bank.taxonomy import find_skills, jieba_user_dict_path, skill_ids


def question(qid: str, tags: list[str], zh: str, en: str, answer_zh: str, answer_en: str,
             **fields: object) -> dict:
    q = {"id": qid, "type": "concept", "difficulty": 2, "level": "mid", "tags": tags,
         "question": {"zh": zh, "en": en},
         "answer": {"zh": {"essence": answer_zh, "parts": [answer_zh]},
                    "en": {"essence": answer_en, "parts": [answer_en]}},
         "key_points": [{"zh": "要点一", "en": "point one", "terms": ["one"]},
                        {"zh": "要点二", "en": "point two", "terms": ["two"]}]}
    return q | fields


# No text below says 断点续训, "checkpoint resume" or 卡死: those must come from the taxonomy's synonyms.
TOPICS = {
    "faults": [
        question("resume-exact", ["checkpoint_resume", "checkpointing"],
                 "训练进程崩溃后，如何从保存的状态继续，并保证结果与不中断时逐位一致？",
                 "After a crash, how do you continue from saved state so the run matches an uninterrupted"
                 " one bit for bit?",
                 "同时恢复模型、优化器、随机数状态和数据读取位置。",
                 "Restore the model, the optimizer, the RNG states and the data loader position together.",
                 type="experience"),
        question("nccl-hang", ["hang_debugging", "nccl"],
                 "一个作业停住不动，几十分钟后报 NCCL 错误，怎么找到出问题的 rank？",
                 "A job stops making progress and fails with an NCCL error after half an hour;"
                 " how do you find the rank at fault?",
                 "看 watchdog 日志和 flight recorder，用 py-spy 抓各 rank 的栈。",
                 "Read the watchdog log and the flight recorder, and dump every rank's stack with py-spy.",
                 type="debug", difficulty=3, level="senior"),
    ],
    "parallel": [
        question("pipeline-bubble", ["pipeline_parallel"],
                 "流水线并行中，p 个阶段、m 个微批时气泡占多少？",
                 "With p pipeline stages and m micro-batches, what share of the step is bubble?",
                 "气泡比例为 (p-1)/(m+p-1)，交错调度再除以 v。",
                 "The bubble is (p-1)/(m+p-1); interleaving divides it by v.",
                 difficulty=1, level="new_grad"),
        question("zero-three-traffic", ["zero", "collective_communication"],
                 "ZeRO-3 比数据并行多多少通信？",
                 "How much more does ZeRO-3 communicate than plain data parallel?",
                 "前向和反向各一次 all-gather，加 reduce-scatter，约 1.5 倍。",
                 "An all-gather in forward and in backward plus a reduce-scatter: about 1.5x.",
                 follow_ups=["pipeline-bubble"]),
    ],
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Index:
    folder = tmp_path_factory.mktemp("bank")
    for name, questions in TOPICS.items():
        data = {"topic": name, "title": {"zh": name, "en": name}, "questions": questions}
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        (folder / f"{name}.yaml").write_text(text, encoding="utf-8")
    return Index(load_bank(folder))


@pytest.fixture(scope="module")
def real() -> Bank:
    return load_bank()


def top(index: Index, query: str, **filters: object) -> list[str]:
    return [h.question.id for h in index.search(query, **filters)]


def test_english_tokens_survive() -> None:
    tokens = tokenize("Use all-reduce with ZeRO-3, fp16 and torch.distributed at 2.5 GB/s")
    assert {"all-reduce", "zero-3", "fp16", "torch.distributed", "2.5", "gb/s"} <= set(tokens)
    assert {"all", "reduce", "zero", "torch", "distributed"} <= set(tokens)  # parts too, for recall


def test_chinese_is_never_dropped() -> None:
    tokens = tokenize("采用流水线并行做断点续训")
    assert "流水线并行" in tokens and "断点续训" in tokens  # kept whole by the taxonomy's user dictionary
    assert "并行" in tokens  # and its dictionary subwords
    assert "流水线并行" in jieba_user_dict_path().read_text(encoding="utf-8")


def test_find_skills_word_boundaries_and_chinese() -> None:
    # A bare "GPU" names no skill (precision: "GPU 集群" asks for none); a chip does.
    assert find_skills("We run 1024 GPUs (H100) over HTTP") == {"gpu_hardware": ["H100"]}
    assert "parameter_server" not in find_skills("GPUs") and "tensor_parallel" not in find_skills("HTTP")
    found = find_skills("用DP训练，再加流水线并行和 data-parallel 的 ZeRO-3")
    assert set(found["data_parallel"]) == {"DP", "data parallel"}
    assert found["pipeline_parallel"] == ["流水线并行"]
    assert "ZeRO-3" in found["zero"]
    assert set(found) <= set(skill_ids())


def test_chinese_query_finds_english_worded_resume_question(index: Index) -> None:
    assert top(index, "断点续训")[0] == "resume-exact"


def test_english_query_finds_the_same(index: Index) -> None:
    assert top(index, "checkpoint resume")[0] == "resume-exact"
    assert top(index, "resume training")[0] == "resume-exact"


def test_synonym_of_hang(index: Index) -> None:
    assert top(index, "训练卡死怎么排查")[0] == "nccl-hang"
    assert top(index, "NCCL timeout")[0] == "nccl-hang"


def test_chinese_pipeline_query(index: Index) -> None:
    assert top(index, "流水线并行的气泡")[0] == "pipeline-bubble"
    assert top(index, "pipeline bubble 1F1B")[0] == "pipeline-bubble"


def test_filters(index: Index) -> None:
    assert top(index, "", topic="parallel") == ["pipeline-bubble", "zero-three-traffic"]
    assert top(index, "", type="debug") == ["nccl-hang"]
    assert top(index, "", difficulty=1) == ["pipeline-bubble"]
    assert top(index, "", level="senior") == ["nccl-hang"]
    assert top(index, "", tag="zero") == ["zero-three-traffic"]
    assert top(index, "断点续训", topic="parallel") == []
    assert top(index, "all-gather", topic="parallel", type="concept") == ["zero-three-traffic"]
    assert len(index.search("", k=1)) == 1


def test_scores_rank_best_first(index: Index) -> None:
    hits = index.search("ZeRO-3 all-gather 通信")
    assert hits[0].question.id == "zero-three-traffic"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_real_bank_finds_the_example(real: Bank) -> None:
    index = Index(real)
    assert "zero-memory-per-stage" in top(index, "ZeRO 各阶段每卡显存", k=5)
    assert "zero-memory-per-stage" in top(index, "7.5B model ZeRO stage memory per GPU", k=5)


SYNONYM_QUERIES = [("断点续训", "checkpoint_resume"), ("checkpoint resume", "checkpoint_resume"),
                   ("流水线并行", "pipeline_parallel"), ("张量并行", "tensor_parallel")]


@pytest.mark.parametrize("query,skill", SYNONYM_QUERIES)
def test_real_bank_synonyms(real: Bank, query: str, skill: str) -> None:
    if not any(skill in q.tags for q in real.questions):
        pytest.skip(f"no question tagged {skill} in the bank yet")
    assert skill in Index(real).search(query, k=1)[0].question.tags


def test_bench_on_small_synthetic_bank(real: Bank) -> None:
    bank = synthetic_bank(real, n=200)
    assert len(bank.by_id) == 200
    build_s, p95_ms = measure(bank, ["断点续训", "ZeRO-3 memory"], rounds=1)
    assert build_s > 0 and p95_ms > 0
