"""Fuzzing the whole pipeline (issue #8): random Python *source text* -- arbitrary text,
grammar-ish programs built from gate idioms, and valid programs with random bytes
mutated -- goes through analyse, plan_fixes and write_changes on a temp project, and
through `check --fix --format json`. No exception escapes, every file is accounted for,
and every file a fix changed still parses.

CI runs a short, derandomized profile (well under 30 s); explore with
`HYPOTHESIS_PROFILE=long python -m pytest tests/test_fuzz_pipeline.py` (random, 3,000
examples per test, about half an hour)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gatecheck.accounting import account
from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.engine import analyse
from gatecheck.fixing.fixer import plan_fixes, write_changes

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
FUZZ = settings(
    max_examples=3000 if LONG else 20,
    deadline=None,
    derandomize=not LONG,  # CI stays reproducible; long runs explore
    suppress_health_check=list(HealthCheck),
)

RULE = """\
features:
  - id: fast-thing
    description: the fast thing
    flags: [enable_fast_thing]
    gate_functions: [pkg.fuzzed.use_fast_thing]
    require: [sm90, sm100, sm120]
"""

UTILS = """\
import torch
from functools import lru_cache

@lru_cache(maxsize=1)
def is_sm90_supported():
    return torch.cuda.get_device_capability()[0] == 9

def is_sm100_supported():
    return torch.cuda.get_device_capability()[0] == 10

def is_sm120_supported():
    return torch.cuda.get_device_capability() >= (12, 0)
"""

# A known failing gate beside the fuzzed file: there is always something to fix.
GATE = """\
from pkg.utils import is_sm90_supported, is_sm100_supported

class Args:
    enable_fast_thing: bool = False

    def adjust(self):
        if is_sm90_supported() or is_sm100_supported():
            self.enable_fast_thing = True
