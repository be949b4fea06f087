"""Step 5: a feature's activation path, built statically across modules.

CLI option -> settings field -> auto-enable gates -> runtime gates -> their callers (a few
hops up, through wrappers, methods and module constants). Unresolvable calls and cycles
become marked hops, never crashes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from astroid import nodes

from gatecheck.config.model import Feature
from gatecheck.findings import Hop, HopKind
from gatecheck.gates.mentions import option_needles
from gatecheck.gates.model import GateKind, Polarity, qualname_of
from gatecheck.gates.results import Analysis, GateResult, flag_assumptions
from gatecheck.kernels.support import KernelSupport
from gatecheck.loading.lazy import spelled_nodes
from gatecheck.semantics.callers import calls_named
from gatecheck.semantics.culprit import culprit
from gatecheck.semantics.values import FunctionRef
from gatecheck.tracing.cli_options import cli_options

MAX_CALLER_DEPTH = 3
ENABLING_KINDS = (GateKind.AUTO_ENABLE, GateKind.FLAG_VALUE, GateKind.AUTO_DISABLE)


# Records, never compared or printed: no __eq__ / __repr__ made for them (each method a
# dataclass makes is compiled on import, on every run's start).
@dataclass(eq=False, repr=False)
class PathNode:
    """A hop of the activation path with the hops below it (a gate's callers)."""

    hop: Hop
    result: GateResult | None = None
    children: list[PathNode] = field(default_factory=list)
    # For a gate: per generation it shuts out, the sub-expression that does it.
    blocking: dict[str, Hop] = field(default_factory=dict)

    def where(self, generation: str) -> Hop:
        return self.blocking.get(generation, self.hop)


@dataclass(eq=False, repr=False)
class ActivationPath:
    """A feature's way from its options and settings fields to its gates."""

    feature: Feature
    options: list[Hop] = field(default_factory=list)
    fields: list[Hop] = field(default_factory=list)
    auto_gates: list[PathNode] = field(default_factory=list)
    runtime_gates: list[PathNode] = field(default_factory=list)
    # The kernels behind the feature and what they are built for (last hop).
    kernels: list[KernelSupport] = field(default_factory=list)

    def hops(self) -> list[Hop]:
        """Flattened, in activation order: the feature's whole path (stored once per
        feature in the analysis and the JSON report)."""
        out = list(self.options) + list(self.fields)
        for node in [*self.auto_gates, *self.runtime_gates]:
            out.extend(_flatten(node))
        return out

    def route(self, result: GateResult) -> list[Hop]:
        """The path to one gate: the option and field hops, then that gate and its callers
        (not the feature's other gates), for the findings of that gate (SARIF codeFlows,
        Markdown). Its length does not grow with the feature's number of gates."""
        out = list(self.options) + list(self.fields)
        for node in [*self.auto_gates, *self.runtime_gates]:
            if node.result == result:
                out.extend(_flatten(node))
        return out

    @property
    def option_names(self) -> list[str]:
        return [hop.condition for hop in self.options]


def _flatten(node: PathNode) -> Iterator[Hop]:
    yield node.hop
    for child in node.children:
        yield from _flatten(child)


def _hop(node: nodes.NodeNG, kind: HopKind, text: str, admitted: frozenset[str]) -> Hop:
    root = node.root()
    path = Path(root.file) if isinstance(root, nodes.Module) and root.file else Path("?")
    return Hop(
        path,
        int(node.lineno or 1),
        qualname_of(node),
        kind,
        text,
        admitted,
        int(node.col_offset or 0),
    )


def build_path(
    analysis: Analysis, feature: Feature, caller_depth: int = MAX_CALLER_DEPTH
) -> ActivationPath:
    every = analysis.semantics.registry.all_names()
    path = ActivationPath(feature, kernels=list(analysis.kernels.get(feature.id, [])))
    results = [r for r in analysis.gate_results if r.feature.id == feature.id]
    modules = _modules_mentioning(analysis, option_needles(feature))
    for module in modules:
        path.options.extend(cli_options(module, feature, every))
        path.fields.extend(_settings_fields(module, feature, every))
    for result in results:
        hop = Hop(
            result.gate.path,
            result.gate.line,
            result.gate.qualname,
            HopKind.of(result.gate.kind),
            result.gate.condition.as_string(),
            result.feature_admits,
            int(result.gate.condition.col_offset or 0),
        )
        node = PathNode(hop, result, blocking=_blocking(analysis, result))
        if result.gate.kind in ENABLING_KINDS:
            path.auto_gates.append(node)
        else:
            scope = result.gate.statement.scope()
            if isinstance(scope, nodes.FunctionDef):
                node.children = _callers(analysis, scope, every, 1, {id(scope)}, caller_depth)
            path.runtime_gates.append(node)
    return path


def _blocking(analysis: Analysis, result: GateResult) -> dict[str, Hop]:
    gate = result.gate
    needs = gate.polarity is Polarity.ENABLES
    out: dict[str, Hop] = {}
    shut_out = analysis.semantics.registry.all_names() - result.feature_admits
    culprits = analysis.semantics.per_generation(
        lambda _gen, evaluator: culprit(gate.condition, evaluator, needs),
        flag_assumptions(result.feature, gate.polarity),
        shut_out,
    )
    for generation, node in culprits.items():
        out[generation] = Hop(
            gate.path,
            int(node.lineno or gate.line),
            gate.qualname,
            HopKind.of(gate.kind),
            node.as_string(),
            result.feature_admits,
            int(node.col_offset or 0),
        )
    return out


def _modules_mentioning(analysis: Analysis, needles: Iterable[str]) -> list[nodes.Module]:
    found: list[nodes.Module] = []
    for file in analysis.project.files_mentioning(needles):
        module = analysis.project.module_at(file)
        if module is not None:
            found.append(module)
    return found


def _settings_fields(
    module: nodes.Module, feature: Feature, every: frozenset[str]
) -> Iterator[Hop]:
    for assign in spelled_nodes(module, (nodes.AnnAssign,), set(feature.flags)):
        assert isinstance(assign, nodes.AnnAssign)
        target = assign.target
        if (
            isinstance(target, nodes.AssignName)
            and target.name in feature.flags
            and isinstance(assign.parent, nodes.ClassDef)
        ):
            default = assign.value.as_string() if assign.value is not None else "(no default)"
            text = (
                f"{assign.parent.name}.{target.name}: {assign.annotation.as_string()} = {default}"
            )
            yield _hop(assign, HopKind.SETTINGS_FIELD, text, every)


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _callers(
    analysis: Analysis,
    function: nodes.FunctionDef,
    every: frozenset[str],
    depth: int,
    seen: set[int],
    max_depth: int = MAX_CALLER_DEPTH,
) -> list[PathNode]:
    """Call sites of `function`, resolved through bindings (bind by the import, not by
    the name). Method calls on receivers that cannot be resolved are counted in one
    summary hop instead of being listed: `x.forward()` is everywhere."""
    name = str(function.name)
    evaluator = analysis.semantics.evaluator(analysis.semantics.registry.names[0])
    out: list[PathNode] = []
    unresolved: list[nodes.Call] = []
    for module in _candidate_modules(analysis, function):
        for call in calls_named(module, name):
            callee = call.func
            value = evaluator.value(callee)
            if not isinstance(value, FunctionRef):
                unresolved.append(call)
                continue
            if value.node is not function:
                continue
            out.append(_call_site(analysis, call, every, depth, seen, max_depth))
    if unresolved:
        first = unresolved[0]
        text = (
            f"{len(unresolved)} call(s) of `{name}` on receivers that cannot be resolved "
            f"statically (first: {_statement_text(first)})"
        )
        out.append(PathNode(_hop(first, HopKind.UNRESOLVED_CALLS, text, every)))
    return out


def _candidate_modules(analysis: Analysis, function: nodes.FunctionDef) -> list[nodes.Module]:
    """Cheap prefilter: a method's callers name its class somewhere (they build or
    annotate the receiver) or live in its module; a function's callers name it."""
    name = str(function.name)
    owner = function.parent
    if not isinstance(owner, nodes.ClassDef):
        return _modules_mentioning(analysis, [name])
    home = function.root()
    found: list[nodes.Module] = [home] if isinstance(home, nodes.Module) else []
    for file in analysis.project.files_mentioning([name]):
        text = analysis.project.text_of(file)
        if text is None or str(owner.name) not in text:
            continue
        module = analysis.project.module_at(file)
        if module is not None and module is not home:
            found.append(module)
    return found


def _call_site(
    analysis: Analysis,
    call: nodes.Call,
    every: frozenset[str],
    depth: int,
    seen: set[int],
    max_depth: int,
) -> PathNode:
    caller = call.scope()
    if isinstance(caller, nodes.Module):
        kind = HopKind.MODULE_CONSTANT if _assigned(call) else HopKind.CALL_SITE
        return PathNode(_hop(call, kind, _statement_text(call), every))
    node = PathNode(_hop(call, HopKind.CALL_SITE, _statement_text(call), every))
    if isinstance(caller, nodes.FunctionDef):
        if id(caller) in seen:
            text = f"{caller.name} is already on the path (recursion)"
            node.children.append(PathNode(_hop(caller, HopKind.CYCLE, text, every)))
        elif depth < max_depth:
            node.children = _callers(
                analysis, caller, every, depth + 1, seen | {id(caller)}, max_depth
            )
    return node


def _assigned(call: nodes.Call) -> bool:
    return isinstance(call.statement(), (nodes.Assign, nodes.AnnAssign))


def _statement_text(node: nodes.NodeNG) -> str:
    text = node.statement().as_string().splitlines()[0]
    return text if len(text) <= 120 else text[:117] + "..."
