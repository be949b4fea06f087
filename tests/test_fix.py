"""Autofix: (before, after) pairs per form, refusals that must leave the file untouched
("noop" cases with their reason), byte-level preservation, idempotence."""

from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gatecheck.cli import cli
from gatecheck.config.loader import load_ruleset
from gatecheck.engine import analyse
from gatecheck.fixing.fixer import FixReport, plan_fixes, write_changes
from gatecheck.fixing.source import FAST_PATH, fix_source_report
from tests.conftest import FIXTURES
from tests.test_fix_strategies import MODULES as STRATEGY_MODULES

UTILS = """\
import torch
from functools import lru_cache

def _major():
    return torch.cuda.get_device_capability()[0]

@lru_cache(maxsize=1)
def is_sm90_supported():
    return _major() == 9

@lru_cache(maxsize=1)
def is_sm100_supported():
    return _major() == 10

@lru_cache(maxsize=1)
def is_sm120_supported():
    return _major() == 12

def is_blackwell():
    return _major() in (10, 11, 12)
"""

RULE = """\
features:
  - id: fast-path
    description: a fast path
    flags: [enable_fast_path]
    require: [sm90, sm100, sm120]
"""


def _project(tmp_path: Path, gate_module: str, rule: str = RULE) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "utils.py").write_text(UTILS)
    (root / "pkg" / "gate.py").write_bytes(gate_module.encode("utf-8"))
    (root / "rules.yaml").write_text(rule)
    return root


def _fix(root: Path) -> FixReport:
    ruleset = load_ruleset([root / "rules.yaml"])
    analysis = analyse([root], ruleset)
    return plan_fixes(analysis, ruleset, [root])


def _fixed_text(tmp_path: Path, before: str, rule: str = RULE) -> tuple[str, FixReport]:
    root = _project(tmp_path, textwrap.dedent(before), rule)
    report = _fix(root)
    write_changes(report, [root])
    return (root / "pkg" / "gate.py").read_text(), report


FACTS = """\
        import pkg.utils as utils
        PROBES = {"is_sm90": "is_sm90_supported", "is_sm100": "is_sm100_supported", "is_sm120": "is_sm120_supported"}
        class Facts:
            def __getattr__(self, name):
                probe = PROBES.get(name)
                if probe is None:
                    raise AttributeError(name)
                return getattr(utils, probe)()
        FACTS = Facts()
"""

