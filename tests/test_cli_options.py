"""A feature's CLI options read from waiting bodies' `ast` where that gives the built
tree's answer, and from the built tree everywhere else: the same hops, in the same order,
as the built tree gives; the parser function stays unbuilt where the `ast` sufficed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from astroid import nodes

from gatecheck.config.model import Feature
from gatecheck.gates.mentions import dashed
from gatecheck.gates.model import qualname_of
from gatecheck.loading.lazy import is_waiting
from gatecheck.loading.trees import ProjectBuilder
from gatecheck.semantics.callers import calls_by_name
from gatecheck.tracing.cli_options import cli_options
from tests.conftest import FIXTURES

EVERY = frozenset({"sm90", "sm120"})


def _feature(*flags: str) -> Feature:
    return Feature("f", "", tuple(flags), (), frozenset())


def _reference(module: nodes.Module, feature: Feature) -> list[tuple[object, ...]]:
    """The hops a walk of the fully built tree gives (the search before waiting bodies
    were read from their `ast`)."""
    options = {dashed(flag) for flag in feature.flags}
    out: list[tuple[object, ...]] = []
    for call in calls_by_name(module).get("add_argument", []):
        if not isinstance(call.func, nodes.Attribute):
            continue
        names = [
            a.value for a in call.args if isinstance(a, nodes.Const) and isinstance(a.value, str)
        ]
        dest = next(
            (
                k.value.value
                for k in call.keywords or []
                if k.arg == "dest" and isinstance(k.value, nodes.Const)
            ),
            None,
        )
        for name in names:
            if name in options or (dest in feature.flags and name.startswith("--")):
                out.append((call.lineno, qualname_of(call), name, call.col_offset))
                break
    return out


def _found(module: nodes.Module, feature: Feature) -> list[tuple[object, ...]]:
    return [
        (h.line, h.qualname, h.condition, h.column) for h in cli_options(module, feature, EVERY)
    ]


def _functions(module: nodes.Module) -> dict[str, nodes.FunctionDef]:
    found: dict[str, nodes.FunctionDef] = {}
    stack: list[nodes.NodeNG] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.FunctionDef):
            found[str(node.name)] = node
            if is_waiting(node):
                continue  # reading its children would build it
        stack.extend(node.get_children())
    return found


PARSER = """
def unrelated(x):
    return x + 1

def add_cli_args(parser):
    parser.add_argument("--model", type=str)
    {body}
    parser.add_argument("--port", type=int)
"""

SHAPES = [
    # (what, the parser function's middle, flags, stays unbuilt)
    ("one option", 'parser.add_argument("--enable-x", action="store_true")', ("enable_x",), True),
    ("no option of the feature", 'parser.add_argument("--other")', ("enable_x",), True),
    ("by dest", 'parser.add_argument("--ex", dest="enable_x")', ("enable_x",), True),
    ("implicit concatenation", 'parser.add_argument("--enable-" "x")', ("enable_x",), True),
    ("an escape", 'parser.add_argument("--enable\\x2dx")', ("enable_x",), True),
    ("inside an if", 'if True:\n        parser.add_argument("--enable-x")', ("enable_x",), True),
    (
        "two options, in order",
        'parser.add_argument("--enable-y")\n    parser.add_argument("--enable-x")',
        ("enable_x", "enable_y"),
        False,
    ),
    (
        "in a nested function",
        'def inner():\n        parser.add_argument("--enable-x")\n    inner()',
        ("enable_x",),
        False,
    ),
    (
        "in a lambda",
        'f = lambda: parser.add_argument("--enable-x")',
        ("enable_x",),
        False,
    ),
    (
        "in a comprehension",
        '[parser.add_argument(n) for n in ["--enable-x"]]\n    '
        '[parser.add_argument("--enable-x") for _ in "a"]',
        ("enable_x",),
        False,
    ),
    ("a bare add_argument call", 'add_argument("--enable-x")', ("enable_x",), True),
    ("a starred name", 'parser.add_argument(*["--enable-x"])', ("enable_x",), True),
    ("an f-string", 'parser.add_argument(f"--enable-{1}")', ("enable_x",), True),
]


@pytest.mark.parametrize(("what", "body", "flags", "unbuilt"), SHAPES, ids=[s[0] for s in SHAPES])
def test_same_hops_as_the_built_tree(
    what: str, body: str, flags: tuple[str, ...], unbuilt: bool
) -> None:
    source = PARSER.format(body=body)
    feature = _feature(*flags)
    eager = ProjectBuilder(lazy=False).string_build(source, "srv.args", "/x/srv/args.py")
    lazy = ProjectBuilder().string_build(source, "srv.args", "/x/srv/args.py")
    assert is_waiting(_functions(lazy)["add_cli_args"])
    assert _found(lazy, feature) == _reference(eager, feature)
    assert is_waiting(_functions(lazy)["add_cli_args"]) is unbuilt
    assert is_waiting(_functions(lazy)["unrelated"])  # never spells add_argument


def test_a_method_s_option_is_named_by_its_class() -> None:
    source = textwrap.dedent(
        """
        class ServerArgs:
            @staticmethod
            def add_cli_args(parser):
                group = parser.add_argument_group("g")
                group.add_argument(
                    "--enable-x",
                    action="store_true",
                )
        """
    )
    feature = _feature("enable_x")
    eager = ProjectBuilder(lazy=False).string_build(source, "srv.args", "/x/srv/args.py")
    lazy = ProjectBuilder().string_build(source, "srv.args", "/x/srv/args.py")
    found = _found(lazy, feature)
    assert found == _reference(eager, feature)
    assert found == [(6, "srv.args.ServerArgs.add_cli_args", "--enable-x", 8)]
    assert is_waiting(_functions(lazy)["add_cli_args"])


def test_an_option_in_the_def_line_builds_the_body() -> None:
    source = textwrap.dedent(
        """
        def add_cli_args(parser, done=parser.add_argument("--enable-x")):
            parser.add_argument("--enable-x")
        """
    )
    feature = _feature("enable_x")
    eager = ProjectBuilder(lazy=False).string_build(source, "m", "/x/m.py")
    lazy = ProjectBuilder().string_build(source, "m", "/x/m.py")
    assert _found(lazy, feature) == _reference(eager, feature)
    assert not is_waiting(_functions(lazy)["add_cli_args"])


def _fixture_flags(module: nodes.Module) -> list[str]:
    """A flag for every option any add_argument call of the module spells."""
    flags: set[str] = set()
    for call in calls_by_name(module).get("add_argument", []):
        for arg in call.args:
            if isinstance(arg, nodes.Const) and isinstance(arg.value, str):
                flags.add(arg.value.lstrip("-").replace("-", "_"))
    return sorted(flags)


@pytest.mark.parametrize(
    "path", sorted(FIXTURES.rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES))
)
def test_same_hops_on_every_fixture(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        eager = ProjectBuilder(lazy=False).string_build(text, "m", str(path))
    except Exception:  # a fixture that is meant not to parse
        pytest.skip("not a module astroid builds")
    for flag in [*_fixture_flags(eager), "no_such_flag"]:
        lazy = ProjectBuilder().string_build(text, "m", str(path))
        assert _found(lazy, _feature(flag)) == _reference(eager, _feature(flag)), flag
