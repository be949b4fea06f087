"""`nvidia-smi --query-gpu=compute_cap --format=csv,noheader`, run by `subprocess.run` or
`subprocess.check_output`: the capability read without initialising CUDA (SGLang's
`get_device_sm_nvidia_smi`, accelerate's `check_cuda_fp8_capability`, quack's forkserver
preload). Its output is a line per GPU, `"12.0\\n"`, every GPU of the machine one
generation: the first line (`.strip().split("\\n")[0]`, `.splitlines()[0]`, split by
`os.linesep`) is `"major.minor"`, which the code then parses (`map(int,
cap.split("."))`). The number of lines is not known (`len(...)` of them is unknown), and
on an AMD generation there is no nvidia-smi: the call fails, somehow (unknown). Any other
query (`--query-gpu=name`, memory, several fields) is not the generation's to decide.
The output is read as text (`text=True`, `universal_newlines=True`, or `.decode()`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gatecheck.config.model import Generation
from gatecheck.semantics.idioms._model import (
    NOT_MINE,
    Example,
    Idiom,
    Intrinsic,
    Noop,
    generations,
)
from gatecheck.semantics.values import UNKNOWN, EachDevice, Value

_FIELDS = ("compute_cap", "compute_capability")


@dataclass(frozen=True)
class LineSeparator:
    """`os.linesep`: the platform's line separator, whichever it is; it splits
    nvidia-smi's output into its lines, and nothing else is read of it."""


@dataclass(frozen=True)
class DeviceLines:
    """nvidia-smi's output: `line` once per GPU, each ended by a newline (`stripped`:
    the last one's newline removed)."""

    line: str
    stripped: bool = False


@dataclass(frozen=True)
class Completed:
    """What `subprocess.run` returns: its `stdout` is the output."""

    stdout: DeviceLines


def _queries_capability(args: Sequence[Value]) -> bool:
    command = args[0] if args else None
    if not isinstance(command, (list, tuple)):
        return False
    for item in command:
        if isinstance(item, str) and item.startswith("--query-gpu="):
            return item.removeprefix("--query-gpu=") in _FIELDS
    return False


def _output(generation: Generation, args: Sequence[Value]) -> Value:
    if not _queries_capability(args):
        return NOT_MINE
    if generation.vendor != "nvidia":
        return UNKNOWN  # no nvidia-smi there
    return DeviceLines(f"{generation.major}.{generation.minor}")


def check_output(generation: Generation, args: Sequence[Value]) -> Value:
    return _output(generation, args)


def run(generation: Generation, args: Sequence[Value]) -> Value:
    found = _output(generation, args)
    return Completed(found) if isinstance(found, DeviceLines) else found


def completed_attribute(receiver: Any, name: str) -> Value:
    return receiver.stdout if name == "stdout" else NOT_MINE


def lines_attribute(receiver: Any, name: str) -> Value:
    method = _METHODS.get(name)
    return NOT_MINE if method is None else method(receiver)


def _strip(lines: DeviceLines) -> Callable[..., Any]:
    def strip(*chars: Any) -> Any:
        return DeviceLines(lines.line, stripped=True) if not chars else UNKNOWN

    return strip


def _decode(lines: DeviceLines) -> Callable[..., Any]:
    return lambda *_encoding: lines


def _splitlines(lines: DeviceLines) -> Callable[..., Any]:
    return lambda: EachDevice(lines.line)


def _split(lines: DeviceLines) -> Callable[..., Any]:
    def split(separator: Any = None) -> Any:
        if separator is None or isinstance(separator, LineSeparator) or separator == "\n":
            # Stripped, the last line has no empty item after it; whitespace splits never do.
            return EachDevice(lines.line) if lines.stripped or separator is None else UNKNOWN
        return UNKNOWN

    return split


_METHODS: dict[str, Callable[[DeviceLines], Callable[..., Any]]] = {
    "strip": _strip,
    "rstrip": _strip,
    "decode": _decode,
    "splitlines": _splitlines,
    "split": _split,
}


def line_separator(_generation: Generation, _args: Sequence[Value]) -> Value:
    return LineSeparator()


# No nvidia-smi on an AMD generation: the call fails there, read as unknown.
_AMD = generations("gfx90a", "gfx942", "gfx950")

_SOURCE = """
import os
import subprocess

QUERY = ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]

def sm_by_run():
    result = subprocess.run(QUERY, capture_output=True, text=True, check=True)
    major, minor = map(int, result.stdout.strip().split("\\n")[0].split("."))
    return major * 10 + minor

def cap_by_check_output():
    output = subprocess.check_output(QUERY, universal_newlines=True).strip()
    return tuple(map(int, output.split(os.linesep)[0].split(".")))

def first_line():
    out = subprocess.run(QUERY, capture_output=True)
    return out.stdout.decode("utf-8").splitlines()[0]

def names():
    return subprocess.check_output(["nvidia-smi", "--query-gpu=name", "--format=csv"])

def lines():
    return subprocess.check_output(QUERY, text=True).strip().split("\\n")
"""

IDIOM = Idiom(
    name="nvidia-smi compute capability",
    calls=(
        Intrinsic("subprocess.run", run, reads_arguments=True),
        Intrinsic("subprocess.check_output", check_output, reads_arguments=True),
    ),
    attributes=(Intrinsic("os.linesep", line_separator, reads_device=False),),
    value_attributes=((Completed, completed_attribute), (DeviceLines, lines_attribute)),
    examples=(
        Example(
            "run-stdout",
            "sm_by_run() >= 100",
            generations("sm100", "sm103", "sm110", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "check-output-split-by-linesep",
            "cap_by_check_output() >= (8, 9)",
            generations("sm89", "sm90", "sm100", "sm103", "sm110", "sm120", "sm121") | _AMD,
            _SOURCE,
        ),
        Example(
            "decoded-first-line", 'first_line() == "12.1"', generations("sm121") | _AMD, _SOURCE
        ),
    ),
    noops=(
        Noop("another-query", 'b"H100" in names()', "the GPU's name is no generation's", _SOURCE),
        Noop(
            "how-many-lines",
            "len(lines()) == 1",
            "how many GPUs the machine has is not the generation's",
            _SOURCE,
        ),
    ),
)