PAIRS = [
    pytest.param(
        """\
        from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported
        class A:
            def f(self):
                if is_sm90_supported() or is_sm100_supported():
                    self.enable_fast_path = True
        """,
        """\
        from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported
        class A:
            def f(self):
                if is_sm90_supported() or is_sm100_supported() or is_sm120_supported():
                    self.enable_fast_path = True
        """,
        id="function-imported",
    ),
    pytest.param(
        """\
        from pkg.utils import is_sm90_supported, is_sm100_supported
        class A:
            def f(self):
                if is_sm90_supported() or is_sm100_supported():
                    self.enable_fast_path = True
        """,
        """\
        from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported
        class A:
            def f(self):
                if is_sm90_supported() or is_sm100_supported() or is_sm120_supported():
                    self.enable_fast_path = True
        """,
        id="import-added-single-line",
    ),
    pytest.param(
        """\
        from pkg.utils import (
            is_sm90_supported,
            is_sm100_supported,  # keep this comment
        )
        _is_sm90 = is_sm90_supported()
        _is_sm100 = is_sm100_supported()
        def enabled(args):
            return (_is_sm90 or _is_sm100) and args.enable_fast_path
        """,
        """\
        from pkg.utils import (
            is_sm90_supported,
            is_sm100_supported,  # keep this comment
            is_sm120_supported,
        )
        _is_sm90 = is_sm90_supported()
        _is_sm100 = is_sm100_supported()
        _is_sm120 = is_sm120_supported()
        def enabled(args):
            return (_is_sm90 or _is_sm100 or _is_sm120) and args.enable_fast_path
        """,
        id="alias-twin-and-import",
    ),
    pytest.param(
        """\
        import torch
        class A:
            def f(self):
                major, minor = torch.cuda.get_device_capability()
                if major == 10:
                    self.enable_fast_path = True
        """,
        None,
        id="major-eq-refused-sm90-and-sm120-both-missing",
    ),
    pytest.param(
        """\
        import torch
        class A:
            def f(self):
                major, minor = torch.cuda.get_device_capability()
                if major == 9 or major == 10:
                    self.enable_fast_path = True
        """,
        """\
        import torch
        class A:
            def f(self):
                major, minor = torch.cuda.get_device_capability()
                if major == 9 or major == 10 or major == 12:
                    self.enable_fast_path = True
        """,
        id="or-of-comparisons",
    ),
    pytest.param(
        """\
        import torch
        def enabled(args):
            return torch.cuda.get_device_capability() in [(9, 0), (10, 0)] and args.enable_fast_path
        """,
        """\
        import torch
        def enabled(args):
            return torch.cuda.get_device_capability() in [(9, 0), (10, 0), (12, 0)] and args.enable_fast_path
        """,
        id="capability-tuple-list",
    ),
    pytest.param(
        """\
        import torch
        SM = torch.cuda.get_device_capability()[0] * 10 + torch.cuda.get_device_capability()[1]
        def enabled(args):
            return SM in (90, 100,) and args.enable_fast_path
        """,
        """\
        import torch
        SM = torch.cuda.get_device_capability()[0] * 10 + torch.cuda.get_device_capability()[1]
        def enabled(args):
            return SM in (90, 100, 120,) and args.enable_fast_path
        """,
        id="sm-int-trailing-comma",
    ),
    pytest.param(
        """\
        from pkg.utils import is_sm90_supported, is_blackwell, is_sm120_supported
        def enabled(args):
            return is_sm90_supported() and args.enable_fast_path and is_blackwell() is not None
        """,
        # sm100 and sm120 missing: one predicate per major, sm100's imported beside it
        """\
        from pkg.utils import is_sm90_supported, is_blackwell, is_sm100_supported, is_sm120_supported
        def enabled(args):
            return (
                is_sm90_supported()
                or is_sm100_supported()
                or is_sm120_supported()
            ) and args.enable_fast_path and is_blackwell() is not None
        """,
        id="sm100-and-sm120-missing-one-predicate-per-major",
    ),
    # A facts object answering attributes through __getattr__ (sglang 0.5.23's
    # get_platform().is_sm100): the twin attribute on the same object.
    pytest.param(
        FACTS
        + """\
        def enabled(args):
            return (FACTS.is_sm90 or FACTS.is_sm100) and args.enable_fast_path
        """,
        FACTS
        + """\
        def enabled(args):
            return (FACTS.is_sm90 or FACTS.is_sm100 or FACTS.is_sm120) and args.enable_fast_path
        """,
        id="facts-attribute",
    ),
    pytest.param(
        FACTS
        + """\
        _is_sm90 = FACTS.is_sm90
        _is_sm100 = FACTS.is_sm100
        def enabled(args):
            return (_is_sm90 or _is_sm100) and args.enable_fast_path
        """,
        FACTS
        + """\
        _is_sm90 = FACTS.is_sm90
        _is_sm100 = FACTS.is_sm100
        _is_sm120 = FACTS.is_sm120
        def enabled(args):
            return (_is_sm90 or _is_sm100 or _is_sm120) and args.enable_fast_path
        """,
        id="facts-attribute-alias-twin",
    ),
    # The table has no sm120 fact: nothing to add, the file stays as it is.
    pytest.param(
        FACTS.replace(', "is_sm120": "is_sm120_supported"', "")
        + """\
        def enabled(args):
            return (FACTS.is_sm90 or FACTS.is_sm100) and args.enable_fast_path
        """,
        None,
        id="facts-attribute-without-twin-refused",
    ),
]


@pytest.mark.parametrize(("before", "after"), PAIRS)
def test_fix_pairs(tmp_path: Path, before: str, after: str | None) -> None:
    text, report = _fixed_text(tmp_path, before)
    if after is None:
        assert text == textwrap.dedent(before), "a refused fix must leave the file untouched"
        assert report.refused and not report.changes
    else:
        assert text == textwrap.dedent(after)
        assert not report.refused


