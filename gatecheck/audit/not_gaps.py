"""Shapes that leave the audited generation out without it losing anything a maintainer
would widen: the condition names the generation's own predicate (the author decided about
it), the generation has its own branch in the same if/elif chain, the gate only looks a
device up in a per-GPU table of numbers, or its branches only pick launch numbers. Each rule
reads one gate and gives the reason it is not a gap, or None; `NOT_A_GAP` is their list, in
the order they are tried."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from astroid import nodes
from astroid.exceptions import AstroidError

from gatecheck.audit.conditions import (
    ArchCondition,
    SlotKind,
    condition_text,
    negated,
    operands,
    varies,
)
from gatecheck.config.model import Generation, Registry
from gatecheck.gates.branches import call_name, is_numeric
from gatecheck.gates.model import Polarity
from gatecheck.loading.resolve import absolute_import_name
from gatecheck.loading.trees import lookup
from gatecheck.semantics.admitted import Semantics

# `sm100`, `sm_120a`, `sm12x` inside a name (not `sm1000`, not `rsm100`).
_SM_IN_NAME = re.compile(r"(?<![a-z0-9])sm_?(\d{1,2})(\d|x)[a-z]?(?![0-9])", re.IGNORECASE)
# Keys of a per-GPU table: `(9, 0)`, `"9.0"`, `"sm90"`, `90`, `100`.
_CAPABILITY_TEXT = re.compile(r"^(sm_?)?\d{1,2}(\.\d)?[a-z]?$", re.IGNORECASE)


@dataclass(frozen=True)
class GateContext:
    """One gate and what the rules need to read it for a generation."""

    found: ArchCondition
    semantics: Semantics
    registry: Registry
    generation: Generation
    vendor_gens: frozenset[str]
    # A module of the project by its dotted name (tables imported from another module).
    module_named: Callable[[str], nodes.Module | None] | None = None
    # The other gates of the gate's module (and of the files calling its function with
    # the device, classify.Classifier._callers_gates), and the generations that get to
    # the gate through the tests enclosing it in its function (all, when not given).
    module_gates: tuple[ArchCondition, ...] = ()
    reach: frozenset[str] | None = None

    def admits(self, node: nodes.NodeNG) -> frozenset[str]:
        """Generations of the vendor where `node` can be true."""
        return self.semantics.admission(node).can_be_true & self.vendor_gens

    def tells_apart(self, node: nodes.NodeNG) -> bool:
        """The test's truth differs between generations of the vendor."""
        return varies(self.semantics.admission(node), self.vendor_gens)

    def own_line(self, node: nodes.NodeNG) -> bool:
        """`node` is a test for this generation's line alone (`is_sm120_supported()`,
        `major == 12`, `is_device_capability_family(120)`; `is_gfx95_supported()`, not
        a test all three AMD generations pass) and can be true on it."""
        admits = self.admits(node)
        gen = self.generation
        return gen.name in admits and all(gen.same_line(self.registry.get(g)) for g in admits)


Rule = Callable[[GateContext], "str | None"]


def names_its_own_generation(ctx: GateContext) -> str | None:
    """`not (is_blackwell() or is_sm120())`, `has_capability(90) and not family(120)`:
    the condition spells this generation's own test, so leaving it out was decided."""
    condition = ctx.found.condition
    for term in _terms(ctx.found):
        # Not `major == 10 and minor == 0` for sm103: a test of the major narrowed by
        # another is the exact-minor gap, not an exclusion by name.
        if negated(term, condition) and ctx.own_line(term):
            return (
                f"names {ctx.generation.name}'s own test '{short(term)}': the condition "
                f"excludes it by name, a decision about {ctx.generation.name}"
            )
    return None


