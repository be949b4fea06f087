"""Find a feature's gates from its rule: where its flag is switched on or off under a
condition, where a condition reads the flag, and the return values of its gate functions
-- together with the conditions that enclose or guard each of those places."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from astroid import nodes
from astroid.const import Context

from gatecheck.config.model import Feature
from gatecheck.gates.branches import branch_disables, branch_exits
from gatecheck.gates.declared import declaration_gates
from gatecheck.gates.mentions import mentions
from gatecheck.gates.model import Gate, GateKind, Polarity, qualname_of
from gatecheck.loading.lazy import spelled_nodes
from gatecheck.loading.project import Project

__all__ = [
    "branch_disables",
    "condition_slot",
    "find_feature_gates",
    "gate_function_gates",
    "guard_gates",
    "mentions",
    "resolve_dotted_function",
]

# Statement slots whose expression is a condition.
_CONDITION_SLOTS = (nodes.If, nodes.While, nodes.Assert, nodes.Return, nodes.IfExp)


def find_feature_gates(
    project: Project, feature: Feature, modules: Iterable[nodes.Module]
) -> list[Gate]:
    gates: dict[int, Gate] = {}

    def add(gate: Gate) -> None:
        gates.setdefault(id(gate.condition), gate)

    flags = set(feature.flags)
    for module in modules:
        path = Path(module.file) if module.file else Path(module.name)
        for gate in _flag_gates(module, path, flags):
            add(gate)
    for dotted in feature.gate_functions:
        func = resolve_dotted_function(project, dotted)
        if func is None:
            continue
        module = func.root()
        path = Path(module.file) if isinstance(module, nodes.Module) and module.file else Path()
        for gate in gate_function_gates(func, path):
            add(gate)
        for gate in declaration_gates(func, path):
            add(gate)
    return sorted(gates.values(), key=lambda g: g.key)


def resolve_dotted_function(project: Project, dotted: str) -> nodes.FunctionDef | None:
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        module = project.module(".".join(parts[:split]))
        if module is None:
            continue
        scope: nodes.NodeNG = module
        for name in parts[split:]:
            found = [
                n
                for n in getattr(scope, "locals", {}).get(name, [])
                if isinstance(n, (nodes.FunctionDef, nodes.ClassDef))
            ]
            if not found:
                return None
            scope = found[-1]
        return scope if isinstance(scope, nodes.FunctionDef) else None
    return None


def _module_path(node: nodes.NodeNG) -> tuple[Path, str]:
    root = node.root()
    assert isinstance(root, nodes.Module)
    return (Path(root.file) if root.file else Path(root.name)), str(root.name)


def _make(
    kind: GateKind, polarity: Polarity, condition: nodes.NodeNG, statement: nodes.NodeNG
) -> Gate:
    path, module = _module_path(condition)
    return Gate(kind, polarity, path, module, qualname_of(statement), condition, statement)


def _is_flag_target(target: nodes.NodeNG, flags: set[str]) -> bool:
    if isinstance(target, nodes.AssignAttr):
        return target.attrname in flags
    if isinstance(target, nodes.AssignName):
        return target.name in flags
    return isinstance(target, nodes.Subscript) and _keyed_flag(target) in flags


def _keyed_flag(node: nodes.NodeNG) -> str | None:
    """The key a settings dict is read or written at by a constant string:
    `global_server_args_dict["enable_flashinfer_allreduce_fusion"]` (SGLang's settings
    before 0.5.4, a dict of the server's arguments), `args.get("flag")`; else None."""
    if isinstance(node, nodes.Subscript):
        key = node.slice
    elif (
        isinstance(node, nodes.Call)
        and isinstance(node.func, nodes.Attribute)
        and node.func.attrname == "get"
        and node.args
    ):
        key = node.args[0]
    else:
        return None
    return key.value if isinstance(key, nodes.Const) and isinstance(key.value, str) else None


def _flag_gates(module: nodes.Module, path: Path, flags: set[str]) -> Iterator[Gate]:
    for assign in spelled_nodes(module, (nodes.Assign, nodes.AnnAssign), flags):
        assert isinstance(assign, (nodes.Assign, nodes.AnnAssign))
        targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
        if assign.value is None or not any(_is_flag_target(t, flags) for t in targets):
            continue
        if isinstance(assign.scope(), nodes.ClassDef):
            continue  # a field declaration with its default, not a decision
        value = assign.value
        if isinstance(value, nodes.Const) and isinstance(value.value, bool):
            kind = GateKind.AUTO_ENABLE if value.value else GateKind.AUTO_DISABLE
            polarity = Polarity.ENABLES if value.value else Polarity.DISABLES
            yield from guard_gates(assign, kind, polarity)
        else:
            yield _make(GateKind.FLAG_VALUE, Polarity.ENABLES, value, assign)
            yield from guard_gates(assign, GateKind.GUARD, Polarity.ENABLES)
    for read in _flag_reads(module, flags):
        slot = condition_slot(read)
        if slot is None:
            continue
        condition, statement = slot
        polarity = Polarity.ENABLES
        if isinstance(statement, nodes.If) and condition is statement.test:
            polarity = (
                Polarity.DISABLES if branch_disables(statement.body, flags) else Polarity.ENABLES
            )
        if polarity is Polarity.DISABLES and _true_when_on(read, condition):
            # `if flag is not None or ...: return None`: the feature being on skips
            # this code; it is not a gate of the feature.
            continue
        yield _make(GateKind.RUNTIME, polarity, condition, statement)
        yield from guard_gates(statement, GateKind.GUARD, Polarity.ENABLES)


def _true_when_on(read: nodes.NodeNG, condition: nodes.NodeNG) -> bool:
    """The flag being on (truthy, or not None) makes the whole condition true: the read
    is the condition, or an operand of `or` chains, alone or as `flag is not None`."""
    node = read
    while node is not condition:
        parent = node.parent
        if isinstance(parent, nodes.Compare):
            if node is not parent.left or len(parent.ops) != 1:
                return False
            op, right = parent.ops[0]
            if op not in ("is not", "!=") or not (
                isinstance(right, nodes.Const) and right.value is None
            ):
                return False
        elif not (isinstance(parent, nodes.BoolOp) and parent.op == "or"):
            return False
        node = parent
    return True


def _flag_reads(module: nodes.Module, flags: set[str]) -> Iterator[nodes.NodeNG]:
    kinds = (nodes.Attribute, nodes.Name, nodes.Subscript, nodes.Call)
    for node in spelled_nodes(module, kinds, flags):
        if isinstance(node, nodes.Attribute):
            name: str | None = node.attrname
        elif isinstance(node, nodes.Name):
            name = node.name
        elif isinstance(node, nodes.Subscript) and node.ctx is not Context.Load:
            continue  # a write (`d["flag"] = ...`): _flag_gates reads those
        else:
            name = _keyed_flag(node)
        if name in flags:
            yield node


def condition_slot(node: nodes.NodeNG) -> tuple[nodes.NodeNG, nodes.NodeNG] | None:
    """The whole condition an expression belongs to, and the statement holding it."""
    child = node
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (nodes.If, nodes.While, nodes.Assert, nodes.IfExp)):
            return (child, parent) if child is parent.test else None
        if isinstance(parent, nodes.Return):
            return child, parent
        if isinstance(parent, (nodes.Assign, nodes.AnnAssign)):
            return (child, parent) if child is parent.value else None
        if isinstance(parent, nodes.Comprehension):
            return (child, parent) if child in parent.ifs else None
        if isinstance(parent, (nodes.BoolOp, nodes.UnaryOp, nodes.Compare)):
            child, parent = parent, parent.parent
            continue
        return None
    return None


