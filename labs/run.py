"""`python -m labs.run`: list the labs, show a lab's options, run one.

    python -m labs.run --list
    python -m labs.run fault_resume --help
    python -m labs.run fault_resume --fault kill
"""

from __future__ import annotations

import importlib
import sys

from labs.core import report
from labs.core.config import parse
from labs.registry import LABS


def usage() -> str:
    lines = ["usage: python -m labs.run NAME [options] | --list", "", "labs:"]
    lines += [f"  {name:<16} {desc}" for name, desc in LABS.items()]
    lines += ["", "python -m labs.run NAME --help shows a lab's options."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] == "--list":
        for name, desc in LABS.items():
            print(f"{name:<16} {desc}")
        return 0
    name = argv[0]
    if name not in LABS:
        print(f"error: unknown lab {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    lab = importlib.import_module(f"labs.{name}")
    cfg = parse(lab.Config, argv[1:], prog=f"python -m labs.run {name}", description=lab.__doc__ or "")
    # A config that cannot work is refused here, once for every lab, before anything is launched.
    problem = lab.check_config(cfg) if hasattr(lab, "check_config") else ""
    if problem:
        report.console.print(f"[red]error:[/] {problem}")
        return 2
    return lab.main(cfg)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
