"""An answer does not depend on what was evaluated before it (gatecheck/semantics/reads.py:
cycles). A parameter whose callers pass a parameter whose callers pass the first is read
past a cycle cut; what is computed there held only while the other was in progress, and
read later from the memo it made a condition's answer follow the order of the modules,
and so the audit's worker processes (vLLM 0.33.0's `supports_combination` rows assumed
the naming convention with `-j 2` and not with `-j 1`). On fixtures/cyclic_callers, each
condition is evaluated after the others in several orders, by one Semantics as the audit
does, and must give what a fresh Semantics gives it alone; so must the audit, its modules
evaluated in reverse."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence

import pytest
from astroid import nodes

import gatecheck.audit.run as audit_run
from gatecheck.audit import run_audit
from gatecheck.config.model import RuleSet
from gatecheck.engine import open_project
from gatecheck.reporting.audit_json import render_audit_json
from gatecheck.semantics.admitted import Semantics
from tests.conftest import FIXTURES

ROOT = FIXTURES / "cyclic_callers"
Answer = tuple[frozenset[str], frozenset[str]]  # admitted, assumed
Order = Callable[[list[str]], list[str]]

NVIDIA_FROM_SM80 = {"sm80", "sm86", "sm87", "sm89", "sm90", "sm100", "sm103", "sm110"}
FROM_SM80 = frozenset({*NVIDIA_FROM_SM80, "sm120", "sm121", "gfx90a", "gfx942", "gfx950"})
BELOW_SM90 = frozenset({"sm70", "sm75", "sm80", "sm86", "sm87", "sm89"})
FROM_SM90 = FROM_SM80 - {"sm80", "sm86", "sm87", "sm89"}
EVERY = frozenset({*BELOW_SM90, *FROM_SM90})
NOT_MAJOR_9 = frozenset({*BELOW_SM90, "sm100", "sm103", "sm110", "sm120", "sm121"})
CLASS = "parameter 'device_capability: DeviceCapability' (a capability class)"
NAME = "parameter 'device_capability' (naming convention)"


def _conditions(semantics: Semantics) -> dict[str, nodes.NodeNG]:
    """Every `if` test of the fixture, by `path:line`, in file order."""
    project = semantics.project
    found: dict[str, nodes.NodeNG] = {}
    for path in sorted(project.files):
        module = project.module_at(path)
        assert module is not None
        for statement in module.nodes_of_class(nodes.If):
            found[f"{path.relative_to(ROOT).as_posix()}:{statement.lineno}"] = statement.test
    return found


def _semantics(ruleset: RuleSet) -> Semantics:
    """The audit's Semantics (callers followed) over the fixture, nothing evaluated."""
    project, _ = open_project([ROOT], ())
    return Semantics(project, ruleset.registry, ruleset.vocabulary, follow_callers=True)


def _answers(ruleset: RuleSet, wanted: Sequence[str]) -> dict[str, Answer]:
    """The admissions of the `wanted` conditions, evaluated in that order by one
    Semantics."""
    semantics = _semantics(ruleset)
    conditions = _conditions(semantics)
    answers = {}
    for key in wanted:
        admission = semantics.admission(conditions[key])
        answers[key] = (admission.can_be_true, admission.assumed)
    return answers


@functools.cache
def _keys() -> tuple[str, ...]:
    from gatecheck.config.loader import load_ruleset

    return tuple(_conditions(_semantics(load_ruleset(None))))


def _first(key: str) -> Order:
    return lambda keys: [key, *(k for k in keys if k != key)]


def _orders() -> dict[str, Order]:
    """Alone (a fresh Semantics for each), in file order, reversed, and each first."""
    orders: dict[str, Order] = {
        "file order": lambda keys: keys,
        "reversed": lambda keys: keys[::-1],
    }
    orders.update({f"{key} first": _first(key) for key in _keys()})
    return orders


