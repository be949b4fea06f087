"""Run one measured step in this fresh process and print its figures as one JSON line.

    python benchmarks/_timed.py ast-parse ROOT
    python benchmarks/_timed.py gatecheck ARG...

The clock starts after the interpreter is up: `imports` is the time to import gatecheck's
CLI, `seconds` the step itself (for gatecheck: the command, report written to /dev/null),
`max_rss_mb` the process's peak resident memory, `workers_max_rss_mb` the largest of its
worker processes' (`audit --jobs`: each is forked from it, sharing its pages until
either writes them, so the two are not to be added).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path


def _ast_parse(root: Path) -> dict[str, object]:
    files = sorted(root.rglob("*.py"))
    started = time.perf_counter()
    for path in files:
        ast.parse(path.read_bytes())
    return {"seconds": time.perf_counter() - started, "files": len(files)}


def _gatecheck(args: list[str]) -> dict[str, object]:
    started = time.perf_counter()
    import importlib

    from gatecheck.cli import cli
    from gatecheck.cli.common import COMMAND_MODULES

    importlib.import_module(COMMAND_MODULES[args[0]])  # the CLI imports it lazily
    imported = time.perf_counter()
    code: object = 0
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        try:
            cli.main(args=args, prog_name="gatecheck", standalone_mode=False)
        except SystemExit as done:
            code = done.code
    return {
        "seconds": time.perf_counter() - imported,
        "imports": imported - started,
        "exit": code,
    }


def main() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    kind, *rest = sys.argv[1:]
    result = _ast_parse(Path(rest[0])) if kind == "ast-parse" else _gatecheck(rest)
    result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["workers_max_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(result), flush=True)
    # Leave as `gatecheck` itself does (cli.main: os._exit once everything is written),
    # without tearing down the trees one object at a time: the wall time is then the
    # command's, not the command's plus a teardown no user waits for.
    os._exit(0)


if __name__ == "__main__":
    main()
