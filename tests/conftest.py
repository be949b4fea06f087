from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from gatecheck.loading.brainless import skip_brains

skip_brains()  # as the command line does, before anything imports astroid

from gatecheck.config.loader import load_ruleset  # noqa: E402
from gatecheck.config.model import RuleSet  # noqa: E402
from scripts.corpus import CorpusUnavailable, fetch  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

# The one-feature rule file most mini projects in these tests check against.
FAST_THING_RULE = """\
features:
  - id: fast-thing
    description: the fast thing
    flags: [enable_fast_thing]
    require: [sm90, sm100, sm120]
"""


@pytest.fixture(scope="session")
def ruleset() -> RuleSet:
    return load_ruleset(None)


@pytest.fixture
def default_recursion_limit() -> Iterator[None]:
    """Library use keeps Python's default limit; CLI tests earlier in the session raised it."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(limit)


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


@pytest.fixture
def make_tree(tmp_path: Path) -> Callable[[Mapping[str, str]], Path]:
    def make(files: Mapping[str, str]) -> Path:
        return write_tree(tmp_path / "proj", files)

    return make


# The node id of the running test when it is marked `corpus` (the only tests that may
# download). Set before any of the test's fixtures (module-scoped ones included) run.
_CORPUS_TEST: list[str] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Tests import this file as `tests.conftest`; pytest may load it under another name.
    running = importlib.import_module("tests.conftest")._CORPUS_TEST
    running.clear()
    if item.get_closest_marker("corpus") is not None:
        running.append(item.nodeid)


def corpus_package(requirement: str) -> Path:
    """Download (once, cached in .cache/corpus) and unpack a wheel from PyPI; skip the
    test with the reason when the registry cannot be reached. Only a test marked
    `@pytest.mark.corpus` may call it: the default tier runs offline."""
    if not _CORPUS_TEST:
        raise RuntimeError(f"{requirement}: a test that downloads must be marked corpus")
    try:
        return fetch(requirement, timeout=600)
    except CorpusUnavailable as err:
        pytest.skip(str(err))