MAJOR_RULE = RULE.replace("require: [sm90, sm100, sm120]", "require: [sm100, sm120]")


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            "import torch\nclass A:\n    def f(self):\n        major = torch.cuda.get_device_capability()[0]\n        if major == 10:\n            self.enable_fast_path = True\n",
            "import torch\nclass A:\n    def f(self):\n        major = torch.cuda.get_device_capability()[0]\n        if major in (10, 12):\n            self.enable_fast_path = True\n",
            id="major-eq-to-in",
        ),
        pytest.param(
            "from pkg.utils import is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    return is_sm100_supported() and args.enable_fast_path\n",
            "from pkg.utils import is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    return (is_sm100_supported() or is_sm120_supported()) and args.enable_fast_path\n",
            id="lone-conjunct-parenthesized",
        ),
        pytest.param(
            "from pkg.utils import is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    if not is_sm100_supported():\n        return False\n    return args.enable_fast_path\n",
            "from pkg.utils import is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    if not (is_sm100_supported() or is_sm120_supported()):\n        return False\n    return args.enable_fast_path\n",
            id="early-exit-negation",
        ),
    ],
)
def test_fix_pairs_sm100_sm120(tmp_path: Path, before: str, after: str) -> None:
    text, report = _fixed_text(tmp_path, before, MAJOR_RULE)
    assert text == after, report.refused


NOOPS = [
    pytest.param(
        "import torch\ndef enabled(args):\n    return 9 <= torch.cuda.get_device_capability()[0] < 12 and args.enable_fast_path\n",
        "range",
        id="range-widening-refused",
    ),
    pytest.param(
        "import torch\nMAJORS = (9, 10)\ndef enabled(args):\n    return torch.cuda.get_device_capability()[0] in MAJORS and args.enable_fast_path\n",
        "named constant",
        id="named-constant-refused",
    ),
    pytest.param(
        "from pkg.utils import is_blackwell\ndef enabled(args):\n    return not is_blackwell() and args.enable_fast_path\n",
        "negation",
        id="negated-predicate-refused",
    ),
]


@pytest.mark.parametrize(("source", "reason"), NOOPS)
def test_noop_refusals_keep_file(tmp_path: Path, source: str, reason: str) -> None:
    text, report = _fixed_text(tmp_path, source)
    assert text == source
    assert report.refused and reason in report.refused[0][1]


def test_excluded_generation_is_never_fixed(tmp_path: Path) -> None:
    rule = RULE.replace(
        "require: [sm90, sm100, sm120]",
        "require: [sm90, sm100]\n    exclude: {sm120: 'no kernels'}",
    )
    source = "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    return (is_sm90_supported() or is_sm100_supported()) and args.enable_fast_path\n"
    text, report = _fixed_text(tmp_path, source, rule)
    assert text == source and not report.fixed and not report.refused


def test_crlf_bom_comments_and_mode_survive(tmp_path: Path) -> None:
    source = (
        "\ufefffrom pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\r\n"
        "def enabled(args):  # é comment\r\n"
        "    return (is_sm90_supported() or is_sm100_supported()) and args.enable_fast_path  # why\r\n"
    )
    root = _project(tmp_path, source)
    gate = root / "pkg" / "gate.py"
    os.chmod(gate, 0o640)
    write_changes(_fix(root), [root])
    raw = gate.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in raw.replace(b"\r\n", b""), "every line ending stays CRLF"
    # the edited line grew past 88 columns, so it was wrapped the way black does
    assert b"        or is_sm120_supported()\r\n    ) and args.enable_fast_path  # why\r\n" in raw
    assert "# é comment".encode() in raw
    assert stat.S_IMODE(gate.stat().st_mode) == 0o640


def test_long_line_wrapped_like_black(tmp_path: Path) -> None:
    source = (
        "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\n"
        "class A:\n"
        "    def f(self, model):\n"
        "        if (\n"
        "            model == 'DeepseekV3ForCausalLM'\n"
        "            and (is_sm90_supported() or is_sm100_supported()) and not self.enable_dp_x\n"
        "        ):\n"
        "            self.enable_fast_path = True\n"
    )
    text, report = _fixed_text(tmp_path, source)
    assert not report.refused
    assert all(len(line) <= 88 for line in text.splitlines())
    assert (
        "            and (\n                is_sm90_supported()\n                or is_sm100_supported()\n                or is_sm120_supported()\n            ) and not self.enable_dp_x\n"
        in text
    )


