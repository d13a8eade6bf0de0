"""`python -m labs.kata list | start NAME | check NAME [--solution FILE] | reveal NAME`.

A front end like the app: it judges with labs.kata.judge and keeps the user's attempts in the user's
database through coach.kata_attempts (imported here only, so the judge itself needs nothing above labs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from labs.kata import judge, workspace
from labs.kata.catalog import Kata, all_katas

console = Console(highlight=False)

MESSAGES = {
    "unknown": ("unknown kata {name!r}; the katas: {names}", "没有名为 {name!r} 的题；可选：{names}"),
    "written": ("wrote {path}\nedit it, then: python -m labs.kata check {name}",
                "已写入 {path}\n编辑后运行：python -m labs.kata check {name}"),
    "kept": ("{path} exists and was kept (start over with --force; the old file is kept as .bak)",
             "{path} 已存在，未改动（--force 可重新开始，旧文件保存为 .bak）"),
    "no_file": ("no solution at {path}: run `python -m labs.kata start {name}` first, or pass --solution FILE",
                "{path} 不存在：先运行 `python -m labs.kata start {name}`，或用 --solution 指定文件"),
    "not_yet": ("no attempt at {name} yet: the reference is shown after your first check",
                "还没有提交过 {name}：至少评测一次后才能查看参考答案"),
    "running": ("judging {name} on {n} ranks", "正在 {n} 个 rank 上评测 {name}"),
    "passed": ("passed: {k}/{t} cases", "通过：{k}/{t} 个用例"),
    "failed": ("not yet: {k}/{t} cases passed", "未通过：{k}/{t} 个用例通过"),
    "hint": ("hint", "提示"),
    "rerun": ("the same judge by hand", "手动运行同一评测"),
}
STATUS = {"passed": ("[green]pass[/]", "[green]通过[/]"), "failed": ("[red]FAIL[/]", "[red]失败[/]"),
          "crashed": ("[red]crash[/]", "[red]崩溃[/]"), "timeout": ("[red]timeout[/]", "[red]超时[/]"),
          "not_run": ("[dim]not run[/]", "[dim]未运行[/]")}


def say(key: str, lang: str, **params: object) -> str:
    en, zh = MESSAGES[key]
    return (zh if lang == "zh" else en).format(**params)


def data_dir() -> Path:
    from coach.db import default_data_dir

    return default_data_dir()


def show_list(lang: str) -> int:
    from coach.db import connect
    from coach.kata_attempts import summary

    with connect() as conn:
        done = summary(conn)
    table = Table(title="katas · 手撕题")
    for col in ("kata", "ranks", "title", "questions", "attempts", "solved"):
        table.add_column(col)
    for k in all_katas().values():
        s = done.get(k.name, {})
        table.add_row(k.name, str(k.nproc), k.title(lang), ", ".join(k.questions), str(s.get("attempts", 0)),
                      "✓" if s.get("solved") else "")
    console.print(table)
    return 0


def show_verdict(v: judge.Verdict, lang: str) -> None:
    if v.problem:
        console.print(f"[red]{v.problem.text(lang)}[/]")
    table = Table(show_header=True)
    for col in ("", "case", "s", "detail"):
        table.add_column(col)
    for c in v.cases:
        table.add_row(STATUS[c.status][lang == "zh"], c.name, f"{c.seconds:.2f}" if c.seconds is not None else "",
                      c.detail or c.what)
    console.print(table)
    for c in v.cases:
        if c.status in ("failed", "crashed", "timeout"):
            console.print(f"[yellow]{say('hint', lang)} ({c.name}):[/] {c.hint(lang)}")
            break
    key = "passed" if v.passed else "failed"
    console.print(f"[bold]{say(key, lang, k=v.passed_cases, t=len(v.cases))}[/] ({v.seconds:.1f} s)")
    if v.command:
        console.print(f"[dim]{say('rerun', lang)}: {v.command}[/]")


def check(kata: Kata, solution: Path | None, seed: int, lang: str) -> int:
    from coach.db import connect
    from coach.kata_attempts import record

    path = solution or workspace.solution_path(data_dir(), kata)
    if not path.exists() and solution is None:
        console.print(f"[red]{say('no_file', lang, path=path, name=kata.name)}[/]")
        return 2
    with console.status(say("running", lang, name=kata.name, n=kata.nproc)) as status:
        def progress(done: int, total: int, case: str) -> None:
            status.update(f"{say('running', lang, name=kata.name, n=kata.nproc)}: {done}/{total} {case}")
        verdict = judge.check(kata.name, path, seed=seed, progress=progress)
    show_verdict(verdict, lang)
    if not verdict.cases and verdict.problem and not verdict.code_sha256:
        return 2  # the file could not be judged at all (missing, too big, not UTF-8): not an attempt
    with connect() as conn:
        record(conn, verdict)
    return 0 if verdict.passed else 1


def reveal(kata: Kata, lang: str) -> int:
    from coach.db import connect
    from coach.kata_attempts import attempts

    with connect() as conn:
        if not attempts(conn, kata.name):
            console.print(f"[yellow]{say('not_yet', lang, name=kata.name)}[/]")
            return 2
    print(kata.reference())
    return 0


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m labs.kata", description=__doc__.splitlines()[0])
    ap.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the messages")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the katas, with your attempts")
    for name, text in (("start", "write the stub into your kata folder"), ("check", "judge your solution"),
                       ("reveal", "show the reference (after an attempt)")):
        p = sub.add_parser(name, help=text)
        p.add_argument("name")
        if name == "start":
            p.add_argument("--force", action="store_true", help="start over (the old file is kept as .bak)")
        if name == "check":
            p.add_argument("--solution", type=Path, help="the file to judge (default: your kata folder's)")
            p.add_argument("--seed", type=int, default=0, help="seed of the judge's random inputs")
    return ap


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if args.cmd == "list":
        return show_list(args.lang)
    kata = all_katas().get(args.name)
    if kata is None:
        console.print(f"[red]{say('unknown', args.lang, name=args.name, names=', '.join(all_katas()))}[/]")
        return 2
    if args.cmd == "start":
        path, written = workspace.start(data_dir(), kata, args.force)
        console.print(say("written" if written else "kept", args.lang, path=path, name=kata.name))
        return 0
    if args.cmd == "check":
        return check(kata, args.solution, args.seed, args.lang)
    return reveal(kata, args.lang)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