def has_its_own_branch(ctx: GateContext) -> str | None:
    """`if sm_major in [10, 11]: ... elif sm_major == 12: ...`, or an `else:` that calls
    `_kernel_meta_sm12x(...)`: the dispatch has a branch written for this generation."""
    statement = ctx.found.statement
    if ctx.found.kind is SlotKind.CASE and isinstance(statement, nodes.MatchCase):
        own, chain = statement.pattern, "match"
    elif ctx.found.kind is SlotKind.IF and isinstance(statement, nodes.If):
        own, chain = statement.test, "if/elif chain"
    elif ctx.found.kind is SlotKind.ASSIGN:
        # A flag kept for the tests of its function (`is_sm_supported = ...` then `if
        # is_sm_supported: ... elif is_sm120_supported: ...`): their chains.
        for reader in _flag_readers(statement):
            found = dataclasses.replace(ctx.found, statement=reader, kind=SlotKind.IF)
            reason = has_its_own_branch(dataclasses.replace(ctx, found=found))
            if reason is not None:
                return reason
        return None
    else:
        return None
    gen = ctx.generation.name
    tests, last_else = if_chain(statement, ctx.tells_apart)
    for test in tests:
        if test is not own and ctx.own_line(test):
            return f"{gen} has its own branch in this {chain}: line {test.lineno} '{short(test)}'"
    if last_else and not any(gen in ctx.admits(t) for t in tests):
        for call in _calls(last_else):
            # The callee as spelled, its module's name with it: `sm100_utils.make_mma(...)`.
            name = call.func.as_string() if _spelled_callee(call) else call_name(call)
            if _names_major(name, ctx.generation.major):
                return (
                    f"{gen} takes the else branch, which calls '{name}' "
                    f"(line {call.lineno}), named for it"
                )
    return None


def _flag_readers(statement: nodes.NodeNG) -> Iterator[nodes.If]:
    """The `if` statements of the assignment's function whose test reads the local name
    it assigns, after it."""
    targets = statement.targets if isinstance(statement, nodes.Assign) else []
    names = {t.name for t in targets if isinstance(t, nodes.AssignName)}
    function = statement.scope()
    if not names or not isinstance(function, nodes.FunctionDef):
        return
    for node in function.nodes_of_class(nodes.If):
        if (node.lineno or 0) > (statement.lineno or 0) and any(
            n.name in names for n in node.test.nodes_of_class(nodes.Name)
        ):
            yield node


def goes_with_its_group(ctx: GateContext) -> str | None:
    """`if arch // 10 == 12: ... elif arch // 10 == 9: ... else: <the SM100 path>` audited
    for sm110, in a module that tests `arch // 10 in [10, 11]` elsewhere: the generation
    goes the way the gate (or its if/elif chain) sends the generations it leaves out,
    with family siblings of another major that the module groups with it, apart from
    everything the chain handles, and no newer than the newest it handles (the author
    knew them and gave them no branch of their own). The mirror of a gate admitting part
    of such a group (`arch // 10 == 10` there, a likely gap): here the group is whole."""
    statement = ctx.found.statement
    if (
        ctx.found.kind is not SlotKind.IF
        or ctx.found.polarity is not Polarity.ENABLES
        or not isinstance(statement, nodes.If)
    ):
        return None
    gen = ctx.generation
    family = gen.family.lower()
    tests, _ = if_chain(statement)
    # What the chain takes off the way the generation goes: generations some test is
    # true on whatever else holds (`use_hd256 = arch // 10 == 10 and d == 256` keeps
    # sm100 on the way too).
    handled: frozenset[str] = frozenset()
    for test in tests:
        if gen.name in ctx.admits(test):
            return None
        answer = ctx.semantics.admission(test)
        handled |= (answer.can_be_true - answer.can_be_false) & ctx.vendor_gens
    reach = ctx.vendor_gens if ctx.reach is None else ctx.reach & ctx.vendor_gens
    if gen.name not in reach or not handled or not family:
        return None
    newest = max(ctx.registry.get(g).major for g in handled)
    along = reach - handled - {gen.name}
    splits = handled | ctx.admits(statement.test)  # the chain, or this very test
    for other in ctx.module_gates:
        if other is ctx.found or other.kind.is_declaration:
            continue
        # What the other condition tests together, whichever way it gates.
        grouped = other.admission.can_be_true & ctx.vendor_gens
        if gen.name not in grouped or grouped & splits:
            continue
        siblings = frozenset(
            g
            for g in grouped & along
            if ctx.registry.get(g).family.lower() == family
            and gen.major != ctx.registry.get(g).major <= newest
        )
        if siblings:
            shown = ", ".join(ctx.registry.ordered(siblings))
            where = "" if other.path == ctx.found.path else f" of {other.module}"
            return (
                f"{gen.name} goes the way {shown} go, which the condition at line "
                f"{other.line}{where} tests together with it, apart from what this gate handles"
            )
    return None