def guard_gates(node: nodes.NodeNG, kind: GateKind, polarity: Polarity) -> Iterator[Gate]:
    """Conditions between `node` and its function: enclosing if/elif/else tests, and
    earlier early exits (`if not cond: return`) in the blocks leading to it."""
    child = node
    parent = node.parent
    while parent is not None and not isinstance(
        parent, (nodes.FunctionDef, nodes.Module, nodes.ClassDef, nodes.Lambda)
    ):
        if isinstance(parent, nodes.If) and child is not parent.test:
            in_body = child in parent.body
            # In the else branch the feature needs the test to be false.
            branch_polarity = polarity if in_body else _flip(polarity)
            yield _make(kind, branch_polarity, parent.test, parent)
        yield from _early_exits(parent, child, polarity)
        child, parent = parent, parent.parent
    if parent is not None and isinstance(parent, nodes.FunctionDef):
        yield from _early_exits(parent, child, polarity)


def _early_exits(
    block_owner: nodes.NodeNG, child: nodes.NodeNG, polarity: Polarity
) -> Iterator[Gate]:
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(block_owner, field, None)
        if not isinstance(block, list) or child not in block:
            continue
        for stmt in block[: block.index(child)]:
            if isinstance(stmt, nodes.If) and branch_exits(stmt.body) and not stmt.orelse:
                yield _make(GateKind.GUARD, _flip(polarity), stmt.test, stmt)


def _flip(polarity: Polarity) -> Polarity:
    return Polarity.DISABLES if polarity is Polarity.ENABLES else Polarity.ENABLES


def gate_function_gates(func: nodes.FunctionDef, path: Path) -> Iterator[Gate]:
    for ret in func.nodes_of_class(nodes.Return):
        if ret.scope() is not func or ret.value is None:
            continue
        if isinstance(ret.value, nodes.Const) and not ret.value.value:
            continue
        yield _make(GateKind.GATE_FUNCTION, Polarity.ENABLES, ret.value, ret)
        yield from guard_gates(ret, GateKind.GUARD, Polarity.ENABLES)
