"""What the bank holds: counts by topic x type / difficulty / level, and how complete each language is."""

from __future__ import annotations

from collections import Counter

from question_bank.loader import Bank
from question_bank.schema import Level, QType, Question

COLUMNS = [t.value for t in QType] + ["d1", "d2", "d3"] + [lv.value for lv in Level]


def _row(questions: list[Question]) -> list[int]:
    counts = Counter()
    for q in questions:
        counts.update([q.type.value, f"d{q.difficulty}", q.level.value])
    return [len(questions)] + [counts[c] for c in COLUMNS]


def _texts(q: Question, lang: str) -> list[str]:
    """Every text of `q` in one language: question, answer, key points, mistakes, written follow-ups."""
    answer = getattr(q.answer, lang)
    bilingual = [q.question, *q.key_points, *q.mistakes, *(f for f in q.follow_ups if not isinstance(f, str))]
    return [answer.essence, *answer.parts, *(getattr(t, lang) for t in bilingual)]


def complete_in(q: Question, lang: str) -> bool:
    return all(t.strip() for t in _texts(q, lang))


def _table(header: list[str], rows: list[list], total: list) -> list[str]:
    """Left-aligned first column, right-aligned numbers, a rule above and below the body."""
    widths = [max(len(str(r[i])) for r in [header, *rows, total]) for i in range(len(header))]

    def line(cells: list) -> str:
        first, *rest = (str(c) for c in cells)
        numbers = (c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))
        return "  ".join([first.ljust(widths[0]), *numbers])

    rule = line(["-" * w for w in widths])
    return [line(header), rule, *(line(r) for r in rows), rule, line(total)]


# The areas of the bank 2.0 plan (issue 15) with the questions each should reach, and the topics in each.
AREAS: dict[str, tuple[int, tuple[str, ...]]] = {
    "parallelism and planning": (90, ("data_parallel", "zero_fsdp", "tensor_parallel", "pipeline_parallel",
                                      "pipeline_schedules", "context_parallel", "parallel_layouts",
                                      "parallel_planning", "frameworks")),
    "communication": (45, ("collectives", "nccl_internals", "network_fabric", "interconnect")),
    "GPU, kernels, performance": (40, ("gpu_architecture", "kernels_compile", "performance")),
    "fault tolerance and ops": (60, ("checkpoint", "elastic", "hangs_timeouts", "hardware_faults",
                                     "platform_fault_tolerance", "cluster_ops", "training_stability")),
    "memory and precision": (35, ("memory", "activation_memory", "mixed_precision", "low_precision")),
    "inference serving": (30, ("inference_serving",)),
    "coding": (30, ("coding",)),
    "MoE systems": (25, ("moe_systems",)),
    "behavioral and system design": (25, ("behavioral", "system_design", "design_scenarios")),
    "RL post-training infrastructure": (15, ("rl_infrastructure",)),
    "data pipeline and storage": (15, ("data_resume", "data_storage")),
}


def format_areas(bank: Bank) -> list[str]:
    """Questions per area against its target; a topic in no area is listed so it gets one."""
    counts = {name: sum(len(bank.topics[t].questions) for t in topics if t in bank.topics)
              for name, (_, topics) in AREAS.items()}
    rows = [[name, counts[name], target, "ok" if counts[name] >= target else f"-{target - counts[name]}"]
            for name, (target, _) in AREAS.items()]
    total = ["TOTAL", sum(counts.values()), sum(t for t, _ in AREAS.values()), ""]
    unmapped = sorted(set(bank.topics) - {t for _, topics in AREAS.values() for t in topics})
    return _table(["area", "questions", "target", "met"], rows, total) + (
        [f"topics in no area: {', '.join(unmapped)}"] if unmapped else [])


def format_stats(bank: Bank) -> str:
    """A plain-text report: topics x type/difficulty/level, then language completeness and link counts."""
    rows = [[name, *_row(t.questions)] for name, t in bank.topics.items()]
    table = _table(["topic", "total", *COLUMNS], rows, ["TOTAL", *_row(bank.questions)])
    qs, n = bank.questions, len(bank.questions)
    extra = [
        "",
        f"questions: {n} in {len(bank.topics)} topics",
        *(f"complete in {lang}: {sum(complete_in(q, lang) for q in qs)}/{n}" for lang in ("zh", "en")),
        f"numbers verified by labs.core.theory: {sum(len(q.verified_by) for q in qs)}"
        f" in {sum(bool(q.verified_by) for q in qs)} questions",
        f"questions linked to a lab: {sum(bool(q.labs) for q in qs)}/{n}",
        f"linked to a lab or with a number a test checks (verified_by): "
        f"{sum(bool(q.labs or q.verified_by) for q in qs)}/{n}",
        f"new_grad level: {sum(q.level.value == 'new_grad' for q in qs)}/{n}",
        f"tags used: {len({t for q in qs for t in q.tags})} distinct skills",
    ]
    return "\n".join(table + extra + ["", *format_areas(bank)])