@pytest.fixture(scope="module")
def answers(ruleset: RuleSet) -> dict[str, dict[str, Answer]]:
    """Each order's answers (and each condition's alone, as "alone")."""
    found = {name: _answers(ruleset, order(list(_keys()))) for name, order in _orders().items()}
    found["alone"] = {key: _answers(ruleset, [key])[key] for key in _keys()}
    return found


# A parameter the other side of its cycle passes is what that side is given, read past a
# cut at the first; where that side is given nothing else, it is assumed the device's by
# its annotation or by its name. The noops: a condition that reads no parameter of a
# cycle, and one whose parameter's cycle never reads it past a cut at anything else.
CASES = [
    pytest.param("attn/fallback.py:8", FROM_SM80, {CLASS}, id="spec-is-what-pick-is-given"),
    pytest.param("attn/backends/flash.py:8", BELOW_SM90, {CLASS, NAME}, id="base-of-two-overrides"),
    pytest.param(
        "attn/backends/paged.py:9", BELOW_SM90, {CLASS, NAME}, id="override-annotated-super"
    ),
    pytest.param("attn/backends/paged.py:11", NOT_MAJOR_9, {CLASS, NAME}, id="override-annotated"),
    pytest.param("attn/backends/sliding.py:8", BELOW_SM90, {CLASS}, id="override-named-only-super"),
    pytest.param(
        "attn/backends/sliding.py:10", {"sm70", "sm75"}, {CLASS}, id="override-named-only"
    ),
    pytest.param("attn/fallback.py:5", EVERY, set(), id="noop-head-size"),
    pytest.param("attn/pick.py:6", FROM_SM90, {CLASS}, id="noop-pick-entered-first-or-not"),
]


@pytest.mark.parametrize(("key", "admitted", "assumed"), CASES)
def test_the_same_answer_whatever_was_evaluated_before(
    answers: dict[str, dict[str, Answer]], key: str, admitted: set[str], assumed: set[str]
) -> None:
    expected = (frozenset(admitted), frozenset(assumed))
    assert {name: found[key] for name, found in answers.items()} == dict.fromkeys(answers, expected)


def test_audit_in_reverse_module_order(ruleset: RuleSet, monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's report, its candidate modules evaluated in reverse (a worker process
    takes them from the back): the same rows, the same assumptions."""
    forward = json.loads(render_audit_json(run_audit([ROOT], ruleset, "sm120"), ROOT))
    in_file_order = audit_run._arch_modules
    monkeypatch.setattr(
        audit_run,
        "_arch_modules",
        lambda project, only=None: in_file_order(project, only)[::-1],
    )
    backward = json.loads(render_audit_json(run_audit([ROOT], ruleset, "sm120"), ROOT))
    assert forward["gates"], "the fixture has gates"

    def by_place(report: dict[str, object]) -> dict[tuple[str, int, int], object]:
        gates = report["gates"]
        assert isinstance(gates, list)
        return {(g["path"], g["line"], g["column"]): g for g in gates}

    assert by_place(backward) == by_place(forward)
    assert backward["counts"] == forward["counts"]


def test_entries_are_evaluated_again_up_to_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """reads.MAX_SCOPED_MISSES: a run evaluates an entry made past a cut again where it
    does not hold, until it has done so that often; then it uses such entries wherever
    they are met (unsloth 2026.10.9 took over 20 minutes without it, 2 with it)."""
    from gatecheck.semantics import reads

    monkeypatch.setattr(reads, "MAX_SCOPED_MISSES", 3)
    epoch = reads.Epoch()
    assert [epoch.spent() for _ in range(5)] == [False, False, False, True, True]
    assert epoch.missed == 5


def test_the_fixture_stays_inside_the_budget(ruleset: RuleSet) -> None:
    """The orders above are answered with every entry evaluated again where it does not
    hold: the fixture's misses are far below the budget (so are sglang 0.5.23's, 6,920)."""
    from gatecheck.semantics import reads

    semantics = _semantics(ruleset)
    for condition in _conditions(semantics).values():
        semantics.admission(condition)
    missed = semantics.evaluator(ruleset.registry.names[0]).epoch.missed
    assert 0 < missed < reads.MAX_SCOPED_MISSES