def reads_a_tuning_table(ctx: GateContext) -> str | None:
    """`cap in CUSTOM_ALL_REDUCE_MAX_SIZES`, `_MAX_SIZES.get(cap, 0)`: the device is looked
    up in a table keyed by capability whose values are numbers: tuned per GPU, widened by
    measuring, not by editing a gate."""
    # Limits alone (sizes per world size) under a gate that switches the feature off are
    # also its support list: only measured settings (config objects) are tuning there.
    disables = ctx.found.polarity is Polarity.DISABLES
    for table, where in _tables_read(ctx):
        if _is_number_table(table, ctx) and (not disables or _holds_settings(table, ctx, 2)):
            return (
                f"looks the device up in a per-GPU table of numbers ('{where}', line "
                f"{table.lineno}): {ctx.generation.name} needs numbers measured, not a gate widened"
            )
    return None


def picks_launch_numbers(ctx: GateContext) -> str | None:
    """`if is_blackwell: return 64, 1, _tile(d, 32)` then `return 16, 1, _tile(d, 64)`,
    or `parts = sm_count` else `parts = sm_count // max(1, h // 64)`: both sides give the
    same numbers a different value; the generation gets the other set."""
    statement = ctx.found.statement
    if ctx.found.kind is not SlotKind.IF or not isinstance(statement, nodes.If):
        return None
    other_side = statement.orelse
    is_elif = len(other_side) == 1 and isinstance(other_side[0], nodes.If)
    if other_side and not is_elif:
        mine, my_literal = _assigns_numbers(statement.body)
        theirs, their_literal = _assigns_numbers(other_side)
        if mine and mine == theirs and (my_literal or their_literal):
            return (
                f"both sides set the same numbers: {ctx.generation.name} gets the "
                f"other values (line {other_side[0].lineno})"
            )
    if len(statement.body) != 1 or not isinstance(statement.body[0], nodes.Return):
        return None
    other = statement.orelse[0] if len(statement.orelse) == 1 else statement.next_sibling()
    if not isinstance(other, nodes.Return) or (
        statement.orelse and other is not statement.orelse[0]
    ):
        return None
    mine, theirs = statement.body[0].value, other.value
    if mine is None or theirs is None or not (_launch_numbers(mine) and _launch_numbers(theirs)):
        return None
    if _arity(mine) != _arity(theirs) or (_on_off(mine) and _on_off(theirs)):
        return None  # `return 1` / `return 0` is an answer, not numbers tuned
    return (
        f"both sides return launch numbers: {ctx.generation.name} gets the other set "
        f"(line {other.lineno})"
    )


NOT_A_GAP: tuple[Rule, ...] = (
    names_its_own_generation,
    has_its_own_branch,
    goes_with_its_group,
    reads_a_tuning_table,
    picks_launch_numbers,
)


def not_a_gap(ctx: GateContext) -> str | None:
    """The first rule's reason, or None."""
    for rule in NOT_A_GAP:
        reason = rule(ctx)
        if reason is not None:
            return reason
    return None


def _terms(found: ArchCondition) -> Iterator[nodes.NodeNG]:
    seen: set[int] = set()
    for term in (*found.arch_terms, *operands(found.condition)):
        if id(term) not in seen:
            seen.add(id(term))
            yield term


