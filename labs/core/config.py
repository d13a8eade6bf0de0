"""Lab configuration: a typed dataclass per lab; its field docstrings become the `--help` text.

The same dataclass is parsed by the orchestrator (`python -m labs.run NAME ...`) and by every torchrun
worker (`python -m labs.core.worker NAME ...`), so the printed torchrun command is exactly what runs.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import typing
from dataclasses import dataclass
from typing import ClassVar


class Problem(str):
    """What a lab's `check_config` returns when options cannot work: the English text (the CLI prints it; it
    is the str itself, so `if problem:` and f-strings keep working) and the same in Chinese for the app.

        return Problem("need --steps > 0", "--steps 必须大于 0")
    """

    zh: str

    def __new__(cls, en: str, zh: str) -> Problem:
        obj = super().__new__(cls, en)
        obj.zh = zh
        return obj

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" else str(self)


@dataclass
class LaunchConfig:
    """Options every lab shares: how the workers are launched and where the run is written."""

    CHOICES: ClassVar[dict[str, list[str]]] = {"backend": ["auto", "nccl", "gloo"]}
    # Options for torchrun itself: kept off the workers' command line, where torchrun's argparse would
    # reject `--nproc` as an ambiguous prefix of its own `--nproc-per-node`.
    LAUNCH_ONLY: ClassVar[frozenset[str]] = frozenset({"nproc", "nnodes", "rdzv_endpoint", "rdzv_id", "rdzv_conf",
                                                    "timeout_s", "shutdown_timeout_s"})

    nproc: int = 2
    """Worker processes per node (torchrun --nproc-per-node)."""
    nnodes: str = "1"
    """Number of nodes, or MIN:MAX for elastic jobs (torchrun --nnodes)."""
    rdzv_endpoint: str = "localhost:0"
    """Rendezvous host:port; port 0 picks a free one on a single node. Same value on every node."""
    rdzv_id: str = "kgp"
    """Rendezvous job id: every node of one job passes the same id."""
    rdzv_conf: str = ""
    """torchrun --rdzv-conf, e.g. last_call_timeout=2 (how long an elastic rendezvous waits for late nodes)."""
    backend: str = "auto"
    """Process-group backend: auto (nccl when CUDA is available, else gloo), nccl or gloo."""
    out: str = ""
    """Run folder; default runs/<lab>/<timestamp>/ under the working directory."""
    timeout_s: float = 300.0
    """Kill the whole lab if a single torchrun job runs longer than this."""
    shutdown_timeout_s: float = 10.0
    """torchrun --shutdown-timeout: grace between SIGTERM and SIGKILL when the agent itself is signalled
    (preemption). Stopping workers for a restart after a failure always allows torchrun's fixed 30 s."""
    pg_timeout_s: float = 60.0
    """Process-group timeout: how long a collective waits for a missing peer (gloo's default is 30 min)."""
    seed: int = 1234
    """Seed for model init, data order and dropout."""

    @property
    def world_size(self) -> int:
        """Worker processes in the whole job (with MIN:MAX nodes, at the most)."""
        return self.nproc * int(self.nnodes.split(":")[-1])


@dataclass
class ModelConfig(LaunchConfig):
    """Options of the labs that train the tiny byte-level GPT (labs.core.model) on the shared data."""

    steps: int = 24
    """Optimizer steps."""
    global_batch: int = 16
    """Samples per step across all ranks (must divide by the world size)."""
    lr: float = 3e-3
    """AdamW learning rate (constant)."""
    block: int = 64
    """Context length in bytes."""
    width: int = 64
    """Model width (embedding size)."""
    layers: int = 2
    """Transformer blocks."""


def field_docs(cls: type) -> dict[str, str]:
    """Attribute docstrings (the string literal under each field) of a dataclass and its bases."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or not dataclasses.is_dataclass(klass):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, nxt in zip(body, body[1:], strict=False):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                    and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)):
                docs[node.target.id] = str(nxt.value.value)
    return docs


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keeps the lab docstring's command examples as written and shows every default."""


def build_parser(cls: type, prog: str, description: str) -> argparse.ArgumentParser:
    """An argparse parser with one `--flag-name` per dataclass field, typed, defaulted and documented."""
    parser = argparse.ArgumentParser(prog=prog, description=description,
                                     formatter_class=_Formatter)
    docs = {k: " ".join(v.split()).replace("%", "%%") for k, v in field_docs(cls).items()}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        choices = getattr(cls, "CHOICES", {}).get(f.name)
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=f.default,
                                help=docs.get(f.name, ""))
        else:
            parser.add_argument(flag, type=kind, default=f.default, choices=choices,
                                help=docs.get(f.name, ""))
    positional = getattr(cls, "POSITIONAL", "")
    if positional:  # a lab may name one field that a bare argument also sets: `diagnose LOGFILE`
        parser.add_argument("_positional", nargs="?", type=hints[positional], metavar=positional.upper(),
                            help=f"same as --{positional.replace('_', '-')}")
    return parser


def to_argv(cfg: object, skip: frozenset[str] = frozenset()) -> list[str]:
    """The command-line flags that reproduce `cfg` (fields that differ from their defaults, minus `skip`)."""
    argv: list[str] = []
    for f in dataclasses.fields(cfg):  # type: ignore[arg-type]
        value = getattr(cfg, f.name)
        if value == f.default or f.name in skip:
            continue
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + flag[2:])
        else:
            argv += [flag, str(value)]
    return argv


def parse(cls: type, argv: list[str], prog: str, description: str):
    """Parse `argv` into an instance of `cls`; argparse exits with code 2 and a message on bad options."""
    ns = vars(build_parser(cls, prog, description).parse_args(argv))
    bare = ns.pop("_positional", None)
    if bare is not None:
        ns[cls.POSITIONAL] = bare
    return cls(**ns)
