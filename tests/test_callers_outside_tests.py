"""A parameter's value is what the project's callers pass, read outside its tests where
there are callers there (semantics/callers.py `_outside_tests`): a unit test passes each
value a branch needs on purpose (sglang 0.5.19's cosmos3video `_can_enable(is_blackwell=
True)` beside the model's `is_blackwell=current_platform.is_blackwell()`), which says
nothing of what the device decides where the code runs. Only tests calling it: they are
its callers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from gatecheck.audit import run_audit
from gatecheck.config.loader import load_ruleset
from gatecheck.semantics.callers import in_tests

MakeTree = Callable[[Mapping[str, str]], Path]

MODEL = """\
import torch


def is_blackwell():
    return torch.cuda.get_device_capability()[0] == 10


def can_fuse(*, blackwell, compiled):
    if compiled:
        return False
    if blackwell:
        return True
    return False
"""
CALLER = "from pkg.model import can_fuse, is_blackwell\n\nFUSE = can_fuse(blackwell=is_blackwell(), compiled=False)\n"
TEST = "from pkg.model import can_fuse\n\n\ndef test_fuses():\n    assert can_fuse(blackwell=True, compiled=False)\n"


def _row_at_the_branch(make_tree: MakeTree, files: Mapping[str, str]) -> tuple[str, ...] | None:
    root = make_tree({"pkg/__init__.py": "", "pkg/model.py": MODEL, **files})
    report = run_audit([root], load_ruleset([]), "sm120")
    rows = [g for g in report.gates if g.path.name == "model.py" and g.found.line == 11]
    return tuple(sorted(rows[0].found.admission.can_be_true)) if rows else None


@pytest.mark.parametrize(
    ("files", "admitted"),
    [
        pytest.param({"pkg/run.py": CALLER}, ("sm100", "sm103"), id="the-model-calls-it"),
        pytest.param(
            {"pkg/run.py": CALLER, "tests/test_model.py": TEST},
            ("sm100", "sm103"),
            id="a-test-calls-it-too",
        ),
        # Noop: only a test calls it, with a constant: no generation decides.
        pytest.param({"tests/test_model.py": TEST}, None, id="only-a-test-calls-it"),
    ],
)
def test_the_value_is_the_running_callers(
    make_tree: MakeTree, files: Mapping[str, str], admitted: tuple[str, ...] | None
) -> None:
    assert _row_at_the_branch(make_tree, files) == admitted


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("pkg/tests/test_model.py", True),
        ("pkg/test/helpers.py", True),
        ("pkg/model_test.py", True),
        ("pkg/conftest.py", True),
        ("pkg/testing_utils.py", False),
        ("pkg/contest/model.py", False),
    ],
)
def test_test_files(path: str, expected: bool) -> None:
    from astroid import parse

    module = parse("x = 1\n", path=path)
    assert in_tests(module.body[0]) is expected


def test_a_root_under_a_tests_folder_is_no_test() -> None:
    from astroid import parse

    module = parse("x = 1\n", path="/home/me/tests/proj/pkg/model.py")
    assert in_tests(module.body[0], {Path("/home/me/tests/proj")}) is False
    assert in_tests(module.body[0]) is True  # without the root, the folder counts