def short(node: nodes.NodeNG, limit: int = 70) -> str:
    """The node's source on one line, cut to `limit` characters."""
    text = condition_text(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def if_chain(
    statement: nodes.NodeNG, tells_apart: Callable[[nodes.NodeNG], bool] | None = None
) -> tuple[list[nodes.NodeNG], list[nodes.NodeNG]]:
    """The tests of the if/elif chain `statement` belongs to, and its final else body.
    With `tells_apart` (whether a test tells generations apart), a chain written with
    early exits counts too: `if cap(90): return "xqa"` then `if family(100): return ...`,
    `return family(100)` or `assert family(100)`: ifs whose every arm leaves, with no
    else, and the generation tests after them in the same block are one dispatch. A
    `return`/`assert` statement is then the chain's last arm."""
    if isinstance(statement, nodes.MatchCase):
        return match_chain(statement)
    if not isinstance(statement, nodes.If):
        if tells_apart is None or not isinstance(statement, (nodes.Return, nodes.Assert)):
            return [], []
        earlier = _leaving_before(statement, tells_apart)
        last = statement.value if isinstance(statement, nodes.Return) else statement.test
        return ([*earlier, last], []) if earlier and last is not None else ([], [])
    head = statement
    while isinstance(head.parent, nodes.If) and head.parent.orelse == [head]:
        head = head.parent
    tests, last_else, leaves = _elif_tests(head)
    if tells_apart is None or not leaves:
        return tests, last_else
    tests = _leaving_before(head, tells_apart) + tests
    following = head.next_sibling()
    while following is not None:
        if isinstance(following, nodes.If):
            more, last_else, leaves = _elif_tests(following)
            if not all(tells_apart(t) for t in more):
                break
            tests += more
            if not leaves:
                return tests, last_else
            following = following.next_sibling()
            continue
        last = following.value if isinstance(following, nodes.Return) else None
        if isinstance(following, nodes.Assert):
            last = following.test
        if last is not None and tells_apart(last):
            tests.append(last)
        break
    return tests, []


def match_chain(case: nodes.MatchCase) -> tuple[list[nodes.NodeNG], list[nodes.NodeNG]]:
    """The patterns of the `match` `case` belongs to, up to a case that is always taken
    (`case _:`, a capture, without a guard), whose body is the chain's else."""
    match = case.parent
    assert isinstance(match, nodes.Match)
    tests: list[nodes.NodeNG] = []
    for each in match.cases:
        if each.guard is None and _irrefutable(each.pattern):
            return tests, list(each.body)
        tests.append(each.pattern)
    return tests, []


def _irrefutable(pattern: nodes.NodeNG) -> bool:
    if isinstance(pattern, nodes.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    if isinstance(pattern, nodes.MatchOr):
        return any(_irrefutable(p) for p in pattern.patterns)
    return False


def _elif_tests(head: nodes.If) -> tuple[list[nodes.NodeNG], list[nodes.NodeNG], bool]:
    """The tests of the if/elif chain from `head`, its final else body, and whether it
    has none and every arm leaves (returns or raises)."""
    tests: list[nodes.NodeNG] = []
    node: nodes.If = head
    leaves = True
    while True:
        tests.append(node.test)
        leaves = (
            leaves and bool(node.body) and isinstance(node.body[-1], (nodes.Return, nodes.Raise))
        )
        if len(node.orelse) == 1 and isinstance(node.orelse[0], nodes.If):
            node = node.orelse[0]
            continue
        return tests, list(node.orelse), leaves and not node.orelse


def _leaving_before(
    statement: nodes.NodeNG, tells_apart: Callable[[nodes.NodeNG], bool]
) -> list[nodes.NodeNG]:
    """The tests of the early-exit ifs right before `statement` in its block, in order."""
    tests: list[nodes.NodeNG] = []
    previous = statement.previous_sibling()
    while isinstance(previous, nodes.If):
        head = previous
        # `previous` is the first if of its elif chain (an elif is never a sibling).
        more, _, leaves = _elif_tests(head)
        if not leaves or not all(tells_apart(t) for t in more):
            break
        tests = more + tests
        previous = previous.previous_sibling()
    return tests


def _calls(body: list[nodes.NodeNG]) -> Iterator[nodes.Call]:
    for stmt in body:
        yield from stmt.nodes_of_class(nodes.Call, skip_klass=(nodes.FunctionDef, nodes.ClassDef))


def _spelled_callee(call: nodes.Call) -> bool:
    """A callee spelled with names only (`helpers.make_mma`, `self.sm100.run`)."""
    func = call.func
    while isinstance(func, nodes.Attribute):
        func = func.expr
    return isinstance(func, nodes.Name)


def _names_major(name: str, major: int) -> bool:
    return any(int(match.group(1)) == major for match in _SM_IN_NAME.finditer(name))


def _tables_read(ctx: GateContext) -> Iterator[tuple[nodes.Dict, str]]:
    """Dict literals the condition looks the device up in: `x in T`, `T[x]`, `T.get(x)`,
    directly or through a local bound to such a lookup (`plans = T.get(cap, {})`)."""
    found = ctx.found
    seen: set[int] = set()
    for holder in _lookups(found.condition):
        table = _dict_of(holder, ctx)
        if table is not None and id(table) not in seen:
            seen.add(id(table))
            yield table, holder.as_string()
    for name in found.condition.nodes_of_class(nodes.Name):
        value = _local_value(name)
        if value is None:
            continue
        for holder in _lookups(value):
            table = _dict_of(holder, ctx)
            if table is not None and id(table) not in seen:
                seen.add(id(table))
                yield table, holder.as_string()


def _lookups(node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    for compare in node.nodes_of_class(nodes.Compare):
        for op, right in compare.ops:
            if op in ("in", "not in") and isinstance(right, (nodes.Name, nodes.Attribute)):
                yield right
    for sub in node.nodes_of_class(nodes.Subscript):
        if isinstance(sub.value, (nodes.Name, nodes.Attribute)):
            yield sub.value
    for call in node.nodes_of_class(nodes.Call):
        func = call.func
        is_get = isinstance(func, nodes.Attribute) and func.attrname == "get"
        if is_get and isinstance(func.expr, (nodes.Name, nodes.Attribute)):
            yield func.expr


def _local_value(name: nodes.Name) -> nodes.NodeNG | None:
    """The value of the one assignment of a local name in the same function."""
    try:
        scope, bindings = name.lookup(name.name)
    except (AstroidError, AttributeError):
        return None
    if not isinstance(scope, nodes.FunctionDef) or len(bindings) != 1:
        return None
    statement = bindings[0].statement()
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1:
        return statement.value
    return None


def _dict_of(holder: nodes.NodeNG, ctx: GateContext, hops: int = 2) -> nodes.Dict | None:
    """The dict literal a name is bound to, in its module or through one `from m import
    name` of a module in the project."""
    if not isinstance(holder, nodes.Name):
        return None
    try:
        _, bindings = lookup(holder, str(holder.name))
    except (AstroidError, AttributeError, RecursionError):
        return None
    for binding in bindings:
        statement = binding.statement()
        value = getattr(statement, "value", None)
        if isinstance(statement, (nodes.Assign, nodes.AnnAssign)) and isinstance(value, nodes.Dict):
            return value
        if isinstance(statement, nodes.ImportFrom) and hops > 0:
            found = _imported_dict(statement, str(holder.name), ctx, hops - 1)
            if found is not None:
                return found
    return None


def _imported_dict(
    statement: nodes.ImportFrom, local: str, ctx: GateContext, hops: int
) -> nodes.Dict | None:
    real = next((n for n, alias in statement.names if (alias or n) == local), None)
    if real is None or ctx.module_named is None:
        return None
    module = ctx.module_named(absolute_import_name(statement))
    if module is None or real not in module.locals:
        return None
    for binding in module.locals[real]:
        if isinstance(binding, nodes.AssignName):
            statement_there = binding.statement()
            value = getattr(statement_there, "value", None)
            if isinstance(value, nodes.Dict):
                return value
    return None


def _is_number_table(table: nodes.Dict, ctx: GateContext) -> bool:
    """Keyed by capabilities, every value a number (or a table of them, `64 * MiB`), or
    measured settings (`{(4096, 2560): {1: GemmConfig(1, 64, 4)}}`, also held in a name)."""
    if not table.items:
        return False
    return all(_capability_key(k) and _tuned(v, ctx, 2) for k, v in table.items)


def _holds_settings(node: nodes.NodeNG, ctx: GateContext, depth: int) -> bool:
    """Whether the data holds a settings object (`GemmConfig(1, 64, 4)`), through names."""
    if isinstance(node, nodes.Call):
        return True
    if isinstance(node, nodes.Dict):
        return any(_holds_settings(v, ctx, depth) for _, v in node.items)
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return any(_holds_settings(e, ctx, depth) for e in node.elts)
    if isinstance(node, nodes.Name) and depth > 0:
        held = _dict_of(node, ctx)
        return held is not None and _holds_settings(held, ctx, depth - 1)
    return False


def _tuned(node: nodes.NodeNG, ctx: GateContext, depth: int) -> bool:
    """Numbers, or data made of them: tables, tuples, settings objects built from
    numbers; a name holding such data (followed `depth` times)."""
    if _numbers(node):
        return True
    if isinstance(node, nodes.Dict):
        return bool(node.items) and all(_tuned(v, ctx, depth) for _, v in node.items)
    if isinstance(node, (nodes.Tuple, nodes.List)):
        return bool(node.elts) and all(_tuned(e, ctx, depth) for e in node.elts)
    if isinstance(node, nodes.Call):
        values = [*node.args, *(k.value for k in node.keywords or [])]
        return bool(values) and all(
            _numbers(v) or (isinstance(v, nodes.Const) and not isinstance(v.value, str))
            for v in values
        )
    if isinstance(node, nodes.Name) and depth > 0:
        held = _dict_of(node, ctx)
        return held is not None and _tuned(held, ctx, depth - 1)
    return False


def _capability_key(key: nodes.NodeNG) -> bool:
    if isinstance(key, nodes.Const):
        value = key.value
        if isinstance(value, bool):
            return False
        if isinstance(value, int):
            return 30 <= value <= 130
        return isinstance(value, str) and bool(_CAPABILITY_TEXT.match(value))
    if isinstance(key, nodes.Tuple) and len(key.elts) == 2:
        return all(isinstance(e, nodes.Const) and type(e.value) is int for e in key.elts)
    return False


def _numbers(node: nodes.NodeNG) -> bool:
    if is_numeric(node):
        return True
    if isinstance(node, nodes.BinOp):  # `64 * MiB`: a unit held in a name
        sides = (node.left, node.right)
        return all(_numbers(s) or isinstance(s, nodes.Name) for s in sides) and any(
            _numbers(s) for s in sides
        )
    if isinstance(node, nodes.Dict):
        return bool(node.items) and all(_numbers(v) for _, v in node.items)
    return False


def _launch_numbers(node: nodes.NodeNG) -> bool:
    """Numbers, or a tuple of numbers and helper calls on numbers and names
    (`64, 1, _tile(dstate, 32)`), at least one a literal number."""
    if is_numeric(node):
        return True
    if not isinstance(node, nodes.Tuple) or not node.elts:
        return False
    literal = False
    for element in node.elts:
        if is_numeric(element):
            literal = True
        elif isinstance(element, nodes.Call):
            if not all(is_numeric(a) or isinstance(a, nodes.Name) for a in element.args):
                return False
        else:
            return False
    return literal


# Calls that only compute a number from numbers.
_ARITHMETIC_CALLS = frozenset({"min", "max", "int", "abs", "round", "ceil", "floor", "cdiv"})


def _arithmetic(node: nodes.NodeNG) -> bool:
    """Numbers and names combined by arithmetic (`sm_count // max(1, h_q // 64)`)."""
    if is_numeric(node) or isinstance(node, (nodes.Name, nodes.Attribute)):
        return True
    if isinstance(node, nodes.BinOp):
        return _arithmetic(node.left) and _arithmetic(node.right)
    if isinstance(node, nodes.UnaryOp):
        return _arithmetic(node.operand)
    if isinstance(node, nodes.Call) and call_name(node) in _ARITHMETIC_CALLS:
        return all(_arithmetic(a) for a in node.args)
    return False


def _assigns_numbers(body: list[nodes.NodeNG]) -> tuple[frozenset[str], bool]:
    """The names a branch sets, when all it does is set names to arithmetic (empty
    otherwise), and whether a number is written among the values."""
    names: set[str] = set()
    literal = False
    for stmt in body:
        if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1:
            return frozenset(), False
        target = stmt.targets[0]
        if not isinstance(target, (nodes.AssignName, nodes.AssignAttr)):
            return frozenset(), False
        if not _arithmetic(stmt.value):
            return frozenset(), False
        numbers = [c.value for c in stmt.value.nodes_of_class(nodes.Const)]
        # `use = 1` / `use = 0` is an answer (on/off), not a tuned number.
        literal = literal or any(type(n) in (int, float) and n not in (0, 1) for n in numbers)
        names.add(str(target.name if isinstance(target, nodes.AssignName) else target.attrname))
    return frozenset(names), literal


def _on_off(node: nodes.NodeNG) -> bool:
    numbers = [c.value for c in node.nodes_of_class(nodes.Const)]
    return all(n in (0, 1) for n in numbers)


def _arity(node: nodes.NodeNG) -> int:
    return len(node.elts) if isinstance(node, nodes.Tuple) else 1