"""

# --- strategies ------------------------------------------------------------------------------

NAMES = st.sampled_from(
    ["x", "major", "minor", "cap", "args", "self", "_is_sm90", "_is_sm100", "enable_fast_thing"]
)
ATOMS = st.one_of(
    st.sampled_from(
        [
            "is_sm90_supported()",
            "is_sm100_supported()",
            "is_sm120_supported()",
            "torch.cuda.get_device_capability()",
            "torch.cuda.get_device_capability()[0]",
            "torch.cuda.get_device_properties(0).major",
            "torch.version.hip",
            "torch.version.cuda",
            "self.enable_fast_thing",
            "args.enable_fast_thing",
            "None",
            "True",
            "...",
            "(9, 0)",
            "[9, 10]",
            "{12: 'a'}",
            "f'{major}'",
            "lambda: major",
            "b'\\x00'",
            "'caf\\xe9'",
            "1e309",
            "0x_1",
        ]
    ),
    NAMES,
    st.integers(-5, 130).map(str),
)


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.sampled_from(
        [" and ", " or ", " == ", " != ", " >= ", " < ", " in ", " not in ", " is ", " + ", " % "]
    )
    return st.one_of(
        st.tuples(children, binary, children).map(lambda t: f"({t[0]}{t[1]}{t[2]})"),
        children.map(lambda c: f"(not {c})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(NAMES, children).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(NAMES, children).map(lambda t: f"({t[0]} := {t[1]})"),
        children.map(lambda c: f"[{c} for _ in range(2)]"),
    )


EXPRESSIONS = st.recursive(ATOMS, _combine, max_leaves=8)
INDENTS = st.sampled_from(["    ", "\t", "  ", "        ", ""])


def _statement(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(NAMES, EXPRESSIONS).map(lambda t: f"{t[0]} = {t[1]}"),
        EXPRESSIONS.map(lambda e: f"self.enable_fast_thing = {e}"),
        st.tuples(EXPRESSIONS, INDENTS, body).map(lambda t: f"if {t[0]}:\n{t[1]}{t[2]}"),
        st.tuples(EXPRESSIONS, INDENTS, body, INDENTS, body).map(
            lambda t: f"if {t[0]}:\n{t[1]}{t[2]}\nelse:\n{t[3]}{t[4]}"
        ),
        st.tuples(INDENTS, EXPRESSIONS).map(
            lambda t: f"def use_fast_thing(args):\n{t[0]}return {t[1]}"
        ),
        st.tuples(INDENTS, body).map(lambda t: f"class Args:\n{t[0]}{t[1]}"),
        st.tuples(EXPRESSIONS, INDENTS).map(lambda t: f"while {t[0]}:\n{t[1]}break"),
        EXPRESSIONS.map(lambda e: f"assert {e}, 'needs sm90'"),
        EXPRESSIONS.map(lambda e: f"raise RuntimeError({e})"),
        st.sampled_from(
            [
                "import torch",
                "from pkg.utils import *",
                "from pkg.utils import is_sm90_supported as _a, is_sm100_supported",
                "from . import utils",
                "from .. import nothing",
                "global enable_fast_thing",
                "print 'py2'",
                "return",
                "pass",
                "@lru_cache\ndef f(): pass",
                "async def g():\n    await x",
                "match x:\n    case 9: pass",
                "# gatecheck: ignore[fast-thing] because",
                "'''unterminated",
                "\\",
                "\x00",
                "\ufeff",
                "\r",
            ]
        ),
    )


STATEMENTS = st.recursive(
    st.just("pass"), lambda inner: _statement(inner.map(lambda s: s.replace("\n", "\n    ")))
)
PROGRAMS = st.lists(STATEMENTS, min_size=1, max_size=12).map(
    lambda lines: "import torch\nenable_fast_thing = False\n" + "\n".join(lines) + "\n"
)

# --- the pipeline ----------------------------------------------------------------------------


def _pipeline(source: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pkg" / "utils.py").write_text(UTILS)
        (root / "pkg" / "gate.py").write_text(GATE)
        (root / "pkg" / "fuzzed.py").write_bytes(source)
        rules = Path(tmp) / "rules.yaml"
        rules.write_text(RULE)
        ruleset = load_ruleset([rules])

        analysis = analyse([root], ruleset)
        accounting = account(analysis)
        assert accounting.parsed + accounting.skipped + accounting.diagnosed == 4
        report = plan_fixes(analysis, ruleset, [root])
        write_changes(report, [root])
        for path in report.changes:
            compile(path.read_bytes(), str(path), "exec")  # a fix never breaks a file
        if (root / "pkg" / "fuzzed.py").read_bytes() != source:
            assert root / "pkg" / "fuzzed.py" in report.changes

        # The same tree through the command line: reports render whatever the file holds.
        limit = sys.getrecursionlimit()  # the CLI raises it; hypothesis wants it back
        try:
            result = CliRunner().invoke(
                cli, ["check", str(root), "--rules", str(rules), "--fix", "--format", "json"]
            )
        finally:
            sys.setrecursionlimit(limit)
        assert result.exit_code in (0, 1), result.output + result.stderr
        json.loads(result.stdout)
        fuzzed = root / "pkg" / "fuzzed.py"
        for path in (root / "pkg").glob("*.py"):
            if path != fuzzed or fuzzed.read_bytes() != source:
                compile(path.read_bytes(), str(path), "exec")


@FUZZ
@given(source=st.text(max_size=400))
def test_arbitrary_text(source: str) -> None:
    _pipeline(("enable_fast_thing = 1\n" + source).encode("utf-8", "surrogatepass"))


@FUZZ
@given(program=PROGRAMS)
def test_grammar_ish_programs(program: str) -> None:
    _pipeline(program.encode("utf-8", "surrogatepass"))


@FUZZ
@given(
    program=PROGRAMS,
    mutations=st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 3), st.binary(max_size=3)), max_size=4
    ),
)
def test_mutated_programs(program: str, mutations: list[tuple[float, int, bytes]]) -> None:
    """Valid-ish programs with a few bytes deleted or inserted: near misses of real code,
    which the parser and the decoder have to reject politely."""
    data = bytearray(program.encode("utf-8", "surrogatepass"))
    for where, delete, insert in mutations:
        at = int(where * len(data))
        data[at : at + delete] = insert
    _pipeline(bytes(data))
