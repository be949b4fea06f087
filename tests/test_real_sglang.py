"""The seed, on the real code: sglang 0.5.9 from PyPI (downloaded once, cached in .cache/)."""

from __future__ import annotations

import pytest

from gatecheck.config.model import RuleSet
from gatecheck.engine import analyse
from tests.conftest import corpus_package

pytestmark = pytest.mark.corpus


def test_sglang_059_has_exactly_the_two_seed_gates(ruleset: RuleSet) -> None:
    root = corpus_package("sglang==0.5.9")
    analysis = analyse([root], ruleset)
    found = sorted(
        (f.path.relative_to(root).as_posix(), f.start.line, f.feature, tuple(sorted(f.missing)))
        for f in analysis.findings
    )
    assert found == [
        ("sglang/srt/layers/communicator.py", 95, "flashinfer-allreduce-fusion", ("sm120",)),
        ("sglang/srt/server_args.py", 1691, "flashinfer-allreduce-fusion", ("sm120",)),
    ]
    server_args = next(f for f in analysis.findings if f.path.name == "server_args.py")
    assert any("'is_sm120_supported' is already imported" in note for note in server_args.notes)
    assert not analysis.diagnostics
