"""The bank's command line.

    python -m question_bank check [--path DIR]     # every problem as file:line: field: message; exit 1 if any
    python -m question_bank stats                  # counts by topic, type, difficulty, level, language
    python -m question_bank search "断点续训" [--topic T --type T --difficulty N --level L --tag SKILL -k N]
    python -m question_bank bench                  # search p95 latency, real bank and 10,000 synthetic
    python -m question_bank figures [--baseline]   # figures neither verified nor cited; rewrite the legacy list
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from question_bank.figures import BASELINE, read_baseline, uncited, write_baseline
from question_bank.loader import BankError, load_bank, topic_paths
from question_bank.schema import Level, QType


def _short(file: str) -> str:
    path = Path(file)
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else file


def cmd_check(args: argparse.Namespace) -> int:
    from question_bank.check import check_bank

    problems = check_bank(args.path)
    for p in problems:
        print(replace(p, file=_short(p.file)))
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    bank = load_bank(args.path)
    files, checks = len(topic_paths(args.path)), sum(len(q.verified_by) for q in bank.questions)
    mistakes = [m for q in bank.questions for m in q.mistakes]
    # Not an error: a mistake without a pattern is still shown after the answer, it just cannot cost points.
    cited = sum(len(q.cited) for q in bank.questions)
    print(f"OK: {files} files, {len(bank.questions)} questions, {checks} verified numbers, {cited} cited, "
          f"{len(read_baseline())} legacy uncited figures, "
          f"{sum(bool(m.match) for m in mistakes)} of {len(mistakes)} mistakes with a misconception pattern")
    return 0


def cmd_figures(args: argparse.Namespace) -> int:
    bank = load_bank(args.path)
    if args.baseline:
        print(f"{write_baseline(bank.questions)} legacy uncited figures written to {_short(str(BASELINE))}")
        return 0
    rows = [(q.id, fig) for q in bank.questions for fig in uncited(q)]
    for qid, fig in rows:
        print(f"{qid}\t{fig}")
    print(f"{len(rows)} uncited figure(s) in {len({qid for qid, _ in rows})} question(s)", file=sys.stderr)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from question_bank.stats import format_stats

    print(format_stats(load_bank(args.path)))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from question_bank.search import Index

    bank = load_bank(args.path)
    hits = Index(bank).search(args.query, k=args.k, topic=args.topic, type=args.type,
                              difficulty=args.difficulty, level=args.level, tag=args.tag)
    for rank, hit in enumerate(hits, 1):
        q = hit.question
        print(f"{rank:2}. {hit.score:6.2f}  {q.id}  [{bank.topic_of[q.id]} · {q.type.value} · "
              f"d{q.difficulty} · {q.level.value}]")
        print(f"      {q.question.zh}\n      {q.question.en}")
    if not hits:
        print("no match")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from question_bank.bench import run

    print(run(load_bank(args.path), n=args.n))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m question_bank", description="KiloGPU Prep question bank")
    sub = p.add_subparsers(dest="command", required=True)
    for name, fn, text in (("check", cmd_check, "validate the bank"), ("stats", cmd_stats, "count the bank"),
                           ("search", cmd_search, "search the bank"), ("bench", cmd_bench, "time search"),
                           ("figures", cmd_figures, "list uncited figures")):
        s = sub.add_parser(name, help=text)
        s.add_argument("--path", help="folder of topic files (default: the package's questions/)")
        s.set_defaults(fn=fn)
        if name == "search":
            s.add_argument("query")
            s.add_argument("--topic")
            s.add_argument("--type", choices=[t.value for t in QType])
            s.add_argument("--difficulty", type=int, choices=[1, 2, 3])
            s.add_argument("--level", choices=[lv.value for lv in Level])
            s.add_argument("--tag", help="a skill id from taxonomy.yaml")
            s.add_argument("-k", type=int, default=10, help="number of results (default 10)")
        if name == "figures":
            s.add_argument("--baseline", action="store_true",
                           help="rewrite the legacy list from the bank as it is (only after citing figures)")
        if name == "bench":
            s.add_argument("-n", type=int, default=10_000, help="size of the synthetic bank (default 10000)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.fn(args)
    except BankError as e:
        print(e, file=sys.stderr)
        return 1
    except BrokenPipeError:  # `... | head` closed the pipe: not an error of ours
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