@pytest.mark.parametrize("variant", ["seed_alias", "seed_utils_only"])
def test_seed_fixtures_fix_and_idempotence(tmp_path: Path, variant: str) -> None:
    root = tmp_path / variant
    shutil.copytree(FIXTURES / variant, root)
    runner = CliRunner()
    first = runner.invoke(cli, ["check", str(root), "--fix"])
    assert first.exit_code == 0, first.output
    communicator = (root / "sglang/srt/layers/communicator.py").read_text()
    assert "(_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)" in communicator
    snapshot = {p: p.read_bytes() for p in root.rglob("*.py")}
    assert runner.invoke(cli, ["check", str(root)]).exit_code == 0
    again = runner.invoke(cli, ["check", str(root), "--fix"])
    assert again.exit_code == 0
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == snapshot


def test_seed_alias_edit_is_exactly_the_seed_patch(tmp_path: Path) -> None:
    root = tmp_path / "seed"
    shutil.copytree(FIXTURES / "seed_alias", root)
    result = CliRunner().invoke(cli, ["check", str(root), "--diff"])
    assert result.exit_code == 1
    changed = [
        line
        for line in result.output.splitlines()
        if line.startswith(("+ ", "- ", "+\t", "-\t"))
        or (line[:1] in "+-" and not line.startswith(("+++", "---")))
    ]
    assert changed == [
        "-        (_is_sm90_supported or _is_sm100_supported)",
        "+        (_is_sm90_supported or _is_sm100_supported or _is_sm120_supported)",
        "-            and (is_sm90_supported() or is_sm100_supported())",
        "+            and (is_sm90_supported() or is_sm100_supported() or is_sm120_supported())",
    ]
    # --diff writes nothing
    assert "_is_sm120_supported)" not in (root / "sglang/srt/layers/communicator.py").read_text()


def test_file_changed_on_disk_is_not_written(tmp_path: Path) -> None:
    source = "from pkg.utils import is_sm90_supported, is_sm100_supported, is_sm120_supported\ndef enabled(args):\n    return (is_sm90_supported() or is_sm100_supported()) and args.enable_fast_path\n"
    root = _project(tmp_path, source)
    report = _fix(root)
    gate = root / "pkg" / "gate.py"
    gate.write_text(source + "# edited meanwhile\n")
    write_changes(report, [root])
    assert gate.read_text() == source + "# edited meanwhile\n"
    assert report.not_written and "changed on disk" in report.not_written[0][1]


# -- every refusal of the planner and its strategies, through the pure fix_source ---------
# (each strategy's own noops are in its module's NOOPS, run by test_fix_strategies.py)

_IMPORTS = "from pkg.utils import is_sm90_supported, is_sm100_supported\n"
_CAP = "import torch\ncap = torch.cuda.get_device_capability()\n"

PLANNER_NOOPS = [
    pytest.param(
        _CAP
        + "def enabled(args):\n    if cap[0] != 10:\n        return False\n    return args.go\n",
        "disabling gate shape `cap[0] != 10` is not understood",
        ("sm100", "sm120"),
        id="disabling-gate-not-a-negation",
    ),
    pytest.param(
        _CAP + _IMPORTS + "def enabled(args):\n"
        "    return (is_sm90_supported() or cap[0] >= 10 and cap[1] == 7) and args.go\n",
        "mixes shapes no strategy extends",
        ("sm90", "sm120"),
        id="or-chain-of-mixed-shapes",
    ),
    pytest.param(
        _CAP
        + "def enabled(args):\n    return {9: True, 10: True}.get(cap[0], False) and args.go\n",
        "is not understood well enough to widen safely",
        ("sm90", "sm120"),
        id="shape-not-understood",
    ),
    pytest.param(
        "from pkg.utils import is_blackwell\ndef enabled(args):\n"
        "    return not is_blackwell() and args.go\n",
        "excludes the generation by negation",
        ("sm90", "sm120"),
        id="negation",
    ),
    pytest.param(
        _IMPORTS + "def enabled(args):\n    _is_sm100 = is_sm100_supported()\n"
        "    return _is_sm100 and args.go\n",
        "`_is_sm100` is not a module-level alias; cannot add a twin",
        ("sm100", "sm120"),
        id="local-arch-alias",
    ),
    pytest.param(
        _CAP + "_is_sm100 = cap[0] == 10\ndef enabled(args):\n    return _is_sm100 and args.go\n",
        "alias `_is_sm100` does not wrap a predicate call; cannot add a twin",
        ("sm100", "sm120"),
        id="alias-without-predicate-call",
    ),
    pytest.param(
        _IMPORTS + "_is_sm100 = is_sm100_supported()\n_is_sm120 = False\n"
        "def enabled(args):\n    return _is_sm100 and args.go\n",
        "`_is_sm120` exists but does not admit the generation",
        ("sm100", "sm120"),
        id="twin-alias-taken",
    ),
    pytest.param(
        _IMPORTS + "_blackwell_ok = is_sm100_supported()\n"
        "def enabled(args):\n    return _blackwell_ok and args.go\n",
        "cannot name a twin of `_blackwell_ok` for `is_sm120_supported`",
        ("sm100", "sm120"),
        id="alias-twin-unnameable",
    ),
    pytest.param(
        "import pkg.utils as utils\ndef enabled(args):\n"
        "    return utils.is_sm100_supported() and args.go\n",
        "no predicate for the missing generation is in scope beside `utils.is_sm100_supported()`",
        ("sm100", "sm120"),
        id="attribute-call-no-sibling-in-scope",
    ),
    pytest.param(
        _CAP + "def is_sm100():\n    return cap[0] == 10\n"
        "def enabled(args):\n    return is_sm100() and args.go\n",
        "no predicate for the missing generation is in scope, and `is_sm100` is not imported",
        ("sm100", "sm120"),
        id="local-predicate-not-imported",
    ),
    pytest.param(
        _IMPORTS + "is_sm120_supported = None\n"
        "def enabled(args):\n    return is_sm100_supported() and args.go\n",
        "`is_sm120_supported` is already bound in this module to something else",
        ("sm100", "sm120"),
        id="sibling-name-taken",
    ),
    pytest.param(
        textwrap.dedent(FACTS.replace(', "is_sm120": "is_sm120_supported"', ""))
        + "def enabled(args):\n    return FACTS.is_sm100 and args.go\n",
        "`FACTS.is_sm100` has no twin for sm120 on the same object (tried `is_sm120`)",
        ("sm100", "sm120"),
        id="facts-attribute-without-twin",
    ),
    # The planner reads where the edit is; the re-analysis of the whole gate decides.
    pytest.param(
        _CAP + "def enabled(args):\n    return cap[0] == 10 and args.go\n",
        "the edit would also admit gfx90a, gfx942, gfx950; file left untouched",
        ("sm90", "sm100", "sm120"),
        id="verify-refuses-amd-majors",
    ),
]


@pytest.mark.parametrize(("source", "reason", "require"), PLANNER_NOOPS)
def test_planner_refusals(source: str, reason: str, require: tuple[str, ...]) -> None:
    feature = dataclasses.replace(FAST_PATH, require=frozenset(require))
    report = fix_source_report(source, feature, modules=STRATEGY_MODULES)
    assert report.text == source
    assert any(reason in refusal for refusal in report.refused), report.refused


def test_force_says_the_kernels_are_not_built_for_it(tmp_path: Path) -> None:
    from tests.test_kernels import OLD
    from tests.test_kernels import RULE as KERNEL_RULE

    root = tmp_path / "app"
    shutil.copytree(FIXTURES / "seed_alias", root)
    (tmp_path / "rules.yaml").write_text(KERNEL_RULE)
    ruleset = load_ruleset([tmp_path / "rules.yaml"])
    analysis = analyse([root], ruleset, kernel_sources=[OLD])
    report = plan_fixes(analysis, ruleset, [root], force=True)
    assert report.fixed and not report.refused
    for _finding, plan in report.fixed:
        assert "(--force: blocked by the kernel library: allreduce_fusion in flashinfer 0.1" in (
            plan.summary
        )
